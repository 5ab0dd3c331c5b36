/**
 * What the display window's winbar says of a thread: a list of parts, each one line of this
 * function, joined. A part with nothing to say is left out.
 */
import { CACHE_MISS_TEXT, type CacheMiss } from "./cache.ts";

/** What the winbar shows, as `UsageBook.view` gives it. */
export type WinbarView = {
  /** The model its next request names (null: its program chooses, Claude Code). */
  readonly model: string | null;
  /** Tokens of the last request (its prompt and its reply), and the model's window (null: unknown model). */
  readonly contextTokens: number;
  readonly contextWindow: number | null;
  /** The thread's own tokens (its requests, not its parent's). */
  readonly totalTokens: number;
  /** Share of the last request's input read from the cache, or null before any request. */
  readonly cacheShare: number | null;
  /** Its own requests' cost; null when a model is not in the price table. */
  readonly cost: number | null;
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

export function winbarParts(v: WinbarView): string[] {
  const model = v.model === null ? [] : [v.model];
  if (v.contextTokens === 0 && v.requests === 0 && v.miss === null) return model;
  return [
    ...model,
    v.contextWindow === null ? `ctx ${tokens(v.contextTokens)}` : `ctx ${tokens(v.contextTokens)} / ${tokens(v.contextWindow)}`,
    `${tokens(v.totalTokens)} tokens`,
    v.cacheShare === null ? "" : `cache ${Math.round(v.cacheShare * 100)}%`,
    v.cost === null ? "" : dollars(v.cost),
    v.miss === null ? "" : `⚠ next send won't read the cache: ${CACHE_MISS_TEXT[v.miss]}`,
  ].filter((part) => part !== "");
}

/** Statusline text: `%` is literal. */
const literal = (text: string) => text.replaceAll("%", "%%");

/**
 * The winbar as a statusline (`%{%…%}` in lua/tine/winbar.lua): in a window too narrow for it the
 * figures after the model are cut from their start (`%<`), so the model and a warning at the end
 * stay in view.
 */
export function winbarText(v: WinbarView): string {
  const [first, ...rest] = winbarParts(v);
  if (first === undefined) return "";
  return rest.length ? `${literal(first)}  ·  %<${literal(rest.join("  ·  "))}` : literal(first);
}
