/**
 * A thread's usage as data derived from its history: each assistant entry keeps the usage of the
 * request(s) that made it (node/providers/stream.ts `turnUsage`), so figures need no store of their
 * own, survive a restart with the transcript, and forks share their parent's prefix. A thread's
 * *own* figures are those of the entries after its fork point (a fork's first entries before its
 * own requests are copies of its source's, with no usage); the rest are its parent's.
 */
import type { History } from "../core/history.ts";
import type { Entry, Usage } from "../core/native.ts";
import type { SideRequest } from "../core/side-request.ts";
import type { LastRequest } from "./cache.ts";
import { costAt, longPromptOver, type Rates, ratesFor } from "./prices.ts";

/** Token counts of one or more requests, as the API reports them. */
export type Figures = {
  readonly input: number;
  readonly output: number;
  readonly cache_read: number;
  readonly cache_write: number;
  readonly web_searches: number;
  readonly requests: number;
};

export const NO_FIGURES: Figures = Object.freeze({ input: 0, output: 0, cache_read: 0, cache_write: 0, web_searches: 0, requests: 0 });

export function figuresOf(usage: Usage, requests: number): Figures {
  return {
    input: usage.input_tokens,
    output: usage.output_tokens,
    cache_read: usage.cache_read_input_tokens,
    cache_write: usage.cache_creation_input_tokens,
    web_searches: usage.web_search_requests ?? 0,
    requests,
  };
}

export function addFigures(a: Figures, b: Figures): Figures {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cache_read: a.cache_read + b.cache_read,
    cache_write: a.cache_write + b.cache_write,
    web_searches: a.web_searches + b.web_searches,
    requests: a.requests + b.requests,
  };
}

export const totalTokens = (f: Figures) => f.input + f.output + f.cache_read + f.cache_write;

/** Figures by the model that was asked (null: an entry stored before the model was kept). */
export type ByModel = ReadonlyMap<string | null, Figures>;

/** One entry's requests: all of them summed, and the last one alone (its context, its cache read). */
type EntryUsage = { readonly model: string | null; readonly all: Figures; readonly last: Figures; readonly request: LastRequest | null };

/** The requests behind an entry, or null for one that made none (a user message, a copy, a reply cut before any figure came). */
export function entryUsage(e: Entry): EntryUsage | null {
  const meta = e.meta;
  if (!meta || totalTokens(figuresOf(meta.usage, 0)) === 0) return null;
  const requests = meta.continued?.requests ?? 1;
  const all = figuresOf(meta.usage, requests);
  return {
    model: meta.request?.model ?? null,
    all,
    last: meta.continued ? figuresOf(meta.continued.last, 1) : { ...all, requests: 1 },
    request: meta.request ?? null,
  };
}

/** What the winbar, the list and `usage(id)` read of one thread. */
export type ThreadFigures = {
  /** The thread's own requests, by model (its side requests included). */
  readonly own: ByModel;
  /** The part of `own` made by requests whose prompt was past their model's long-prompt mark (priced apart: prices.ts). */
  readonly long: ByModel;
  /** The last request over its history (its own or, before it made one, its parent's). */
  readonly last: { readonly figures: Figures; readonly request: LastRequest | null } | null;
  /** Its first own turn (a paused turn's requests summed), or null before it made one. */
  readonly firstOwn: Figures | null;
  /** Its own requests' cost in dollars; null when one was made with a model the price table lacks. */
  readonly cost: number | null;
};

export type PriceTable = Readonly<Record<string, Rates>>;

/** Figures of `history` whose own part starts at entry `ownFrom`. */
export function threadFigures(history: History, ownFrom: number, prices: PriceTable): ThreadFigures {
  return extendFigures(NO_THREAD_FIGURES, history, 0, ownFrom, prices);
}

export const NO_THREAD_FIGURES: ThreadFigures = { own: new Map(), long: new Map(), last: null, firstOwn: null, cost: 0 };

export const promptOf = (f: Figures) => f.input + f.cache_read + f.cache_write;

/** `base` (the figures of `history`'s first `from` entries) with the entries after them added. */
export function extendFigures(base: ThreadFigures, history: History, from: number, ownFrom: number, prices: PriceTable): ThreadFigures {
  if (from >= history.length) return base;
  const own = new Map(base.own);
  const long = new Map(base.long);
  let { last, firstOwn } = base;
  let index = from;
  for (const e of history.entries(from)) {
    const u = entryUsage(e);
    if (u) {
      last = { figures: u.last, request: u.request };
      if (index >= ownFrom) {
        count(own, long, u.model, u.all, promptOf(u.last));
        // A paused turn keeps only its sum: a sum without a cache read means its first request read none.
        firstOwn ??= u.all;
      }
    }
    index++;
  }
  return { own, long, last, firstOwn, cost: costOfSums(prices, own, long) };
}

/** `f` with the side requests `side` counted as its own (side.ts): totals and cost, not the context. */
export function withSide(f: ThreadFigures, side: readonly SideRequest[], prices: PriceTable): ThreadFigures {
  if (!side.length) return f;
  const own = new Map(f.own);
  const long = new Map(f.long);
  for (const r of side) {
    const all = figuresOf(r.usage, r.requests);
    count(own, long, r.model || null, all, promptOf(all) / Math.max(1, r.requests));
  }
  return { ...f, own, long, cost: costOfSums(prices, own, long) };
}

/** Adds one entry's (or side request's) figures to the sums; `prompt`: its (last) request's, which picks the price band. */
export function count(
  own: Map<string | null, Figures>,
  long: Map<string | null, Figures>,
  model: string | null,
  all: Figures,
  prompt: number,
): void {
  own.set(model, addFigures(own.get(model) ?? NO_FIGURES, all));
  if (prompt > longPromptOver(model)) long.set(model, addFigures(long.get(model) ?? NO_FIGURES, all));
}

/** What the sums cost at `prices`; null when a model is not in them. */
export function costOfSums(prices: PriceTable, own: ByModel, long: ByModel): number | null {
  let cost = 0;
  for (const [model, all] of own) {
    const rates = ratesFor(prices, model);
    if (!rates) return null;
    const longPart = long.get(model) ?? NO_FIGURES;
    cost += costAt(rates, subFigures(all, longPart)) + costAt(rates.long_prompt ?? rates, longPart);
  }
  return cost;
}

function subFigures(a: Figures, b: Figures): Figures {
  return {
    input: a.input - b.input,
    output: a.output - b.output,
    cache_read: a.cache_read - b.cache_read,
    cache_write: a.cache_write - b.cache_write,
    web_searches: a.web_searches - b.web_searches,
    requests: a.requests - b.requests,
  };
}

export function sumByModel(figures: ByModel): Figures {
  let out = NO_FIGURES;
  for (const f of figures.values()) out = addFigures(out, f);
  return out;
}

export function mergeByModel(a: ByModel, b: ByModel): ByModel {
  const out = new Map(a);
  for (const [model, f] of b) out.set(model, addFigures(out.get(model) ?? NO_FIGURES, f));
  return out;
}
