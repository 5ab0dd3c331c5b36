/**
 * The three-way merge that brings a worktree fork's work into its parent's tree: base is the
 * snapshot at the fork point, ours the parent's files now, theirs the fork's files now (all three
 * snapshots of one store). A file only the fork changed is written as the fork has it; a file both
 * changed is merged line by line (`git merge-file`), conflicts written with markers; what cannot
 * be merged (a binary file, a file deleted on one side and changed on the other) keeps the
 * parent's copy or, where the parent deleted it, takes the fork's, and is named. Nothing of
 * either side is lost: the parent's files before the merge are snapshot `ours`, and the fork's
 * stay in its worktree until the merge is accepted.
 *
 * The merge is worked out whole before a file is written (`planMerge`), so a merge that would not
 * fit on the disk is refused first (`checkMergeRoom`); each file is then replaced whole
 * (`applyMerge`), unless it changed since `ours` was taken (the user, or the parent's agent, wrote
 * it meanwhile): that one is left as it is and named. fork-code.ts records the merge before its
 * first file (merge-record.ts).
 */
import { lstatSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SnapshotId } from "../core/code-marks.ts";
import type { CodeSnapshots, StoredFile } from "../snapshot/code.ts";
import { writeStored } from "../snapshot/restore.ts";
import type { RunGit } from "../tools/git.ts";
import { checkRoom, freeOn } from "../util/disk-space.ts";
import { hashOf, hashOnDisk } from "./file-hash.ts";

/** A place the user must look at: a conflict's first line (1-based) in a file of the parent's tree. */
export type MergeConflict = { readonly path: string; readonly line: number; readonly text: string };

/** How the merge names its sides in conflict markers and messages. */
export type MergeLabels = { readonly ours: string; readonly theirs: string; readonly theirsRoot: string };

/** The snapshots a merge works from. */
export type MergeSides = { readonly base: SnapshotId; readonly ours: SnapshotId; readonly theirs: SnapshotId };

/** Whether a file is merged as bytes, never by lines: a link, or a NUL in its first 8,000 bytes (as git decides). */
export const isBinary = (f: StoredFile) => f.mode === "120000" || f.bytes.subarray(0, 8000).includes(0);

/** What the merge makes of one file of the parent's tree (its bytes and mode, or null: removed), and what it held in `ours`. */
export type MergeWrite = { readonly path: string; readonly file: StoredFile | null; readonly ours: StoredFile | null };

/** A merge worked out and not yet written: every file it writes, in memory, and what it says of them. */
export type MergePlan = {
  readonly writes: readonly MergeWrite[];
  readonly conflicts: readonly MergeConflict[];
  /** Files too big to be recorded (over 2 MiB): left as they are, named. */
  readonly unrecorded: readonly string[];
};

/**
 * Works out the merge of the changes from `sides.base` to `sides.theirs` into `sides.ours` (the
 * files of the parent's tree now), writing nothing: what it needs is known before a file is written.
 * `git`: the parent's environment's (Environment.git), which runs `git merge-file`.
 */
export async function planMerge(snapshots: CodeSnapshots, sides: MergeSides, labels: MergeLabels, git: RunGit): Promise<MergePlan> {
  const unrecorded = new Set([...(await snapshots.skippedIn(sides.base)), ...(await snapshots.skippedIn(sides.theirs))]);
  const theirs = (await snapshots.changes(sides.base, sides.theirs)).map((f) => f.path);
  const unrecordedHere = theirs.filter((p) => unrecorded.has(p));
  const forkChanged = theirs.filter((p) => !unrecorded.has(p));
  const oursChanged = new Set(sides.ours === sides.base ? [] : (await snapshots.changes(sides.base, sides.ours)).map((f) => f.path));
  const clean = forkChanged.filter((p) => !oursChanged.has(p));
  const both = forkChanged.filter((p) => oursChanged.has(p));
  const [fromFork, before] = await Promise.all([snapshots.read(sides.theirs, clean), snapshots.read(sides.ours, clean)]);
  const writes: MergeWrite[] = clean.map((path) => ({ path, file: fromFork.get(path) ?? null, ours: before.get(path) ?? null }));
  const conflicts: MergeConflict[] = [];
  if (both.length) {
    const [b, o, t] = await Promise.all([sides.base, sides.ours, sides.theirs].map((id) => snapshots.read(id, both)));
    for (const path of both) {
      const base = b!.get(path) ?? null;
      const ours = o!.get(path) ?? null;
      const fork = t!.get(path) ?? null;
      if (ours && fork && ours.bytes.equals(fork.bytes)) continue;
      if (!fork) {
        conflicts.push({ path, line: 1, text: "deleted in the fork, changed here: yours kept" });
      } else if (!ours) {
        writes.push({ path, file: fork, ours: null });
        conflicts.push({ path, line: 1, text: "deleted here, changed in the fork: the fork's copy written" });
      } else if (isBinary(ours) || isBinary(fork) || (base && isBinary(base))) {
        conflicts.push({ path, line: 1, text: `both changed it (binary): yours kept; the fork's is ${join(labels.theirsRoot, path)}` });
      } else {
        const merged = await mergeFile(git, ours.bytes, base?.bytes ?? Buffer.alloc(0), fork.bytes, labels);
        // The fork's change is in ours already (a graft of it, and more since): nothing to write.
        if (!merged.conflictLines.length && merged.bytes.equals(ours.bytes)) continue;
        writes.push({ path, file: { mode: ours.mode, bytes: merged.bytes }, ours });
        for (const line of merged.conflictLines) conflicts.push({ path, line, text: "conflict: both changed these lines" });
      }
    }
  }
  return { writes, conflicts, unrecorded: unrecordedHere };
}

