/**
 * Undoing a promote's merge that did not finish: the files it wrote go back to snapshot `ours`
 * (the parent's files just before it), and the temporary files a write cut off may have left are
 * removed. Only a file still as the merge made it is put back: one still as it was needs nothing,
 * and one changed since (the user fixed it in Neovim before tine came back, or wrote it while the
 * merge ran) is left alone and named. The files are snapshotted first, so `:Tine restore undo`
 * puts back what the rollback replaced.
 *
 * The merge failing under way (a disk that fills) undoes it at once; a host killed under way leaves
 * its record (merge-record.ts), and the next host undoes it when it starts and tells the user. The
 * fork ends only once its merge is written whole (fork-code.ts): undone, it is as it was before
 * the promote, and can be promoted again.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { SnapshotId } from "../core/code-marks.ts";
import type { CodeSnapshots } from "../snapshot/code.ts";
import { writeStored } from "../snapshot/restore.ts";
import { alive } from "../store/lock.ts";
import { tempFor } from "../util/atomic-write.ts";
import { hashOnDisk } from "./file-hash.ts";
import { type MergedFile, mergeOver, mergesUnderWay } from "./merge-record.ts";
import type { Workspaces } from "./workspaces.ts";
import { setPendingMerge, worktreesIn } from "./worktree.ts";

/** The first few of `paths`, and how many more. */
export function listed(paths: readonly string[]): string {
  const more = paths.length > 10 ? ` and ${paths.length - 10} more` : "";
  return `${paths.slice(0, 10).join(", ")}${more}`;
}

/** A folder a merge wrote into, as a rollback needs it: where, and its snapshots (of that folder). */
export type MergedInto = { readonly root: string; readonly snapshots: CodeSnapshots };

/**
 * How a rollback went: the files put back, those left alone as changed since the merge wrote them,
 * and the snapshot of the files before it (null: nothing was written, or it could not be taken).
 */
export type RolledBack = {
  readonly written: readonly string[];
  readonly changedSince: readonly string[];
  readonly safety: SnapshotId | null;
};

/** A rollback's files put back can be put back as they were by `:Tine restore undo`. */
export type KeepUndo = (into: MergedInto, safety: SnapshotId, paths: readonly string[]) => Promise<void>;

/** Puts the files of a merge into `into` back as snapshot `ours` holds them: those still as the merge made them. */
export async function rollBackMerge(into: MergedInto, ours: SnapshotId, files: readonly MergedFile[]): Promise<RolledBack> {
  const merged = new Map<string, MergedFile>();
  const changedSince: string[] = [];
  for (const f of files) {
    const abs = join(into.root, f.path);
    rmSync(tempFor(abs), { force: true });
    const now = hashOnDisk(abs);
    if (now === f.ours) continue;
    if (now === f.merged) merged.set(f.path, f);
    else changedSince.push(f.path);
  }
  if (!merged.size) return { written: [], changedSince, safety: null };
  // Only the merge's own output is replaced, and the fork keeps it too: a safety copy that cannot be taken (a full disk) stops nothing.
  const safety = (await into.snapshots.take("undo").catch(() => null))?.id ?? null;
  const before = await into.snapshots.read(ours, [...merged.keys()]);
  const written: string[] = [];
  for (const f of merged.values()) {
    // Checked again just before the write: an edit made since the first look is not overwritten either.
    if (hashOnDisk(join(into.root, f.path)) !== f.merged) {
      changedSince.push(f.path);
      continue;
    }
    writeStored(into.root, f.path, before.get(f.path) ?? null);
    written.push(f.path);
  }
  return { written, changedSince, safety };
}

/** What the user is told of a rollback's files left alone ("" when none). */
export function leftAlone(rolled: RolledBack): string {
  return rolled.changedSince.length ? `; changed since the merge wrote them, left alone: ${listed(rolled.changedSince)}` : "";
}

/**
 * The merges a host that is gone left recorded in this project (none while snapshots are off):
 * each is rolled back and the user told; a record naming a folder that is not this project's or
 * one of its worktrees is dropped unread. A live host's merge (another Neovim's) is not touched.
 */
export async function recoverMerges(
  workspaces: Workspaces,
  tell: (text: string, error: boolean) => void,
  keepUndo: KeepUndo,
): Promise<void> {
  // Every merge is from a worktree, kept until its merge is over: without one, the store is not even opened.
  const worktrees = worktreesIn(workspaces.folder());
  if (!worktrees.length) return;
  const dir = await workspaces.mergeRecords();
  if (!dir) return;
  for (const merge of mergesUnderWay(dir)) {
    if (merge.pid !== process.pid && alive(merge.pid)) continue;
    const name = `the promote of "${merge.forkTitle}" into "${merge.parentTitle}"`;
    const into = workspaces.atFolder(merge.into);
    if (!into) {
      mergeOver(dir, merge.fork);
      continue;
    }
    try {
      if (!(await into.snapshots.has(merge.ours))) throw new Error("the snapshot of the files before it is gone");
      const rolled = await rollBackMerge(into, merge.ours, merge.files);
      if (rolled.safety && rolled.written.length) await keepUndo(into, rolled.safety, rolled.written);
      mergeOver(dir, merge.fork);
      // A conflict note of the merge undone (an older tine wrote it before the merge's end) would ask for a :Tine merge done of nothing.
      for (const w of worktrees) if (w.thread === merge.fork && w.merge?.into === merge.into) setPendingMerge(w.path, null);
      const undo = rolled.safety && rolled.written.length ? " (:Tine restore undo puts them back as the merge left them)" : "";
      tell(
        `tine: ${name} was cut off during its merge (tine stopped): rolled back, ${rolled.written.length} of its ${merge.files.length} files put back as they were in ${merge.into}${undo}${leftAlone(rolled)}; "${merge.forkTitle}" is as it was before it: promote it again`,
        false,
      );
    } catch (error) {
      tell(
        `tine: ${name} was cut off during its merge (tine stopped) and could not be rolled back: ${(error as Error).message}. Its files in ${merge.into}: ${listed(merge.files.map((f) => f.path))}`,
        true,
      );
    }
  }
}
