/**
 * The prompt-cache view of a request: system, tools and message blocks in order, up to the last
 * cache breakpoint, without the markers. A request reads another's cache when its sequence starts
 * with the other's.
 */
import type Anthropic from "@anthropic-ai/sdk";

type Body = Anthropic.Messages.MessageCreateParams;

const strip = (v: unknown): unknown => JSON.parse(JSON.stringify(v, (k, x) => (k === "cache_control" ? undefined : x)));

/** Whether `item` carries a cache breakpoint. */
const marked = (item: object) => "cache_control" in item && !!item.cache_control;

/** A message's content as blocks (tine sends blocks; a string content is one text block). */
const contentBlocks = (m: Anthropic.Messages.MessageParam) =>
  typeof m.content === "string" ? [{ type: "text" as const, text: m.content }] : m.content;

/** The items of `body` in cache order, up to its last breakpoint (with `toEnd`, all of them). */
function sequence(body: Body, toEnd: boolean): unknown[] {
  const seq: { item: unknown; marked: boolean }[] = [];
  for (const t of body.tools ?? []) seq.push({ item: { tool: t }, marked: marked(t) });
  const system = typeof body.system === "string" ? [{ type: "text" as const, text: body.system }] : (body.system ?? []);
  for (const s of system) seq.push({ item: { system: s }, marked: marked(s) });
  body.messages.forEach((m, i) => {
    for (const b of contentBlocks(m)) seq.push({ item: { message: i, role: m.role, block: b }, marked: marked(b) });
  });
  let last = toEnd ? seq.length - 1 : -1;
  for (const [i, s] of seq.entries()) if (s.marked) last = Math.max(last, i);
  return seq.slice(0, last + 1).map((s) => strip(s.item));
}

export const cachedPrefix = (body: Body): unknown[] => sequence(body, false);

/** The blocks of `body`, stripped, in cache order (for comparison against a cachedPrefix). */
export const allBlocks = (body: Body): unknown[] => sequence(body, true);

export function readsCacheOf(later: Body, earlier: Body): boolean {
  const prefix = cachedPrefix(earlier);
  const blocks = allBlocks(later);
  return prefix.length > 0 && JSON.stringify(blocks.slice(0, prefix.length)) === JSON.stringify(prefix);
}