/**
 * Refuses ("no space left on …") a merge whose files do not fit on the disk of `root` now: what
 * the files grow by, and room for the largest one's temporary copy (each file is replaced whole).
 */
export function checkMergeRoom(root: string, writes: readonly MergeWrite[]): void {
  const { block } = freeOn(root);
  const blocks = (n: number) => Math.ceil(n / block) * block;
  let grows = 0;
  let largest = 0;
  let newFiles = 0;
  for (const w of writes) {
    if (!w.file) continue;
    const size = blocks(w.file.bytes.length);
    const now = sizeOrNull(join(root, w.path));
    if (now === null) newFiles++;
    grows += Math.max(0, size - blocks(now ?? 0));
    largest = Math.max(largest, size);
  }
  checkRoom(root, grows + largest, newFiles + 1);
}

function sizeOrNull(path: string): number | null {
  try {
    return lstatSync(path).size;
  } catch {
    return null;
  }
}

/**
 * Writes the merge's files into `root`, each whole or not at all (restore.ts `writeStored`), except
 * those no longer as `ours` held them (changed while the merge was worked out or written): those are
 * left alone and returned. `progress`: told how many files are done after each one (a test holds
 * the merge there).
 */
export async function applyMerge(
  root: string,
  writes: readonly MergeWrite[],
  progress?: (count: number) => Promise<void>,
): Promise<{ readonly changedMeanwhile: readonly string[] }> {
  const changedMeanwhile: string[] = [];
  for (const [i, w] of writes.entries()) {
    // Checked just before the file is replaced: what an editor or an agent wrote there is never overwritten.
    if (hashOnDisk(join(root, w.path)) === hashOf(w.ours)) writeStored(root, w.path, w.file);
    else changedMeanwhile.push(w.path);
    await progress?.(i + 1);
  }
  return { changedMeanwhile };
}

/**
 * `git merge-file` on three texts: the result, with conflict markers where both changed the same
 * lines, and those lines (1-based). A promote's merge and a graft (graft.ts) both merge through it.
 */
export async function mergeFile(
  git: RunGit,
  ours: Buffer,
  base: Buffer,
  theirs: Buffer,
  labels: MergeLabels,
): Promise<{ bytes: Buffer; conflictLines: number[] }> {
  const dir = mkdtempSync(join(tmpdir(), "tine-merge-"));
  try {
    const files = ["ours", "base", "theirs"].map((n) => join(dir, n));
    for (const [i, bytes] of [ours, base, theirs].entries()) writeFileSync(files[i]!, bytes);
    // Exit code: the number of conflicts (at most 127); more means git failed.
    const okCodes = Array.from({ length: 127 }, (_, i) => i + 1);
    const out = await git(["merge-file", "-p", "-L", labels.ours, "-L", "fork point", "-L", labels.theirs, ...files], {
      cwd: dir,
      okCodes,
    });
    const conflictLines: number[] = [];
    if (out.code > 0)
      for (const [i, l] of out.stdout.toString("utf8").split("\n").entries()) if (l.startsWith("<<<<<<< ")) conflictLines.push(i + 1);
    return { bytes: out.stdout, conflictLines };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The lines of `path` still holding a conflict marker (the user has not resolved them yet). */
export function markersLeft(text: string): number {
  return text.split("\n").filter((l) => l.startsWith("<<<<<<< ") || l.startsWith(">>>>>>> ")).length;
}

/**
 * Why `path` (its text here, `ours`) is not merged into: it still holds conflict markers (an
 * earlier graft's or promote's), which a merge would nest in new ones. Null: it holds none.
 */
export function markersRefusal(path: string, ours: Buffer, then: "graft" | "promote"): string | null {
  const left = markersLeft(ours.toString("utf8"));
  if (!left) return null;
  return `${path} here still holds conflict markers (${left} line${left === 1 ? "" : "s"}) from an earlier graft or promote: resolve them first (or :Tine restore undo puts the file back as it was before that ${then === "graft" ? "graft" : "merge"}), then ${then} again`;
}

/** Why a planned merge may not be written: a file it merges into still holds markers (they would nest in new ones); null when none does. */
export function planMarkersRefusal(plan: MergePlan): string | null {
  for (const w of plan.writes) {
    const refused = w.ours && w.file && !w.file.bytes.equals(w.ours.bytes) ? markersRefusal(w.path, w.ours.bytes, "promote") : null;
    if (refused) return refused;
  }
  return null;
}
