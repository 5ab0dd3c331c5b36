import { mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { gitIn, gitProject, userGitState, writeFiles } from "../../test/helpers/git-project.ts";
import type { RunGit } from "../tools/git.ts";
import { localGit } from "../tools/local-git.ts";
import { gitSnapshots } from "./code.ts";
import { PACK_FROM_FILES, PACK_PART_FILES, packsTogether } from "./packed-add.ts";
import { SnapshotRepo } from "./repo.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function temp(): string {
  const d = mkdtempSync(join(tmpdir(), "tine-snap-"));
  dirs.push(d);
  return d;
}

const MiB = 1024 * 1024;

async function project(files: Record<string, string | Buffer> = { "a.txt": "one\ntwo\n", "src/b.ts": "b\n" }) {
  const root = temp();
  gitProject(root, files);
  const data = temp();
  return { root, data, repo: await SnapshotRepo.open(root, data, 2 * MiB, localGit) };
}

describe("SnapshotRepo", () => {
  it("never touches the user's index, HEAD, refs, config or status", async () => {
    const { root, repo } = await project();
    writeFiles(root, { "a.txt": "changed\n", "new.txt": "untracked\n" });
    gitIn(root, "add", "a.txt"); // a staged change the user has
    const before = userGitState(root);
    const first = await repo.take("t1");
    writeFiles(root, { "src/b.ts": "edited by a tool\n" });
    const before2 = userGitState(root);
    await repo.take("t1");
    await repo.changes(first.id, (await repo.take("t2")).id);
    expect(userGitState(root)).toEqual(before2);
    expect(before2.index).toEqual(before.index);
  });

  it("holds tracked and untracked files, honouring .gitignore and .git/info/exclude", async () => {
    const { root, repo } = await project({ ".gitignore": "build/\n", "a.txt": "a\n" });
    writeFiles(root, { "build/out.js": "o", "notes.local": "n", "new.txt": "n", ".git/info/exclude": "*.local\n" });
    const s = await repo.take("t");
    const files = await repo.read(s.id, ["a.txt", "new.txt", "build/out.js", "notes.local", ".gitignore"]);
    expect([...files].filter(([, f]) => f).map(([p]) => p)).toEqual(["a.txt", "new.txt", ".gitignore"]);
    expect(files.get("new.txt")!.bytes.toString()).toBe("n");
  });

  it("leaves out tine's data folder when it lies inside the project", async () => {
    const root = temp();
    gitProject(root, { "a.txt": "a" });
    const repo = await SnapshotRepo.open(root, join(root, "tine-data"), 2 * MiB, localGit);
    writeFiles(root, { "tine-data/x": "x" });
    const s = await repo.take("t");
    expect((await repo.read(s.id, ["tine-data/x"])).get("tine-data/x")).toBeNull();
  });

  it("keeps the bytes as they are: CRLF and text attributes do not convert them", async () => {
    const crlf = "one\r\ntwo\r\n";
    const { root, repo } = await project({ ".gitattributes": "* text=auto eol=lf\n", "w.txt": crlf });
    writeFiles(root, { "w.txt": `${crlf}three\r\n` });
    const s = await repo.take("t");
    expect((await repo.read(s.id, ["w.txt"])).get("w.txt")!.bytes.toString()).toBe(`${crlf}three\r\n`);
  });

  it("skips files over the limit and names them", async () => {
    const { root, repo } = await project();
    writeFiles(root, { "big.bin": Buffer.alloc(2 * MiB + 1, 1), "small.bin": Buffer.alloc(10, 1) });
    const s = await repo.take("t");
    expect(s.skipped).toEqual(["big.bin"]);
    expect(await repo.skippedIn(s.id)).toEqual(["big.bin"]);
    const files = await repo.read(s.id, ["big.bin", "small.bin"]);
    expect(files.get("big.bin")).toBeNull();
    expect(files.get("small.bin")).not.toBeNull();
  });

  it("gives the same snapshot when nothing changed, and lists what a change did with +/- counts", async () => {
    const { root, repo } = await project();
    const a = await repo.take("t");
    expect((await repo.take("t")).id).toBe(a.id);
    writeFiles(root, { "a.txt": "one\nTWO\nthree\n", "c.txt": "new\n" });
    unlinkSync(join(root, "src/b.ts"));
    const b = await repo.take("t");
    expect(b.id).not.toBe(a.id);
    expect(await repo.changes(a.id, b.id)).toEqual([
      { path: "a.txt", status: "modified", added: 2, removed: 1 },
      { path: "c.txt", status: "added", added: 1, removed: 0 },
      { path: "src/b.ts", status: "deleted", added: 0, removed: 1 },
    ]);
    expect(await repo.fileDiff(a.id, b.id, "a.txt")).toEqual(["@@ -1,2 +1,3 @@", " one", "-two", "+TWO", "+three"]);
  });

  it("holds a folder that became a link as the link, without the files that were under it, even the same folder moved out", async () => {
    const { root, repo } = await project({ "a.txt": "a\n", "lib/x.txt": "x\n", "lib/y.txt": "y\n" });
    const before = await repo.take("t");
    // Moved out whole, then linked back: the files keep their stat data, so git lists none of them as changed.
    const away = join(temp(), "lib");
    renameSync(join(root, "lib"), away);
    symlinkSync(away, join(root, "lib"));
    const after = await repo.take("t");
    expect(await repo.changes(before.id, after.id)).toEqual([
      { path: "lib", status: "added", added: 1, removed: 0 },
      { path: "lib/x.txt", status: "deleted", added: 0, removed: 1 },
      { path: "lib/y.txt", status: "deleted", added: 0, removed: 1 },
    ]);
    expect((await repo.read(after.id, ["lib"])).get("lib")).toEqual({ mode: "120000", bytes: Buffer.from(away) });
  });

  it("housekeeping drops the snapshots of owners that are gone, and old ones", async () => {
    const { root, repo } = await project();
    const kept = await repo.take("alive");
    writeFileSync(join(root, "a.txt"), "gone's version\n");
    const gone = await repo.take("gone");
    expect(await repo.prune(new Set(["alive"]), 0)).toBe(1);
    expect(await repo.has(kept.id)).toBe(true);
    expect(await repo.has(gone.id)).toBe(false);
    expect(await repo.prune(new Set(["alive"]), Date.now() + 60_000)).toBe(1);
    expect(await repo.has(kept.id)).toBe(false);
  });

  it("housekeeping runs at most once a day", async () => {
    const { root, data } = await project();
    const snapshots = gitSnapshots({ enabled: true, cwd: root, dataDir: data, maxFileBytes: MiB, keepDays: 30, git: localGit });
    await snapshots.take("gone");
    const day = 86_400_000;
    const t0 = Date.now();
    expect(await snapshots.prune(new Set(), t0)).toBe(1);
    const again = await snapshots.take("gone");
    expect(await snapshots.prune(new Set(), t0 + day - 1)).toBe(0);
    expect(await snapshots.has(again!.id)).toBe(true);
    expect(await snapshots.prune(new Set(), t0 + day)).toBe(1);
  });

  it("a first snapshot primed in the background leaves the next one nothing to hash", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 50; i++) files[`src/f${i}.ts`] = `export const n = ${i};\n`;
    const unprimed = await project(files);
    expect((await unprimed.repo.take("t")).indexed).toBeGreaterThanOrEqual(50);
    const { root, repo } = await project(files);
    await repo.prime();
    const first = await repo.take("t");
    expect(first.indexed).toBe(0);
    writeFiles(root, { "src/f7.ts": "changed\n" });
    const second = await repo.take("t");
    expect(second.indexed).toBe(1);
    expect(await repo.changes(first.id, second.id)).toEqual([{ path: "src/f7.ts", status: "modified", added: 1, removed: 1 }]);
  });

  it("refuses a folder that is not in a git repository, saying so", async () => {
    const plain = temp();
    await expect(SnapshotRepo.open(plain, temp(), MiB, localGit)).rejects.toThrow(/is not in a git repository/);
  });

  it("refuses a repository whose config aims its work tree elsewhere (core.worktree), so no snapshot holds or restores files there", async () => {
    const outside = temp();
    writeFiles(outside, { "secret.txt": "OUTSIDE\n" });
    for (const aim of [outside, "/"]) {
      const root = temp();
      gitProject(root, { "a.txt": "one\n" });
      gitIn(root, "config", "core.worktree", aim);
      await expect(SnapshotRepo.open(root, temp(), MiB, localGit)).rejects.toThrow(
        /the repository's work tree \(.+\) is not where its \.git is \(its config's core\.worktree\?\)/,
      );
    }
  });

  it("takes a project in a folder of a repository, a linked worktree and a submodule, as their repository's work tree", async () => {
    const root = temp();
    gitProject(root, { "a.txt": "one\n", "sub/b.txt": "b\n" });
    gitIn(root, "commit", "-q", "--allow-empty", "-m", "first");
    const linked = join(temp(), "linked");
    gitIn(root, "worktree", "add", "-q", linked);
    // A submodule's config names its work tree (core.worktree), and its .git file points back.
    const lib = temp();
    gitProject(lib, { "lib.txt": "lib\n" });
    gitIn(root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "vendor/lib");
    for (const cwd of [join(root, "sub"), linked, join(root, "vendor/lib")])
      await expect(SnapshotRepo.open(cwd, temp(), MiB, localGit)).resolves.toBeInstanceOf(SnapshotRepo);
  });

  it("a snapshot of one changed file adds about that file's size to the store", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 200; i++) files[`f${i}.txt`] = `${"x".repeat(2000)}${i}\n`;
    const { root, repo } = await project(files);
    await repo.take("t");
    const before = repo.size();
    writeFileSync(join(root, "f7.txt"), readFileSync(join(root, "f7.txt"), "utf8").replace("x", "y"));
    await repo.take("t");
    // A blob (compressed), a tree of 200 entries, a commit and a ref: far below the 400 KB tree.
    expect(repo.size() - before).toBeLessThan(20_000);
  });
});

