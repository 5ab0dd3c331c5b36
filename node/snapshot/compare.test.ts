import { describe, expect, it } from "vitest";
import { gitProject, writeFiles } from "../../test/helpers/git-project.ts";
import { tempFolders } from "../../test/helpers/temp-folders.ts";
import { localGit } from "../tools/local-git.ts";
import { gitSnapshots, snapshotsOff } from "./code.ts";
import { compareBranches, fileInBoth } from "./compare.ts";

const folder = tempFolders("tine-compare-");

function snapshots() {
  const root = folder();
  gitProject(root, { "a.txt": "one\n" });
  return {
    root,
    snapshots: gitSnapshots({ enabled: true, cwd: root, dataDir: folder(), maxFileBytes: 1 << 20, git: localGit, keepDays: 30 }),
  };
}

describe(":Tine diff's code", () => {
  it("lists the files from the second branch's snapshot to the first's, and reads one as both hold it", async () => {
    const { root, snapshots: s } = snapshots();
    const b = (await s.take("b"))!.id;
    writeFiles(root, { "a.txt": "one\ntwo\n", "c.txt": "c\n" });
    const a = (await s.take("a"))!.id;
    const code = await compareBranches(s, { title: "A", snapshot: a }, { title: "B", snapshot: b });
    expect(code).toEqual({
      kind: "files",
      a,
      b,
      files: [
        { path: "a.txt", status: "modified", added: 1, removed: 0 },
        { path: "c.txt", status: "added", added: 1, removed: 0 },
      ],
    });
    expect(await fileInBoth(s, a, b, "c.txt")).toEqual({ a: "c\n", b: null });
  });

  it("says why when a branch has no snapshot or it is gone, and nothing where snapshots are off", async () => {
    const { snapshots: s } = snapshots();
    const a = (await s.take("a"))!.id;
    expect(await compareBranches(s, { title: "A", snapshot: a }, { title: "B", snapshot: null })).toEqual({
      kind: "missing",
      why: "B has no code snapshot (none of its tools ran): files not compared",
    });
    const gone = "0".repeat(40);
    expect(await compareBranches(s, { title: "A", snapshot: a }, { title: "B", snapshot: gone })).toMatchObject({
      kind: "missing",
      why: expect.stringMatching(/snapshot of B is gone/),
    });
    expect(await compareBranches(snapshotsOff(), { title: "A", snapshot: a }, { title: "B", snapshot: a })).toEqual({ kind: "off" });
  });
});
