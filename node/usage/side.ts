/**
 * Side requests: what a thread was billed for beside the entries of its history. The request
 * that names it (`title`), the summary that made a compacted thread (`compact`, counted in the
 * new thread: the source stays byte-identical), the `@handoff` request its history was rewound
 * from (`handoff`), and an attempt that failed after the API had started to answer (`failed`:
 * billed for its input; one that failed before `message_start` reported nothing and was not
 * billed). They count in the thread's totals and cost, never in its context size, and are kept in
 * its transcript (the `side` record) so a restart shows them.
 */

import type { History } from "../core/history.ts";
import type { Usage } from "../core/native.ts";
import { isCount, isObject } from "../core/shapes.ts";
import type { SideKind, SideRequest } from "../core/side-request.ts";
import { entryUsage } from "./figures.ts";
import { takeCounts } from "./token-counts.ts";

const KINDS: ReadonlySet<string> = new Set<SideKind>(["title", "compact", "handoff", "failed"]);

const billed = (u: Usage) => u.input_tokens + u.output_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens > 0;

/** The side request a response with `usage` was, or null when the API reported nothing (not billed). */
export function sideRequest(kind: SideKind, model: string, usage: Usage, at = Date.now()): SideRequest | null {
  return billed(usage) ? { kind, model, usage: { ...usage }, requests: 1, at } : null;
}

/** What a rewind from `from` back to `to` (a prefix of it) takes out of the history that was billed: those requests stay counted. */
export function rewoundRequests(from: History, to: History): SideRequest[] {
  let common = Math.min(from.length, to.length);
  while (common > 0 && from.at(common - 1) !== to.at(common - 1)) common--;
  const out: SideRequest[] = [];
  for (const e of from.entries(common)) {
    const u = entryUsage(e);
    if (u && e.meta)
      out.push({ kind: "handoff", model: u.model ?? "", usage: e.meta.usage, requests: u.all.requests, at: e.meta.request?.at ?? 0 });
  }
  return out;
}

/** A side request read from a transcript, or why it is not one. */
export function checkSide(v: unknown): SideRequest | string {
  if (!isObject(v) || typeof v["kind"] !== "string" || !KINDS.has(v["kind"])) return "kind is not a side request's";
  if (typeof v["model"] !== "string" || !isCount(v["requests"]) || typeof v["at"] !== "number") return "model, requests or at missing";
  const u = v["usage"];
  if (!isObject(u)) return "usage is not an object";
  // Its figures by the one rule (one that is not a token count is missing: 0), and nothing else of the object.
  const usage: Usage = {
    input_tokens: 0,
    output_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
    web_search_requests: 0,
  };
  takeCounts(usage, u);
  return { kind: v["kind"] as SideKind, model: v["model"], usage, requests: v["requests"], at: v["at"] };
}
