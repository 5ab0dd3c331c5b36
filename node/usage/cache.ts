/**
 * Whether a thread's next request reads the prompt cache: the one rule. A request reads it when
 * its model and its cached prefix (tools, system prompt, thinking: `prefixKey` in
 * providers/request.ts) are those of the last request over the same history, and that request
 * is younger than the cache's lifetime (each read renews it). MCP tools are fixed per thread
 * once its first request lists them, so they are not part of the key.
 */
import type { RequestKey } from "../core/native.ts";

/** Why the next request would not read the cache. */
export type CacheMiss = "model" | "tools" | "expired";

/** The last request over the history, as the next one finds it. */
export type LastRequest = RequestKey & { readonly at: number };

/** Why a request made at `now` as `next` would miss the cache `last` left, or null when it reads it (or there is none to read). */
export function cacheMiss(last: LastRequest | null, next: RequestKey | null, now: number, lifetimeMs: number): CacheMiss | null {
  if (!last || !next) return null;
  if (last.model !== next.model) return "model";
  if (last.prefix !== next.prefix) return "tools";
  if (now - last.at >= lifetimeMs) return "expired";
  return null;
}

/** Why, in the winbar's few columns. */
export const CACHE_MISS_TEXT: Record<CacheMiss, string> = {
  model: "no cache: model changed",
  tools: "no cache: tools changed",
  expired: "cache expired",
};
