/**
 * Usage figures as they come from outside tine: the API's stream events (providers/stream.ts), a
 * transcript's replies and side records (store/records.ts, store/summary.ts, side.ts) and the
 * index's sums (stored.ts). One rule for all of them: a figure is a token count, a whole number
 * >= 0 that sums keep exact (a safe integer). Anything else there (negative, a fraction, 1e308, a
 * text) is treated as missing, as an absent figure is: it never reaches a sum, a cost, a context
 * size or compaction's rules, which would otherwise show `$-2.00` or start a paid request.
 */

import type { ResponseMeta, Usage } from "../core/native.ts";
import { isCount } from "../core/shapes.ts";

export const isTokenCount = isCount;

const FIGURES = ["input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens", "web_search_requests"] as const;

/** What a reply whose figures were left out says under it, once however many of its events held them. */
export const LEFT_OUT_NOTE = "the API reported usage figures that are not token counts";

const shown = (v: unknown) => (typeof v === "number" ? String(v) : (JSON.stringify(v) ?? String(v)).slice(0, 40));

/**
 * Takes `from`'s figures that are token counts into `into` (the API's events are totals so far:
 * each replaces the last); an absent or null one leaves `into` as it is. Returns the figures that
 * were there and were not counts, as `name value`, for the reply's note.
 */
export function takeCounts(into: Usage, from: Readonly<Record<string, unknown>>): string[] {
  const refused: string[] = [];
  for (const key of FIGURES) {
    const v = from[key];
    if (v === undefined || v === null) continue;
    if (isTokenCount(v)) into[key] = v;
    else refused.push(`${key} ${shown(v)}`);
  }
  return refused;
}

/** The note a reply carries when `refused` (takeCounts) is not empty, or null. */
export const leftOutNote = (refused: readonly string[]): string | null =>
  refused.length ? `${LEFT_OUT_NOTE} (${refused.join(", ")}): they are left out of the thread's tokens and cost` : null;

/** A usage read from a file: its counts, anything else (or none) 0, web searches only when counted; itself when it is all counts. */
export function usageFrom(raw: Usage): Usage {
  const loose = raw as unknown as Record<string, unknown>;
  const whole = FIGURES.every((k) => isTokenCount(loose[k]) || (k === "web_search_requests" && loose[k] === undefined));
  if (whole) return raw;
  const usage: Usage = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
  takeCounts(usage, loose);
  return usage;
}

/** A reply's `meta` read from a transcript (its shape checked: shapes.ts `metaProblem`), its figures by the rule. */
export function metaFrom(meta: ResponseMeta): ResponseMeta {
  const usage = usageFrom(meta.usage);
  const last = meta.continued && usageFrom(meta.continued.last);
  if (usage === meta.usage && last === meta.continued?.last) return meta;
  return { ...meta, usage, ...(meta.continued && last ? { continued: { ...meta.continued, last } } : {}) };
}
