import { describe, expect, it } from "vitest";
import { History } from "../core/history.ts";
import { assistantMessage, entry, type ResponseMeta, userMessage } from "../core/native.ts";
import { cacheMiss } from "./cache.ts";
import { extendFigures, sumByModel, threadFigures } from "./figures.ts";
import { PRICES, ratesFor } from "./prices.ts";
import { shortModel, tokens, winbarParts } from "./winbar.ts";

const reply = (meta: ResponseMeta) => entry(assistantMessage([{ type: "text", text: "r" }]), meta);
const ask = entry(userMessage([{ type: "text", text: "q" }]));
const usage = (input: number, cache_read: number, output: number) => ({
  input_tokens: input,
  output_tokens: output,
  cache_read_input_tokens: cache_read,
  cache_creation_input_tokens: 0,
});
const request = (model: string, at = 0) => ({ model, prefix: "p", at });

describe("usage figures", () => {
  it("a thread's own figures start at its fork point; a paused turn counts every request and keeps its last one's context", () => {
    const history = History.of([
      ask,
      reply({ stopReason: "end_turn", usage: usage(10, 0, 5), request: request("claude-opus-4-5") }),
      ask,
      reply({
        stopReason: "end_turn",
        usage: usage(30, 200, 9),
        request: request("claude-opus-4-5"),
        continued: { requests: 2, last: usage(20, 100, 4) },
      }),
    ]);
    const f = threadFigures(history, 2, PRICES);
    expect(sumByModel(f.own)).toEqual({ input: 30, output: 9, cache_read: 200, cache_write: 0, web_searches: 0, requests: 2 });
    expect(f.last?.figures).toMatchObject({ input: 20, cache_read: 100, output: 4, requests: 1 });
    // Counted again or extended from a prefix: the same.
    const prefix = threadFigures(history.prefix(2), 2, PRICES);
    expect(extendFigures(prefix, history, 2, 2, PRICES)).toEqual(f);
  });

  it("an unpriced model leaves the cost unknown, not zero", () => {
    const history = History.of([ask, reply({ stopReason: "end_turn", usage: usage(10, 0, 5), request: request("claude-unknown-9") })]);
    expect(threadFigures(history, 0, PRICES).cost).toBeNull();
  });

  it("a dated or [1m] model name has its model's rates; a prompt over the long band's mark pays those for every token", () => {
    expect(ratesFor(PRICES, "claude-haiku-4-5-20251001")).toBe(PRICES["claude-haiku-4-5"]);
    expect(ratesFor(PRICES, "claude-sonnet-5-5[1m]")).toBe(PRICES["claude-sonnet-5-5"]);
    const haiku = (input: number) => reply({ stopReason: "end_turn", usage: usage(input, 0, 0), request: request("claude-haiku-5-5") });
    // $0.10 per MTok up to 100k of prompt, $0.50 past it.
    expect(threadFigures(History.of([ask, haiku(50_000)]), 0, PRICES).cost).toBeCloseTo(0.005);
    expect(threadFigures(History.of([ask, haiku(200_000)]), 0, PRICES).cost).toBeCloseTo(0.1);
    expect(threadFigures(History.of([ask, haiku(50_000), ask, haiku(200_000)]), 0, PRICES).cost).toBeCloseTo(0.105);
  });

  it("the next request misses the cache when the model or the prefix changed or the cache expired", () => {
    const last = { model: "m", prefix: "p", at: 1000 };
    expect(cacheMiss(last, { model: "m", prefix: "p" }, 1000 + 299_999, 300_000)).toBeNull();
    expect(cacheMiss(last, { model: "m", prefix: "p" }, 1000 + 300_000, 300_000)).toBe("expired");
    expect(cacheMiss(last, { model: "n", prefix: "p" }, 1000, 300_000)).toBe("model");
    expect(cacheMiss(last, { model: "m", prefix: "q" }, 1000, 300_000)).toBe("tools");
    expect(cacheMiss(null, { model: "m", prefix: "p" }, 1000, 300_000)).toBeNull();
  });

  it("tokens read short", () => {
    expect([950, 4200, 48_300, 1_250_000].map(tokens)).toEqual(["950", "4.2k", "48k", "1.3M"]);
  });

  it("the winbar's parts: the model leads; a narrow window drops the cache share first, the model before the cost, and never the warning", () => {
    const view = {
      model: "claude-haiku-4-5",
      effort: "setup" as const,
      contextTokens: 3200,
      contextWindow: 200_000,
      totalTokens: 9400,
      cacheShare: 0.96,
      cost: 0.024,
      requests: 2,
      miss: "expired" as const,
    };
    const parts = winbarParts(view);
    expect(parts.map((p) => p.text)).toEqual([
      "claude-haiku-4-5",
      "ctx 3.2k / 200k",
      "9.4k tokens",
      "cache 96%",
      "$0.024",
      "⚠ cache expired",
    ]);
    const byDrop = [...parts].sort((a, b) => b.drop - a.drop).map((p) => p.text.split(" ")[0]);
    expect(byDrop).toEqual(["cache", "9.4k", "claude-haiku-4-5", "ctx", "$0.024", "⚠"]);
    expect(parts[2]!.short).toBe("9.4k tok");
    expect(parts[0]!.short).toBe("haiku-4-5");
    expect(parts.at(-1)!.drop).toBe(0);
    expect(shortModel("claude-opus-4-1-20250805")).toBe("opus-4-1");
    expect(winbarParts({ ...view, contextTokens: 0, requests: 0, miss: null }).map((p) => p.text)).toEqual(["claude-haiku-4-5"]);
    expect(winbarParts({ ...view, model: null, contextTokens: 0, requests: 0, miss: null })).toEqual([]);
    // A thinking effort of its own (`:Tine model`) goes with the model, as the banner says it.
    const low = winbarParts({ ...view, effort: "low" })[0]!;
    expect([low.text, low.short]).toEqual(["claude-haiku-4-5 · thinking low", "haiku-4-5 · low"]);
    const none = winbarParts({ ...view, effort: "none" })[0]!;
    expect([none.text, none.short]).toEqual(["claude-haiku-4-5 · no thinking", "haiku-4-5 · no thinking"]);
  });
});
