/**
 * A buffer's content as an ordered list of segments (one per message, plus a header, the message
 * being streamed and a footer), mirrored exactly in Neovim. Every change is turned into the
 * smallest `nvim_buf_set_lines` edits: a change near the end costs what it changes, not what the
 * buffer holds, so streaming into a 10,000-message thread costs what it does into an empty one.
 */

import { replaceRange, replaceTail } from "../util/arrays.ts";

/** [start, end, replacement] in buffer lines, 0-based, end exclusive. */
export type Edit = [number, number, string[]];

export class Document {
  private segments: string[][];
  private total: number;
  private edits: Edit[] = [];

  constructor(initial: string[][]) {
    this.segments = initial;
    this.total = initial.reduce((n, s) => n + s.length, 0);
  }

  get count(): number {
    return this.segments.length;
  }

  get lineCount(): number {
    return this.total;
  }

  lines(i: number): readonly string[] {
    return this.segments[i]!;
  }

  /** First line of segment i. Counted from the nearer end: O(1) for the tail segments. */
  start(i: number): number {
    if (i > this.segments.length / 2) {
      let line = this.total;
      for (let s = this.segments.length - 1; s >= i; s--) line -= this.segments[s]!.length;
      return line;
    }
    let line = 0;
    for (let s = 0; s < i; s++) line += this.segments[s]!.length;
    return line;
  }

  /** The segment holding `line`, and the line's offset in it. */
  locate(line: number): { segment: number; offset: number } | null {
    let start = 0;
    for (let s = 0; s < this.segments.length; s++) {
      const len = this.segments[s]!.length;
      if (line < start + len) return { segment: s, offset: line - start };
      start += len;
    }
    return null;
  }

  /** Replaces `count` segments at `from` with `replacement`; writes only the lines that differ. */
  splice(from: number, count: number, replacement: string[][]): void {
    const start = this.start(from);
    const old = this.segments.slice(from, from + count).flat();
    const next = replacement.flat();
    replaceRange(this.segments, from, count, replacement);
    this.total += next.length - old.length;
    this.write(start, old, next);
  }

  /** Replaces the lines of segment i from line `offset` on (the streaming tail). */
  patchTail(i: number, offset: number, tail: string[]): void {
    const seg = this.segments[i]!;
    const old = seg.slice(offset);
    replaceTail(seg, offset, tail);
    this.total += tail.length - old.length;
    this.write(this.start(i) + offset, old, tail);
  }

  private write(start: number, old: readonly string[], next: readonly string[]): void {
    let head = 0;
    while (head < old.length && head < next.length && old[head] === next[head]) head++;
    let tail = 0;
    while (tail < old.length - head && tail < next.length - head && old[old.length - 1 - tail] === next[next.length - 1 - tail]) tail++;
    if (head === old.length && head === next.length) return;
    this.edits.push([start + head, start + old.length - tail, next.slice(head, next.length - tail)]);
  }

  /** The edits made since the last call, in order. */
  takeEdits(): Edit[] {
    const e = this.edits;
    this.edits = [];
    return e;
  }

  /** The whole content (tests and first render). */
  text(): string[] {
    return this.segments.flat();
  }
}
