import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { gitIn, gitProject, userGitState, writeFiles } from "../../test/helpers/git-project.ts";
import { tempFolders } from "../../test/helpers/temp-folders.ts";
import { snapshotsOn } from "../snapshot/code.ts";
import { SnapshotRepo } from "../snapshot/repo.ts";
import { localGit } from "../tools/local-git.ts";
import { applyMerge, planMerge } from "./merge.ts";
import { makeWorktree, removeWorktree } from "./worktree.ts";

const temp = tempFolders("tine-wt-");
const MiB = 1024 * 1024;

/** A committed project with an uncommitted change, an untracked file and an ignored `.env`, and its store. */
async function project() {
  const root = temp();
  gitProject(root, { "a.txt": "one\ntwo\nthree\n", "src/b.ts": "b\n", ".gitignore": ".env\n" });
  writeFiles(root, { "a.txt": "one\ntwo (mine)\nthree\n", "new.txt": "untracked\n", ".env": "SECRET=1\n", ".worktreeinclude": ".env\n" });
  const data = temp();
  const repo = await SnapshotRepo.open(root, data, 2 * MiB, localGit);
  return { root, data, repo };
}

describe("worktrees", () => {
  it("hold the snapshot's files (uncommitted ones too) and .worktreeinclude's, with a git of their own; the user's repository is only read", async () => {
    const { root, data, repo } = await project();
    const before = userGitState(root);
    const base = await repo.take("t");
    const path = join(data, "worktrees", "1");
    const view = await makeWorktree(repo, base.id, path, "t");
    expect(readFileSync(join(path, "a.txt"), "utf8")).toBe("one\ntwo (mine)\nthree\n");
    expect(readFileSync(join(path, "new.txt"), "utf8")).toBe("untracked\n");
    expect(readFileSync(join(path, ".env"), "utf8")).toBe("SECRET=1\n");
    // Its own git: HEAD is the user's commit, the uncommitted change shows as one.
    expect(gitIn(path, "rev-parse", "HEAD")).toBe(gitIn(root, "rev-parse", "HEAD"));
    expect(gitIn(path, "status", "--porcelain")).toBe(" M a.txt\n?? .worktreeinclude\n?? new.txt\n");
    // Its next snapshot is the base: nothing changed there.
    expect((await view.take("t")).id).toBe(base.id);
    writeFiles(path, { "src/b.ts": "b in the fork\n" });
    const changed = await view.take("t");
    expect((await repo.changes(base.id, changed.id)).map((f) => f.path)).toEqual(["src/b.ts"]);
    expect(readFileSync(join(root, "src/b.ts"), "utf8")).toBe("b\n");
    expect(userGitState(root)).toEqual(before);
    expect(removeWorktree(path)).toBe(true);
    expect(existsSync(path)).toBe(false);
  });

  it("a folder tine did not make is never removed", () => {
    const dir = temp({ "keep.txt": "x" });
    expect(removeWorktree(dir)).toBe(false);
    expect(existsSync(join(dir, "keep.txt"))).toBe(true);
  });
});

describe("merging a fork's work back", () => {
  it("applies what only the fork changed, merges what both changed, and marks conflicts keeping both sides", async () => {
    const { root, data, repo } = await project();
    writeFiles(root, { "c.txt": "1\n2\n3\n4\n5\n6\n7\n8\n" });
    const base = await repo.take("p");
    const path = join(data, "worktrees", "2");
    const view = await makeWorktree(repo, base.id, path, "f");
    // The fork: a new file, an edit only it makes, an edit near the top of c.txt, a conflicting edit of a.txt.
    writeFiles(path, { "fork.txt": "from the fork\n", "src/b.ts": "b by the fork\n", "c.txt": "1 fork\n2\n3\n4\n5\n6\n7\n8\n" });
    writeFiles(path, { "a.txt": "one\ntwo (fork)\nthree\n" });
    // The parent meanwhile: the bottom of c.txt, and the same line of a.txt.
    writeFiles(root, { "c.txt": "1\n2\n3\n4\n5\n6\n7\n8 parent\n", "a.txt": "one\ntwo (parent)\nthree\n" });
    const theirs = await view.take("f");
    const ours = await repo.take("p");
    const snapshots = snapshotsOn(async () => repo, 30);
    const result = await planMerge(
      snapshots,
      { base: base.id, ours: ours.id, theirs: theirs.id },
      { ours: "parent", theirs: "fork", theirsRoot: path },
      repo.git,
    );
    await applyMerge(root, result.writes);
    expect(readFileSync(join(root, "fork.txt"), "utf8")).toBe("from the fork\n");
    expect(readFileSync(join(root, "src/b.ts"), "utf8")).toBe("b by the fork\n");
    expect(readFileSync(join(root, "c.txt"), "utf8")).toBe("1 fork\n2\n3\n4\n5\n6\n7\n8 parent\n");
    const a = readFileSync(join(root, "a.txt"), "utf8");
    expect(a).toBe("one\n<<<<<<< parent\ntwo (parent)\n=======\ntwo (fork)\n>>>>>>> fork\nthree\n");
    expect(result.conflicts).toEqual([{ path: "a.txt", line: 2, text: "conflict: both changed these lines" }]);
    expect(result.writes.map((w) => w.path).sort()).toEqual(["a.txt", "c.txt", "fork.txt", "src/b.ts"]);
    // The fork's side is still whole in its worktree.
    expect(readFileSync(join(path, "a.txt"), "utf8")).toBe("one\ntwo (fork)\nthree\n");
  });
});
