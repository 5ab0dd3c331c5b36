/**
 * A persistent, append-only list of history entries.
 *
 * Forking must not copy the conversation: a fork of a 10,000-message thread shares every entry
 * with its source. A `History` is an immutable value made of a shared, frozen prefix (`base`,
 * itself a History) plus its own `items`. Appending returns a new History; when this value is the
 * newest user of its `items` array it pushes in place (O(1)), otherwise it copies only its own
 * tail, never the shared prefix. `prefix(n)` (used by forks and clean-up) is O(1).
 */
import { appendAll } from "../util/arrays.ts";
import type { Entry, NativeMessage } from "./native.ts";

export class History {
  static readonly empty = new History(null, 0, [], 0);

  private constructor(
    private readonly base: History | null,
    /** How many entries come from `base`. */
    private readonly baseLength: number,
    /** Entries after the base; shared with later Histories that appended in place. */
    private readonly items: Entry[],
    readonly length: number,
  ) {}

  static of(entries: readonly Entry[]): History {
    return new History(null, 0, entries.slice(), entries.length);
  }

  at(index: number): Entry {
    if (index < 0 || index >= this.length) throw new RangeError(`history index ${index} of ${this.length}`);
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    let node: History = this;
    while (index < node.baseLength) node = node.base!;
    return node.items[index - node.baseLength]!;
  }

  last(): Entry | undefined {
    return this.length ? this.at(this.length - 1) : undefined;
  }

  push(...entries: Entry[]): History {
    if (entries.length === 0) return this;
    const own = this.length - this.baseLength;
    if (this.items.length === own) {
      // Nobody appended past us: extending the shared array is invisible to older values.
      appendAll(this.items, entries);
      return new History(this.base, this.baseLength, this.items, this.length + entries.length);
    }
    const items = this.items.slice(0, own);
    appendAll(items, entries);
    return new History(this.base, this.baseLength, items, this.length + entries.length);
  }

  /** The first `n` entries, sharing them. */
  prefix(n: number): History {
    if (n < 0 || n > this.length) throw new RangeError(`prefix ${n} of ${this.length}`);
    if (n === this.length) return this;
    if (n === 0) return History.empty;
    if (n <= this.baseLength) return this.base!.prefix(n);
    return new History(this, n, [], n);
  }

  /** A value whose later appends never touch this one's storage: what a fork starts from. */
  share(): History {
    return this.length === 0 ? History.empty : new History(this, this.length, [], this.length);
  }

  /** Replaces the last entry (used when a turn is cleaned up). */
  replaceLast(replacement: Entry | null): History {
    const rest = this.prefix(this.length - 1);
    return replacement ? rest.push(replacement) : rest;
  }

  *entries(from = 0): IterableIterator<Entry> {
    // Collect the chain once so iteration is O(n) rather than O(n * depth).
    const chain: History[] = [];
    for (let node: History | null = this; node; node = node.base) chain.push(node);
    let index = from;
    for (let c = chain.length - 1; c >= 0; c--) {
      const node = chain[c]!;
      const end = c === 0 ? this.length : chain[c - 1]!.baseLength;
      for (; index < end; index++) yield node.items[index - node.baseLength]!;
    }
  }

  messages(): NativeMessage[] {
    const out: NativeMessage[] = new Array(this.length);
    let i = 0;
    for (const e of this.entries()) out[i++] = e.message;
    return out;
  }
}
