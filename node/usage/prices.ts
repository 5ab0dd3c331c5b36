/**
 * The price table: what a request costs, in US dollars per million tokens, by model. The one file
 * to update when Anthropic's prices change; `prices = { ... }` in setup adds models or overrides
 * these. Checked on 2026-11-23 against platform.claude.com/docs/en/about-claude/pricing and the
 * model pages (base input, 5-minute cache writes = 1.25× input, cache reads, output; 1-hour cache
 * writes are not used by tine). Web search: $10 per 1,000 searches.
 *
 * Sonnet 5.5's cache reads are 0.05× input ($0.10, not the usual 0.1× = $0.20): the sources do not
 * agree on the usual rule, because Anthropic cut that rate on 2026-10-07. Pages from before the cut
 * say $0.20 (the model overview, platform.claude.com/docs/zh-CN/models/sonnet-5-5/overview, and
 * guides of September); the release notes of tools that track the pricing page say $0.10 from that
 * date (PromptFuel v1.0.23, claudit v1.9.2 "re-checked against the live pricing page 2026-10-24",
 * and the synaps pricing table citing platform.claude.com/docs/en/about-claude/pricing).
 */

/** Dollars per million tokens; `context_window`: tokens the model reads at most. */
export type Rates = {
  readonly input: number;
  readonly output: number;
  readonly cache_write: number;
  readonly cache_read: number;
  readonly context_window: number;
  /** Rates for every token of a request whose prompt (input, cache reads and writes) is over `over` tokens. */
  readonly long_prompt?: {
    readonly over: number;
    readonly input: number;
    readonly output: number;
    readonly cache_write: number;
    readonly cache_read: number;
  };
};

export const PRICES_DATE = "2026-11-23";
export const WEB_SEARCH_USD = 10 / 1000;

const M = 1_000_000;
const K200 = 200_000;
/** Input and output per MTok, cache reads as a fraction of input; writes (5 min) are 1.25× input. */
const rates = (input: number, output: number, readShare: number, context_window: number): Rates => ({
  input,
  output,
  cache_write: input * 1.25,
  cache_read: input * readShare,
  context_window,
});

export const PRICES: Readonly<Record<string, Rates>> = {
  "claude-fable-5-1": rates(10, 50, 0.025, M),
  "claude-fable-5": rates(10, 50, 0.1, M),
  "claude-opus-5-5": rates(4, 20, 0.05, M),
  "claude-opus-5": rates(5, 25, 0.1, M),
  "claude-opus-4-8": rates(5, 25, 0.1, M),
  "claude-opus-4-7": rates(5, 25, 0.1, M),
  "claude-opus-4-6": rates(5, 25, 0.1, M),
  "claude-opus-4-5": rates(5, 25, 0.1, K200),
  "claude-opus-4-1": rates(15, 75, 0.1, K200),
  "claude-opus-4": rates(15, 75, 0.1, K200),
  "claude-sonnet-5-5": rates(2, 10, 0.05, M),
  "claude-sonnet-5": rates(2, 10, 0.1, M),
  "claude-sonnet-4-6": rates(3, 15, 0.1, M),
  "claude-sonnet-4-5": rates(3, 15, 0.1, K200),
  "claude-sonnet-4": rates(3, 15, 0.1, K200),
  "claude-haiku-5-5": {
    ...rates(0.1, 0.5, 0.1, M),
    long_prompt: { over: 100_000, input: 0.5, output: 2.5, cache_write: 0.625, cache_read: 0.05 },
  },
  "claude-haiku-4-5": rates(1, 5, 0.1, K200),
};

/** The window of a model not in the table: every current Claude model reads at least this. */
export const DEFAULT_CONTEXT_WINDOW = 200_000;

/** A model's rates: its name with a date (`-20251001`) or a `[1m]` suffix is the same model. */
export function ratesFor(prices: Readonly<Record<string, Rates>>, model: string | null): Rates | null {
  if (model === null) return null;
  const bare = model.replace(/\[1m\]$/, "").replace(/-\d{8}$/, "");
  return prices[model] ?? prices[bare] ?? null;
}

/** The prompt size past which `model`'s requests are priced by its `long_prompt` band (Infinity: none). From the built-in table: setup's rates have no band. */
export function longPromptOver(model: string | null): number {
  const known = longMarks.get(model);
  if (known !== undefined) return known;
  const over = ratesFor(PRICES, model)?.long_prompt?.over ?? Number.POSITIVE_INFINITY;
  longMarks.set(model, over);
  return over;
}
/** By model: a list's scan asks once per reply. */
const longMarks = new Map<string | null, number>();

/** Token counts a cost is taken of (figures.ts's `Figures` are: the table stays a leaf that imports none of them). */
type Counted = {
  readonly input: number;
  readonly output: number;
  readonly cache_write: number;
  readonly cache_read: number;
  readonly web_searches: number;
};

/** What requests cost at one band of rates (a model's, or its long-prompt band's). */
export function costAt(band: Omit<Rates, "context_window" | "long_prompt">, f: Counted): number {
  return (
    (f.input * band.input + f.output * band.output + f.cache_write * band.cache_write + f.cache_read * band.cache_read) / M +
    f.web_searches * WEB_SEARCH_USD
  );
}
