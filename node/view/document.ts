/**
 * A buffer's content as an ordered list of segments (one per message, plus a header, the message
 * being streamed and a footer), mirrored exactly in Neovim. Every change is turned into the
 * smallest `nvim_buf_set_lines` edits: a change near the end costs what it changes, not what the
 * buffer holds, so streaming into a 10,000-message thread costs what it does into an empty one.
 * A segment of a history entry is not held as lines but made again when needed (RemadeLines).
 *
 * The buffer may hold only the document's end: the lines above a boundary are not written yet
 * (a long thread is shown from its end, the rest filled in by `reveal`, a step at a time), and
 * the segments wholly above it may not even be made (UNMADE: rendered when the fill reaches them).
 * Edits there change the document only; edits below it are written as always.
 */

import type { Edit } from "../nvim/lua-shapes.ts";
import { appendAll, replaceRange, replaceTail } from "../util/arrays.ts";

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

/** A segment above the boundary that is not made yet: the view makes it when the fill reaches it. */
export const UNMADE = Symbol("unmade");
export type Slot = Segment | typeof UNMADE;

const linesOf = (segment: Segment): readonly string[] => (segment instanceof RemadeLines ? segment.get() : segment);

/**
 * What a line costs Neovim beyond its text when written (its own record in the buffer, its string
 * in the RPC message), in bytes of text: a step of many short lines costs more than its bytes say.
 */
const LINE_COST = 32;

export class Document {
  private readonly slots: Slot[];
  /** The boundary: the buffer holds segment `top` from line `hidden` on, and all segments after it. */
  private top: number;
  private hidden = 0;
  /** Lines the buffer holds. */
  private total: number;
  private edits: Edit[] = [];

  /** `initial`: every segment, made; those before `shownFrom` are above the boundary (not in the buffer yet). */
  constructor(initial: Segment[], shownFrom = 0) {
    this.slots = initial;
    this.top = shownFrom;
    this.total = initial.slice(shownFrom).reduce((n, s) => n + s.length, 0);
  }

  get count(): number {
    return this.slots.length;
  }

  /** Lines the buffer holds. */
  get lineCount(): number {
    return this.total;
  }

  /** Whether lines above the boundary wait to be shown (by `reveal`). */
  get filling(): boolean {
    return this.top > 0 || this.hidden > 0;
  }

  /** Whether segment i is wholly in the buffer: a splice from it is written at once (its segments must be made). */
  shows(i: number): boolean {
    return i > this.top || (i === this.top && this.hidden === 0);
  }

  lines(i: number): readonly string[] {
    return linesOf(this.made(i));
  }

  private made(i: number): Segment {
    const slot = this.slots[i]!;
    if (slot === UNMADE) throw new Error(`document: segment ${i} is not made yet`);
    return slot;
  }

  /** Buffer line of segment i's first line, i at or below the boundary (negative: its first lines are above it). */
  private start(i: number): number {
    if (i < this.top) throw new Error(`document: segment ${i} is above the boundary`);
    // Counted from the nearer end: O(1) for the tail segments.
    if (i > (this.top + this.slots.length) / 2) {
      let line = this.total;
      for (let s = this.slots.length - 1; s >= i; s--) line -= this.made(s).length;
      return line;
    }
    let line = -this.hidden;
    for (let s = this.top; s < i; s++) line += this.made(s).length;
    return line;
  }

  /** Buffer line of segment i's first line; null while that line is above the boundary. */
  shownStart(i: number): number | null {
    if (i < this.top) return null;
    const line = this.start(i);
    return line < 0 ? null : line;
  }

  /** The segment holding buffer line `line`, and the line's offset in it. */
  locate(line: number): { segment: number; offset: number } | null {
    let start = -this.hidden;
    for (let s = this.top; s < this.slots.length; s++) {
      const len = this.made(s).length;
      if (line < start + len) return { segment: s, offset: line - start };
      start += len;
    }
    return null;
  }

  /**
   * Replaces `count` segments at `from` with `replacement`; writes only the lines that differ.
   * From a segment the buffer does not wholly show, the replacement goes above the boundary (the
   * fill shows it): what the buffer showed of the replaced segments is taken out of it.
   */
  splice(from: number, count: number, replacement: Slot[]): void {
    if (this.shows(from)) {
      const start = this.start(from);
      const old = this.slots.slice(from, from + count).flatMap((_, j) => this.lines(from + j));
      const made = replacement.map((slot) => {
        if (slot === UNMADE) throw new Error("document: a segment written to the buffer must be made");
        return slot;
      });
      const next = made.flatMap(linesOf);
      replaceRange(this.slots, from, count, made);
      this.total += next.length - old.length;
      this.write(start, old, next);
      return;
    }
    const end = from + count;
    if (end > this.top) {
      // The range reaches into the buffer: what it shows there goes (the replacement will be filled in).
      const shownEnd = this.start(end);
      if (shownEnd > 0) this.edits.push([0, shownEnd, []]);
      this.total -= shownEnd;
      this.top = end;
      this.hidden = 0;
    }
    replaceRange(this.slots, from, count, replacement);
    this.top += replacement.length - count;
  }

  /** Replaces the lines of segment i, a held one, from line `offset` on (the streaming tail). */
  patchTail(i: number, offset: number, tail: string[]): void {
    const seg = this.made(i);
    if (seg instanceof RemadeLines) throw new Error("patchTail: a remade segment is never patched");
    const old = seg.slice(offset);
    replaceTail(seg, offset, tail);
    if (i < this.top) return;
    // Of the lines replaced, those above the boundary stay above it, as far as the new ones reach.
    const above = i === this.top ? Math.max(0, this.hidden - offset) : 0;
    const keptAbove = Math.min(above, tail.length);
    if (above > 0) this.hidden = offset + keptAbove;
    const shownOld = old.slice(above);
    const shownNew = tail.slice(keptAbove);
    this.total += shownNew.length - shownOld.length;
    this.write(Math.max(0, this.start(i) + offset), shownOld, shownNew);
  }

  /**
   * Shows lines from above the boundary, the nearest first, until they cost about `budget` bytes
   * (at least one line): one edit at the top of the buffer. `make` makes a segment the fill
   * reaches that is not made yet.
   */
  reveal(budget: number, make: (i: number) => Segment): void {
    const pieces: (readonly string[])[] = [];
    let cost = 0;
    let count = 0;
    while (cost < budget || count === 0) {
      if (this.hidden === 0) {
        if (this.top === 0) break;
        this.top--;
        if (this.slots[this.top] === UNMADE) this.slots[this.top] = make(this.top);
        this.hidden = this.made(this.top).length;
        continue;
      }
      const lines = this.lines(this.top);
      let from = this.hidden;
      while (from > 0 && (cost < budget || count === 0)) {
        from--;
        cost += lines[from]!.length + LINE_COST;
        count++;
      }
      pieces.push(lines.slice(from, this.hidden));
      this.hidden = from;
    }
    if (count === 0) return;
    const shown: string[] = [];
    for (let p = pieces.length - 1; p >= 0; p--) appendAll(shown, pieces[p]!);
    this.total += count;
    this.edits.push([0, 0, shown]);
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

  /** The lines the buffer holds (tests and checks). */
  text(): string[] {
    const out = this.top < this.slots.length ? this.lines(this.top).slice(this.hidden) : [];
    for (let s = this.top + 1; s < this.slots.length; s++) appendAll(out, this.lines(s));
    return out;
  }
}
