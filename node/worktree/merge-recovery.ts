/**
 * Undoing a promote's merge that did not finish: its files go back to snapshot `ours` (the parent's
 * files just before it), those already as they were left alone, and the temporary files a write cut
 * off may have left are removed. The merge failing under way (a disk that fills) undoes it at once;
 * a host killed under way leaves its record (merge-record.ts), and the next host undoes it when it
 * starts and tells the user. The fork ends only once its merge is written whole (fork-code.ts):
 * undone, it is as it was before the promote, and can be promoted again.
 */
import { lstatSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { CodeSnapshots, SnapshotId, StoredFile } from "../snapshot/code.ts";
import { writeStored } from "../snapshot/restore.ts";
import { alive } from "../store/lock.ts";
import { tempFor } from "../util/atomic-write.ts";
import { mergeOver, mergesUnderWay } from "./merge-record.ts";
import type { Workspaces } from "./workspaces.ts";
import { worktreesIn } from "./worktree.ts";

/** The first few of `paths`, and how many more. */
function listed(paths: readonly string[]): string {
  const more = paths.length > 10 ? ` and ${paths.length - 10} more` : "";
  return `${paths.slice(0, 10).join(", ")}${more}`;
}

/** Whether `abs` is already what `file` says (null: no file there). */
function alreadyIs(abs: string, file: StoredFile | null): boolean {
  let info: ReturnType<typeof lstatSync>;
  try {
    info = lstatSync(abs);
  } catch {
    return file === null;
  }
  if (!file) return false;
  if (file.mode === "120000") return info.isSymbolicLink() && readlinkSync(abs) === file.bytes.toString("utf8");
  const executable = (info.mode & 0o100) !== 0;
  return info.isFile() && executable === (file.mode === "100755") && readFileSync(abs).equals(file.bytes);
}

/** Puts `paths` of `root` back as snapshot `ours` holds them; returns how many had to be written. */
export async function rollBackMerge(snapshots: CodeSnapshots, root: string, ours: SnapshotId, paths: readonly string[]): Promise<number> {
  const before = await snapshots.read(ours, paths);
  let written = 0;
  for (const path of paths) {
    const abs = join(root, path);
    rmSync(tempFor(abs), { force: true });
    const file = before.get(path) ?? null;
    if (alreadyIs(abs, file)) continue;
    writeStored(root, path, file);
    written++;
  }
  return written;
}

/**
 * The merges a host that is gone left recorded in this project (none while snapshots are off):
 * each is rolled back and the user told; a record naming a folder that is not this project's or
 * one of its worktrees is dropped unread. A live host's merge (another Neovim's) is not touched.
 */
export async function recoverMerges(workspaces: Workspaces, tell: (text: string, error: boolean) => void): Promise<void> {
  // Every merge is from a worktree, kept until its merge is over: without one, the store is not even opened.
  const worktrees = worktreesIn(workspaces.folder()).map((w) => w.path);
  if (!worktrees.length) return;
  const dir = await workspaces.mergeRecords();
  if (!dir) return;
  const ours = new Set([workspaces.project.root, ...worktrees]);
  for (const merge of mergesUnderWay(dir)) {
    if (merge.pid !== process.pid && alive(merge.pid)) continue;
    const name = `the promote of "${merge.forkTitle}" into "${merge.parentTitle}"`;
    if (!ours.has(merge.into)) {
      mergeOver(dir, merge.fork);
      continue;
    }
    const snapshots = workspaces.project.snapshots;
    try {
      if (!(await snapshots.has(merge.ours))) throw new Error("the snapshot of the files before it is gone");
      const n = await rollBackMerge(snapshots, merge.into, merge.ours, merge.paths);
      mergeOver(dir, merge.fork);
      tell(
        `tine: ${name} was cut off during its merge (tine stopped): rolled back, ${n} of its ${merge.paths.length} files put back as they were in ${merge.into}; "${merge.forkTitle}" is as it was before it: promote it again`,
        false,
      );
    } catch (error) {
      tell(
        `tine: ${name} was cut off during its merge (tine stopped) and could not be rolled back: ${(error as Error).message}. Its files in ${merge.into}: ${listed(merge.paths)}`,
        true,
      );
    }
  }
}
