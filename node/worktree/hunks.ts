/**
 * One hunk of a fork's diff of a file, on its own: the file as the fork point had it with only
 * that hunk's change made (the "theirs" of a graft of that hunk, graft.ts). Hunks are numbered as
 * the fork's diff of the file shows them (`CodeSnapshots.fileDiff`, 3 lines of context), from 1.
 * Worked on bytes, line by line, so a file's encoding and its last line's newline (or none) are kept.
 */

/** Where a hunk sits: its lines in the old file and in the new one (0-based start, count). */
export type HunkRange = { readonly oldStart: number; readonly oldCount: number; readonly newStart: number; readonly newCount: number };

/** A hunk as the compare view lists it and graft numbers it: where it sits, its header, its lines added and removed. */
export type Hunk = { readonly range: HunkRange; readonly header: string; readonly added: number; readonly removed: number };

const HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/** The hunks of a unified diff (`fileDiff`'s lines), in file order: hunk n (from 1) is the n-th here. */
export function diffHunks(diff: readonly string[]): Hunk[] {
  const hunks: { range: HunkRange; header: string; added: number; removed: number }[] = [];
  for (const line of diff) {
    const m = HEADER.exec(line);
    if (m) {
      const [oldCount, newCount] = [m[2] === undefined ? 1 : Number(m[2]), m[4] === undefined ? 1 : Number(m[4])];
      // A count of 0 names the line before the (empty) range, not its first line.
      const start = (at: string, count: number) => (count === 0 ? Number(at) : Number(at) - 1);
      const range = { oldStart: start(m[1]!, oldCount), oldCount, newStart: start(m[3]!, newCount), newCount };
      hunks.push({ range, header: m[0], added: 0, removed: 0 });
      continue;
    }
    // Before the first header are the file's header lines (`--- a/…`, `+++ b/…`): not counted.
    const at = hunks.at(-1);
    if (at && line.startsWith("+")) at.added++;
    else if (at && line.startsWith("-")) at.removed++;
  }
  return hunks;
}

/** `bytes` as its lines, each with its newline (the last one may have none). */
export function linesOf(bytes: Buffer): Buffer[] {
  const lines: Buffer[] = [];
  let from = 0;
  for (let at = bytes.indexOf(10); at >= 0; at = bytes.indexOf(10, from)) {
    lines.push(bytes.subarray(from, at + 1));
    from = at + 1;
  }
  if (from < bytes.length) lines.push(bytes.subarray(from));
  return lines;
}

/**
 * The byte offsets at which lines `from` and `to` (0-based, `from` ≤ `to`) of `bytes` begin, as
 * `linesOf` counts them (`bytes.length` for a line past the last): a hunk's bytes found without
 * cutting a 10,000-line file into lines.
 */
export function lineOffsets(bytes: Buffer, from: number, to: number): [number, number] {
  let at = 0;
  let line = 0;
  const upTo = (until: number) => {
    for (; line < until && at < bytes.length; line++) {
      const nl = bytes.indexOf(10, at);
      at = nl < 0 ? bytes.length : nl + 1;
    }
    return at;
  };
  const start = upTo(from);
  return [start, upTo(to)];
}

/** `base` with hunk `h` of its diff to `theirs` made, and no other change of that diff. */
export function withHunk(base: Buffer, theirs: Buffer, h: HunkRange): Buffer {
  const [o0, o1] = lineOffsets(base, h.oldStart, h.oldStart + h.oldCount);
  const [n0, n1] = lineOffsets(theirs, h.newStart, h.newStart + h.newCount);
  return Buffer.concat([base.subarray(0, o0), theirs.subarray(n0, n1), base.subarray(o1)]);
}
