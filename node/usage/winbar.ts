/**
 * What the display window's winbar says of a thread: a list of parts, each one line of this
 * function, joined. A part with nothing to say is left out.
 */
import { effortWords, type ThinkingEffort } from "../core/model-choice.ts";
import { CACHE_MISS_TEXT, type CacheMiss } from "./cache.ts";

/** What the winbar shows, as `UsageBook.view` gives it. */
export type WinbarView = {
  /** The model its next request names (null: its program chooses, Claude Code). */
  readonly model: string | null;
  /** Its thinking effort (`:Tine model`), said with the model; "setup" (setup's thinking, or its program's) goes unsaid. */
  readonly effort: ThinkingEffort;
  /** Tokens of the last request (its prompt and its reply), and the model's window (null: unknown model). */
  readonly contextTokens: number;
  readonly contextWindow: number | null;
  /** The thread's own tokens (its requests, not its parent's). */
  readonly totalTokens: number;
  /** Share of the last request's input read from the cache, or null before any request. */
  readonly cacheShare: number | null;
  /** Its own requests' cost; null when a model is not in the price table. */
  readonly cost: number | null;
  /** The unit of `cost` when it is not dollars (an agent's "credits", "EUR"): absent for dollars. */
  readonly costUnit?: string;
  readonly requests: number;
  /** Why the next send would not read the cache, or null. */
  readonly miss: CacheMiss | null;
};

/** 950, 4.2k, 48k, 1.2M. */
export function tokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 10_000) return `${(n / 1000).toFixed(1).replace(/\.0$/, "")}k`;
  if (n < 1_000_000) return `${Math.round(n / 1000)}k`;
  return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, "")}M`;
}

/** $1.25, $0.42; below 10 cents two significant digits ($0.0020): a fork's first request costs that little. */
export const dollars = (usd: number) => (usd === 0 ? "$0" : usd >= 0.1 ? `$${usd.toFixed(2)}` : `$${usd.toPrecision(2)}`);

/** A cost in dollars, or in another unit (`12 credits`, `0.42 EUR`) when an agent counts in one. */
export const costText = (amount: number, unit?: string) =>
  unit === undefined || unit === "USD" ? dollars(amount) : `${Number(amount.toPrecision(3))} ${unit}`;

/**
 * One part of the winbar. A window too narrow for all of them takes the part with the highest
 * `drop` and shows its `short` form, or leaves it out (lua/tine/winbar.lua fits them to each
 * window); `drop` 0 is never left out. The cache share and the tokens go first, then the model's
 * name (the user chose it; its short form first), then the context; the cost stays longer (what
 * a thread has cost is what a narrow column is glanced at for), and a cache warning longest.
 */
export type WinbarPart = { readonly text: string; readonly short?: string; readonly drop: number };

/** `sonnet-4-5` for `claude-sonnet-4-5-20250929`: the family and version, without the vendor and the date. */
export function shortModel(model: string): string {
  return model.replace(/^claude-/, "").replace(/-\d{8}$/, "");
}

/** The model, with the thread's own thinking effort when it chose one (`haiku-4-5 · low` short). */
function modelPart(model: string, effort: ThinkingEffort): WinbarPart {
  const text = effort === "setup" ? model : `${model} · ${effortWords(effort)}`;
  const short = effort === "setup" || effort === "none" ? text.replace(model, shortModel(model)) : `${shortModel(model)} · ${effort}`;
  return short === text ? { text, drop: 3 } : { text, short, drop: 3 };
}

export function winbarParts(v: WinbarView): WinbarPart[] {
  const model: WinbarPart[] = v.model === null ? [] : [modelPart(v.model, v.effort)];
  if (v.contextTokens === 0 && v.requests === 0 && v.miss === null) return model;
  const ctx = `ctx ${tokens(v.contextTokens)}`;
  const parts: (WinbarPart | null)[] = [
    ...model,
    v.contextWindow === null ? { text: ctx, drop: 2 } : { text: `${ctx} / ${tokens(v.contextWindow)}`, short: ctx, drop: 2 },
    { text: `${tokens(v.totalTokens)} tokens`, short: `${tokens(v.totalTokens)} tok`, drop: 4 },
    v.cacheShare === null ? null : { text: `cache ${Math.round(v.cacheShare * 100)}%`, drop: 5 },
    v.cost === null ? null : { text: costText(v.cost, v.costUnit), drop: 1 },
    v.miss === null ? null : { text: `⚠ ${CACHE_MISS_TEXT[v.miss]}`, drop: 0 },
  ];
  return parts.filter((part) => part !== null);
}
