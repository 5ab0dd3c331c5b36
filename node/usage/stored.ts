/**
 * A stored thread's usage as the list's scan keeps it (store/summary.ts, in the project's
 * index), so the list and `threads()` show a thread's figures without loading it: the sums of its
 * own entries and side requests by model, and its last and first own requests. The scan adds each
 * entry as it reads on (only the `meta` at the end of a reply's line is parsed); a truncate that
 * cuts an entry read in an earlier scan needs that file scanned again from its start (`truncate`
 * says so), as the sums cannot be taken apart. The same rules as a loaded thread's (figures.ts).
 */

import type { ResponseMeta, Usage } from "../core/native.ts";
import { isCount, isObject } from "../core/shapes.ts";
import type { SideRequest } from "../core/side-request.ts";
import type { LastRequest } from "./cache.ts";
import {
  costOfSums,
  count,
  entryUsage,
  type Figures,
  figuresOf,
  type PriceTable,
  promptOf,
  type ThreadFigures,
  totalTokens,
} from "./figures.ts";
import { isTokenCount } from "./token-counts.ts";

/** Figures, as arrays (the index holds one summary per transcript): [input, output, cache_read, cache_write, web_searches, requests]. */
type Counts = readonly [number, number, number, number, number, number];
/** Figures of one model. */
type Row = readonly [string | null, ...Counts];
/** The last entry that made requests: its place in the history, its last request's figures, and that request's model, prefix and time (null: not kept). */
type Last = readonly [number, ...Counts, string | null, string | null, number | null];

export type StoredUsage = {
  readonly own: readonly Row[];
  /** The part of `own` priced in a long-prompt band (figures.ts `long`); absent: none. */
  readonly long?: readonly Row[];
  readonly last: Last | null;
  /** The thread's first own turn. */
  readonly first: Counts | null;
};

export const NO_STORED_USAGE: StoredUsage = { own: [], last: null, first: null };

const counts = (f: Figures): Counts => [f.input, f.output, f.cache_read, f.cache_write, f.web_searches, f.requests];
const figures = (c: readonly number[]): Figures => ({
  input: c[0]!,
  output: c[1]!,
  cache_read: c[2]!,
  cache_write: c[3]!,
  web_searches: c[4]!,
  requests: c[5]!,
});
const byModel = (rows: readonly Row[] = []) => new Map(rows.map((r) => [r[0], figures(r.slice(1) as number[])] as const));
const rows = (m: ReadonlyMap<string | null, Figures>): Row[] => [...m].map(([model, f]) => [model, ...counts(f)]);

type Mark = {
  readonly at: number;
  readonly own: boolean;
  readonly model: string | null;
  readonly all: Figures;
  readonly last: Figures;
  readonly request: LastRequest | null;
};

/** One scan of a transcript's new lines, continuing from what earlier scans kept. */
export class UsageScan {
  private readonly own: Map<string | null, Figures>;
  private readonly long: Map<string | null, Figures>;
  /** Entries read in this scan, in order (a truncate drops those it cuts). */
  private readonly marks: Mark[] = [];
  private sides = 0;

  constructor(
    private readonly before: StoredUsage,
    /** Where the thread's own entries start (after a fork's fork point). */
    private readonly ownFrom: number,
  ) {
    this.own = byModel(before.own);
    this.long = byModel(before.long);
  }

  /** Entry `at` of the history, a reply with `meta`. */
  entry(at: number, meta: ResponseMeta): void {
    const u = entryUsage({ message: NO_MESSAGE, meta });
    if (u) this.marks.push({ at, own: at >= this.ownFrom, model: u.model, all: u.all, last: u.last, request: u.request });
  }

  /** Entry `at`, a reply of one request with `usage` (its meta read without a parse: store/summary.ts). */
  written(at: number, usage: Usage, request: LastRequest | null): void {
    const all = figuresOf(usage, 1);
    if (totalTokens(all) === 0) return;
    this.marks.push({ at, own: at >= this.ownFrom, model: request?.model ?? null, all, last: all, request });
  }

  side(r: SideRequest): void {
    const all = figuresOf(r.usage, r.requests);
    this.sides++;
    count(this.own, this.long, r.model || null, all, promptOf(all) / Math.max(1, r.requests));
  }

  /** The history cut to `n` entries; false when that cuts an entry an earlier scan summed (scan the file again). */
  truncate(n: number): boolean {
    while (this.marks.length && this.marks.at(-1)!.at >= n) this.marks.pop();
    return this.before.last === null || this.before.last[0] < n;
  }

  result(): StoredUsage {
    if (!this.marks.length && !this.sides) return this.before;
    const own = new Map(this.own);
    const long = new Map(this.long);
    let first = this.before.first;
    for (const m of this.marks) {
      if (!m.own) continue;
      count(own, long, m.model, m.all, promptOf(m.last));
      first ??= counts(m.all);
    }
    const last = this.marks.at(-1);
    const r = last?.request;
    return {
      own: rows(own),
      ...(long.size ? { long: rows(long) } : {}),
      last: last ? [last.at, ...counts(last.last), r?.model ?? null, r?.prefix ?? null, r?.at ?? null] : this.before.last,
      first,
    };
  }
}

const NO_MESSAGE = Object.freeze({ role: "assistant" as const, content: [] });

/** The model a stored thread's last request named (its transcript keeps no other: a model choice is a record the scan skips), or null. */
export function lastRequestModel(u: StoredUsage): string | null {
  return u.last?.[7] ?? null;
}

/** The figures the winbar, the list and `usage(id)` read, from a stored thread's summary. */
export function storedFigures(u: StoredUsage, prices: PriceTable): ThreadFigures {
  const own = byModel(u.own);
  const long = byModel(u.long);
  const last = u.last;
  const model = lastRequestModel(u);
  const request = last && model !== null ? { model, prefix: last[8] ?? "", at: last[9] ?? 0 } : null;
  return {
    own,
    long,
    last: last ? { figures: figures(last.slice(1, 7) as number[]), request } : null,
    firstOwn: u.first ? figures(u.first) : null,
    cost: costOfSums(prices, own, long),
  };
}

/** Sums of token counts (token-counts.ts): a cached 1e308 or -2 is no figure, and the file is scanned again. */
const isCounts = (c: unknown[]) => c.length === 6 && c.every(isTokenCount);
const isRow = (r: unknown): r is Row => Array.isArray(r) && (r[0] === null || typeof r[0] === "string") && isCounts(r.slice(1));
const isRows = (v: unknown) => Array.isArray(v) && v.every(isRow);
const orNull = (v: unknown, type: "string" | "number") => v === null || typeof v === type;
const isLast = (l: unknown) =>
  Array.isArray(l) &&
  l.length === 10 &&
  isCount(l[0]) &&
  isCounts(l.slice(1, 7)) &&
  orNull(l[7], "string") &&
  orNull(l[8], "string") &&
  orNull(l[9], "number");

/** A summary's usage as read back from the index (a cache: anything of the wrong shape is null, and the file is scanned again). */
export function checkStoredUsage(v: unknown): StoredUsage | null {
  if (!isObject(v) || !isRows(v["own"]) || (v["long"] !== undefined && !isRows(v["long"]))) return null;
  if (v["last"] !== null && !isLast(v["last"])) return null;
  if (v["first"] !== null && !(Array.isArray(v["first"]) && isCounts(v["first"]))) return null;
  return v as StoredUsage;
}
