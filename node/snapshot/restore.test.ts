/**
 * Writing a snapshot's files back (a restore, a merge) on a disk that fills: each file is replaced
 * whole or not at all, never left empty or cut, and no temporary file stays behind.
 */

import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { gitProject } from "../../test/helpers/git-project.ts";
import { tempFolders } from "../../test/helpers/temp-folders.ts";
import { mountTmpfs, type Tmpfs, tmpfsRefused } from "../../test/helpers/tmpfs.ts";
import { localGit } from "../tools/local-git.ts";
import { snapshotsOn } from "./code.ts";
import { SnapshotRepo } from "./repo.ts";
import { writeFiles } from "./restore.ts";

const temp = tempFolders("tine-restore-");
let disk: Tmpfs | null = null;
afterEach(() => {
  disk?.close();
  disk = null;
});

describe.skipIf(tmpfsRefused !== null)(`writing files back on a full disk${tmpfsRefused ? ` (skipped: ${tmpfsRefused})` : ""}`, () => {
  it("a file the disk cannot take is left as it was, whole, and no temporary file stays", async () => {
    disk = mountTmpfs("1m");
    const root = join(disk.dir, "project");
    // Bigger than a page: it cannot go in the slack of the file's last one.
    const stored = `${"stored line\n".repeat(4000)}`;
    gitProject(root, { "big.txt": stored, "small.txt": "small\n" });
    const repo = await SnapshotRepo.open(root, temp(), 2 * 1024 * 1024, localGit);
    const snapshot = await repo.take("t");
    const now = `${"edited by hand\n".repeat(300)}`;
    writeFileSync(join(root, "big.txt"), now);
    disk.fill();
    await expect(
      writeFiles(
        snapshotsOn(async () => repo, 30),
        root,
        snapshot.id,
        ["big.txt"],
      ),
    ).rejects.toThrow(/ENOSPC/);
    expect(readFileSync(join(root, "big.txt"), "utf8")).toBe(now);
    expect(readdirSync(root).filter((n) => n.startsWith(".tine-"))).toEqual([]);
  });
});