describe("a snapshot that adds many files", () => {
  it("writes their objects into one pack, not a file each (the store's first snapshot of a big project), and holds every file", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < PACK_FROM_FILES; i++) files[`d${i % 10}/f${i}.txt`] = `file ${i}\n`;
    const { repo } = await project(files);
    const taken = await repo.take("t");
    const loose = gitIn(repo.gitDir, "count-objects", "-v");
    expect(Number(/^count: (\d+)$/m.exec(loose)![1])).toBeLessThan(20); // the trees and the commit
    expect(Number(/^in-pack: (\d+)$/m.exec(loose)![1])).toBeGreaterThanOrEqual(PACK_FROM_FILES);
    const read = await repo.read(taken.id, ["d3/f13.txt", `d9/f${PACK_FROM_FILES - 1}.txt`]);
    expect([...read.values()].map((f) => f!.bytes.toString())).toEqual(["file 13\n", `file ${PACK_FROM_FILES - 1}\n`]);
  });

  it("packs them only where git groups them in one pack (2.37 on); an older git keeps a file each", () => {
    expect(packsTogether("git version 2.39.5\n")).toBe(true);
    expect(packsTogether("git version 2.37.0.windows.1")).toBe(true);
    expect(packsTogether("git version 3.0.0")).toBe(true);
    expect(packsTogether("git version 2.36.6")).toBe(false);
    expect(packsTogether("not git")).toBe(false);
  });
});

