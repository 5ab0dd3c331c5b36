/**
 * Undoing one hunk of a turn's change in a file that changed since, without running git where
 * the answer is certain: when everything that changed since the turn lies wholly before the
 * hunk's lines (its context with them) or wholly after, the three-way merge can only be the file
 * now with the hunk's lines taken back, shifted by what came before. Otherwise (changes on both
 * sides, or in the hunk) null: `git merge-file` decides, conflicts and all (reviews.ts).
 */
import { type HunkRange, linesOf } from "../worktree/hunks.ts";

/** `ours` with the turn's lines of range `h` (in `after`, the file as the turn left it) replaced by `back`; null: not certain here. */
export function undoApart(after: Buffer, ours: Buffer, h: HunkRange, back: readonly Buffer[]): Buffer | null {
  const [a, o] = [linesOf(after), linesOf(ours)];
  let same = 0;
  const most = Math.min(a.length, o.length);
  while (same < most && a[same]!.equals(o[same]!)) same++;
  let tail = 0;
  while (tail < most - same && a[a.length - 1 - tail]!.equals(o[o.length - 1 - tail]!)) tail++;
  const [start, end] = [h.newStart, h.newStart + h.newCount];
  // What changed since is lines [same, a.length - tail) of `after`.
  if (a.length - tail <= start) {
    const shift = o.length - a.length;
    return Buffer.concat([...o.slice(0, start + shift), ...back, ...o.slice(end + shift)]);
  }
  if (same >= end) return Buffer.concat([...o.slice(0, start), ...back, ...o.slice(end)]);
  return null;
}
