/**
 * The code side of `:Tine diff`: which state of each branch's files is compared (`branchStates`),
 * the files that differ (with +/−, from the second branch to the first), and one such file as each
 * side holds it.
 */
import { existsSync } from "node:fs";
import type { FileChange, SnapshotId } from "../core/code-marks.ts";
import type { CodeSnapshots } from "./code.ts";

/** A branch as `:Tine diff` finds it: its latest snapshot, and the folder it works in (with that folder's snapshots). */
export type Branch = {
  readonly id: string;
  readonly title: string;
  readonly latest: SnapshotId | null;
  readonly folder: { readonly root: string; readonly snapshots: CodeSnapshots };
};

/**
 * The state of each branch's files that is compared: its folder as it is now (what the user sees
 * there, an edit no tool made included), taken as a snapshot kept for the branch; its latest
 * snapshot where its folder is gone (a fork whose worktree was removed). Two branches in one
 * folder (a fork sharing its parent's) cannot both be read now (they would be the same files): the
 * second (the parent, by default) is, the first is read by its latest snapshot.
 */
export async function branchStates(a: Branch, b: Branch): Promise<[BranchSnapshot, BranchSnapshot]> {
  const state = async (branch: Branch, now: boolean): Promise<BranchSnapshot> => {
    const taken = now && existsSync(branch.folder.root) ? await branch.folder.snapshots.take(branch.id) : null;
    return { title: branch.title, snapshot: taken?.id ?? branch.latest };
  };
  return [await state(a, a.folder.root !== b.folder.root), await state(b, true)];
}

/** One branch as the comparison sees it: its title, and its latest snapshot (null: none of its tools ever ran). */
export type BranchSnapshot = { readonly title: string; readonly snapshot: SnapshotId | null };

export type BranchCode =
  /** Snapshots are off here (`snapshots = false`, no git): nothing is said of the code. */
  | { readonly kind: "off" }
  /** A branch has no snapshot to compare (or it was dropped): why. */
  | { readonly kind: "missing"; readonly why: string }
  /** The files that differ: + lines only `a` has, − lines only `b` has. */
  | { readonly kind: "files"; readonly a: SnapshotId; readonly b: SnapshotId; readonly files: readonly FileChange[] };

export async function compareBranches(snapshots: CodeSnapshots, a: BranchSnapshot, b: BranchSnapshot): Promise<BranchCode> {
  if ((await snapshots.root()) === null) return { kind: "off" };
  const none = [a, b].filter((s) => s.snapshot === null);
  if (none.length === 2) return { kind: "missing", why: "neither branch has a code snapshot (no tool of theirs ran): files not compared" };
  if (none.length === 1)
    return { kind: "missing", why: `${none[0]!.title} has no code snapshot (none of its tools ran): files not compared` };
  for (const side of [a, b])
    if (!(await snapshots.has(side.snapshot!)))
      return { kind: "missing", why: `the snapshot of ${side.title} is gone (older than snapshot_keep_days): files not compared` };
  const files = a.snapshot === b.snapshot ? [] : await snapshots.changes(b.snapshot!, a.snapshot!);
  return { kind: "files", a: a.snapshot!, b: b.snapshot!, files };
}

/** File `path` as snapshots `a` and `b` hold it (null: that one holds none). */
export async function fileInBoth(
  snapshots: CodeSnapshots,
  a: SnapshotId,
  b: SnapshotId,
  path: string,
): Promise<{ a: string | null; b: string | null }> {
  const text = async (id: SnapshotId) => (await snapshots.read(id, [path])).get(path)?.bytes.toString("utf8") ?? null;
  return { a: await text(a), b: await text(b) };
}
