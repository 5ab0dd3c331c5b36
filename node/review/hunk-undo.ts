/**
 * Undoing one hunk of a turn's change in a file that changed since, without running git where
 * the answer is certain: when everything that changed since the turn lies wholly before the
 * hunk's lines (its context with them) or wholly after, the three-way merge can only be the file
 * now with the hunk's lines taken back, shifted by what came before. Otherwise (changes on both
 * sides, or in the hunk) null: `git merge-file` decides, conflicts and all (reviews.ts).
 *
 * Worked on bytes, not on lines cut out one by one: the lines both files begin and end with are
 * found by a binary search of native compares, so a 10,000-line file costs a few milliseconds.
 */
import { type HunkRange, lineOffsets } from "../worktree/hunks.ts";

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
