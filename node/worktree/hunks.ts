/**
 * One hunk of a fork's diff of a file, on its own: the file as the fork point had it with only
 * that hunk's change made (the "theirs" of a graft of that hunk, graft.ts). Hunks are numbered as
 * the fork's diff of the file shows them (`CodeSnapshots.fileDiff`, 3 lines of context), from 1.
 * Worked on bytes, line by line, so a file's encoding and its last line's newline (or none) are kept.
 */

/** Where a hunk sits: its lines in the old file and in the new one (0-based start, count). */
export type HunkRange = { readonly oldStart: number; readonly oldCount: number; readonly newStart: number; readonly newCount: number };

const HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/** The hunks of a unified diff (`fileDiff`'s lines), in file order. */
export function hunkRanges(diff: readonly string[]): HunkRange[] {
  return diff.flatMap((line) => {
    const m = HEADER.exec(line);
    if (!m) return [];
    const [oldCount, newCount] = [m[2] === undefined ? 1 : Number(m[2]), m[4] === undefined ? 1 : Number(m[4])];
    // A count of 0 names the line before the (empty) range, not its first line.
    const start = (at: string, count: number) => (count === 0 ? Number(at) : Number(at) - 1);
    return [{ oldStart: start(m[1]!, oldCount), oldCount, newStart: start(m[3]!, newCount), newCount }];
  });
}

/** `bytes` as its lines, each with its newline (the last one may have none). */
function linesOf(bytes: Buffer): Buffer[] {
  const lines: Buffer[] = [];
  let from = 0;
  for (let at = bytes.indexOf(10); at >= 0; at = bytes.indexOf(10, from)) {
    lines.push(bytes.subarray(from, at + 1));
    from = at + 1;
  }
  if (from < bytes.length) lines.push(bytes.subarray(from));
  return lines;
}

/** `base` with hunk `h` of its diff to `theirs` made, and no other change of that diff. */
export function withHunk(base: Buffer, theirs: Buffer, h: HunkRange): Buffer {
  const [old, now] = [linesOf(base), linesOf(theirs)];
  return Buffer.concat([
    ...old.slice(0, h.oldStart),
    ...now.slice(h.newStart, h.newStart + h.newCount),
    ...old.slice(h.oldStart + h.oldCount),
  ]);
}
