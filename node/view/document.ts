/**
 * A buffer's content as an ordered list of segments (one per message, plus a header, the message
 * being streamed and a footer), mirrored exactly in Neovim. Every change is turned into the
 * smallest `nvim_buf_set_lines` edits: a change near the end costs what it changes, not what the
 * buffer holds, so streaming into a 10,000-message thread costs what it does into an empty one.
 * A segment of a history entry is not held as lines but made again when needed (RemadeLines).
 */

import { replaceRange, replaceTail } from "../util/arrays.ts";

/** [start, end, replacement] in buffer lines, 0-based, end exclusive. */
export type Edit = [number, number, string[]];

/**
 * Lines the document does not hold but can have made again, the same, when it needs them (to
 * tell what an edit changes): a rendered history entry, whose lines would cost four times its
 * text (a 10 MB reply's million lines are 40 MB of strings). Those last made are kept until the
 * garbage collector wants the room: made again only after that.
 */
export class RemadeLines {
  private last: WeakRef<readonly string[]>;

  constructor(
    lines: readonly string[],
    private readonly make: () => readonly string[],
  ) {
    this.length = lines.length;
    this.last = new WeakRef(lines);
  }

  readonly length: number;

  get(): readonly string[] {
    let lines = this.last.deref();
    if (!lines) {
      lines = this.make();
      this.last = new WeakRef(lines);
    }
    return lines;
  }
}

/** A segment's lines: held (the header, the footer, the message being streamed), or remade. */
export type Segment = string[] | RemadeLines;

const linesOf = (segment: Segment): readonly string[] => (segment instanceof RemadeLines ? segment.get() : segment);

export class Document {
  private segments: Segment[];
  private total: number;
  private edits: Edit[] = [];

  constructor(initial: Segment[]) {
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
    return linesOf(this.segments[i]!);
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
  splice(from: number, count: number, replacement: Segment[]): void {
    const start = this.start(from);
    const old = this.segments.slice(from, from + count).flatMap(linesOf);
    const next = replacement.flatMap(linesOf);
    replaceRange(this.segments, from, count, replacement);
    this.total += next.length - old.length;
    this.write(start, old, next);
  }

  /** Replaces the lines of segment i, a held one, from line `offset` on (the streaming tail). */
  patchTail(i: number, offset: number, tail: string[]): void {
    const seg = this.segments[i]!;
    if (seg instanceof RemadeLines) throw new Error("patchTail: a remade segment is never patched");
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
    return this.segments.flatMap(linesOf);
  }
}
