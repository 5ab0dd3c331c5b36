/**
 * Undoing one hunk of a turn's change in a file that changed since: the three-way merge every
 * merge of tine's is (worktree/merge.ts `mergeFile`), base the file as the turn left it, ours the
 * file now, theirs the turn's file with only that hunk taken back, conflicts marked. Without
 * running git where the answer is certain (`undoApart`): when everything that changed since the
 * turn lies wholly before the hunk's lines (its context with them) or wholly after, the merge can
 * only be the file now with the hunk's lines taken back, shifted by what came before (checked
 * against git merge-file in review.test.ts; a git process is most of an undo's time).
 *
 * Worked on bytes, not on lines cut out one by one: the lines both files begin and end with are
 * found by a binary search of native compares, so a 10,000-line file costs a few milliseconds.
 */
import type { RunGit } from "../tools/git.ts";
import { type HunkRange, lineOffsets, withHunk } from "../worktree/hunks.ts";
import { type MergeLabels, mergeFile } from "../worktree/merge.ts";
import { reversed } from "./turn-hunks.ts";

/** The sides of an undo: the file as the turn found it and left it, and as it is now. */
export type UndoSides = { readonly before: Buffer; readonly after: Buffer; readonly ours: Buffer };

/** Hunk `range` of the turn's diff taken back in the file now: the merge's bytes and its conflicts' lines (1-based). */
export async function undoHunk(
  git: RunGit,
  { before, after, ours }: UndoSides,
  range: HunkRange,
  labels: MergeLabels,
): Promise<{ bytes: Buffer; conflictLines: number[] }> {
  const back = before.subarray(...lineOffsets(before, range.oldStart, range.oldStart + range.oldCount));
  const apart = undoApart(after, ours, range, back);
  if (apart) return { bytes: apart, conflictLines: [] };
  return mergeFile(git, ours, after, withHunk(after, before, reversed(range)), labels);
}

/** How many bytes `a` and `b` share at their start (`fromEnd`: at their end), at most `most`. */
function sharedBytes(a: Buffer, b: Buffer, most: number, fromEnd: boolean): number {
  const same = (n: number) =>
    fromEnd ? a.compare(b, b.length - n, b.length, a.length - n, a.length) === 0 : a.compare(b, 0, n, 0, n) === 0;
  let [lo, hi] = [0, most];
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (same(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

const lineStartAt = (bytes: Buffer, at: number) => at === 0 || bytes[at - 1] === 10;

/** `ours` with the turn's lines of range `h` (in `after`, the file as the turn left it) replaced by `back`; null: not certain here. */
export function undoApart(after: Buffer, ours: Buffer, h: HunkRange, back: Buffer): Buffer | null {
  const shift = ours.length - after.length;
  const common = sharedBytes(after, ours, Math.min(after.length, ours.length), false);
  // Where the first line that differs begins (in both): the lines before it end in the bytes both begin with.
  const identical = common === after.length && common === ours.length;
  const changedFrom = identical ? after.length : common === 0 ? 0 : after.lastIndexOf(10, common - 1) + 1;
  // Where the lines both end with begin in `after` (none of them before `changedFrom`): at a line's start in both.
  let changedTo = after.length - sharedBytes(after, ours, Math.min(after.length, ours.length) - changedFrom, true);
  if (!lineStartAt(after, changedTo) || !lineStartAt(ours, changedTo + shift)) {
    const nl = after.indexOf(10, changedTo);
    changedTo = nl < 0 ? after.length : nl + 1;
  }
  // What changed since is bytes [changedFrom, changedTo) of `after`.
  const [start, end] = lineOffsets(after, h.newStart, h.newStart + h.newCount);
  if (changedTo <= start) return Buffer.concat([ours.subarray(0, start + shift), back, ours.subarray(end + shift)]);
  if (changedFrom >= end) return Buffer.concat([ours.subarray(0, start), back, ours.subarray(end)]);
  return null;
}