describe("the first snapshot, begun in the background (prime)", () => {
  /** A project of `count` files whose store's gits are recorded: their arguments, and whether each ran in the background. */
  async function recorded(count: number) {
    const files: Record<string, string> = {};
    for (let i = 0; i < count; i++) files[`d${i % 10}/f${i}.txt`] = `file ${i}\n`;
    const root = temp();
    gitProject(root, files);
    const calls: { args: readonly string[]; background: boolean }[] = [];
    const git: RunGit = (args, run) => {
      calls.push({ args, background: run.background === true });
      return localGit(args, run);
    };
    const repo = await SnapshotRepo.open(root, temp(), 2 * MiB, git);
    const adds = () => calls.filter((c) => c.args.includes("update-index") && c.args.includes("--add"));
    return { repo, adds };
  }

  it("runs at a low priority while nobody waits for it, and packs its files in parts", async () => {
    const { repo, adds } = await recorded(PACK_PART_FILES + 1);
    await repo.prime();
    expect(adds().map((c) => c.background)).toEqual([true, true]);
  });

  it("runs at normal priority once a snapshot someone waits for is queued behind it", async () => {
    const { repo, adds } = await recorded(PACK_PART_FILES + 1);
    const primed = repo.prime();
    const taken = await repo.take("t");
    await primed;
    expect(adds().map((c) => c.background)).toEqual([false, false]);
    expect((await repo.read(taken.id, [`d0/f${PACK_PART_FILES}.txt`])).get(`d0/f${PACK_PART_FILES}.txt`)!.bytes.toString()).toBe(
      `file ${PACK_PART_FILES}\n`,
    );
  });
});
