/**
 * The offline demo's prompt cache: the usage a request gets as the real API would count it, so
 * the demo's cache figures (and the list's `⚠ first request read no cache` on a fork) mean what
 * they mean against the API. As the API's: a request's prefix (tools, then system, then the
 * messages' blocks, in that order) is written at each `cache_control` breakpoint; a later request
 * reads the longest written prefix it starts with, found at a breakpoint or at one of the 20 block
 * boundaries before it. Tokens are estimated (4 characters each); the API's minimum cacheable
 * length and the cache's lifetime are left out (a demo runs minutes, on prompts past that length).
 * The recorded test replies keep their own usage (script.ts): only the demo counts this way.
 */

import { createHash } from "node:crypto";

export type CacheUsage = { input_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number };

/** How far before a breakpoint the API looks for a written prefix (its documented lookback). */
const LOOKBACK_BLOCKS = 20;

type Block = { readonly json: string; readonly breakpoint: boolean };

const tokensOf = (text: string) => Math.ceil(text.length / 4);

/** A block as the cache compares it: its content without its breakpoint mark. */
function blockOf(value: unknown, role?: string): Block {
  const record = typeof value === "object" && value !== null ? (value as Record<string, unknown>) : null;
  const content = record ? Object.fromEntries(Object.entries(record).filter(([k]) => k !== "cache_control")) : value;
  return { json: JSON.stringify(role ? [role, content] : content), breakpoint: record?.["cache_control"] !== undefined };
}

/** A request's blocks in the order the API caches them. */
function blocksOf(body: Record<string, unknown>): Block[] {
  const out: Block[] = [];
  for (const tool of Array.isArray(body["tools"]) ? body["tools"] : []) out.push(blockOf(tool));
  const system = body["system"];
  if (typeof system === "string") out.push(blockOf({ type: "text", text: system }));
  else if (Array.isArray(system)) for (const b of system) out.push(blockOf(b));
  for (const m of Array.isArray(body["messages"]) ? (body["messages"] as { role: string; content: unknown }[]) : []) {
    const content = typeof m.content === "string" ? [{ type: "text", text: m.content }] : Array.isArray(m.content) ? m.content : [];
    // The role goes with a message's first block: the same text as another role's is another prefix.
    out.push(...content.map((b, i) => blockOf(b, i === 0 ? m.role : undefined)));
  }
  return out;
}

export class DemoPromptCache {
  /** The hashes of the prefixes written. */
  private readonly written = new Set<string>();

  /** The usage the API reports for `body`; the prefixes at its breakpoints are written. */
  usage(body: object): CacheUsage {
    const blocks = blocksOf(body as Record<string, unknown>);
    const hashes: string[] = [];
    const tokens: number[] = [];
    let hash = "";
    let total = 0;
    for (const b of blocks) {
      hash = createHash("sha256").update(hash).update(b.json).digest("hex");
      total += tokensOf(b.json);
      hashes.push(hash);
      tokens.push(total);
    }
    const breakpoints = blocks.flatMap((b, i) => (b.breakpoint ? [i] : []));
    // The longest written prefix found from any breakpoint (-1: none).
    let read = -1;
    for (const at of breakpoints)
      for (let i = at; i >= Math.max(0, at - LOOKBACK_BLOCKS); i--)
        if (i > read && this.written.has(hashes[i]!)) {
          read = i;
          break;
        }
    const last = breakpoints.at(-1) ?? -1;
    for (const at of breakpoints) this.written.add(hashes[at]!);
    const readTokens = read >= 0 ? tokens[read]! : 0;
    const cachedTo = Math.max(read, last);
    const created = cachedTo >= 0 ? tokens[cachedTo]! - readTokens : 0;
    return { input_tokens: total - readTokens - created, cache_read_input_tokens: readTokens, cache_creation_input_tokens: created };
  }
}
