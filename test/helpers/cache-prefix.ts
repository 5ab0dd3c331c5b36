/**
 * The prompt-cache view of a request: system, tools and message blocks in order, up to the last
 * cache breakpoint, without the markers. A request reads another's cache when its sequence starts
 * with the other's.
 */
type Json = Record<string, any>;

const strip = (v: unknown) => JSON.parse(JSON.stringify(v, (k, x) => (k === "cache_control" ? undefined : x)));

export function cachedPrefix(body: Json): unknown[] {
  const seq: { item: unknown; marked: boolean }[] = [];
  for (const t of body.tools ?? []) seq.push({ item: { tool: t }, marked: !!t.cache_control });
  for (const s of body.system ?? []) seq.push({ item: { system: s }, marked: !!s.cache_control });
  body.messages.forEach((m: Json, i: number) => {
    for (const b of m.content) seq.push({ item: { message: i, role: m.role, block: b }, marked: !!b.cache_control });
  });
  let last = -1;
  for (const [i, s] of seq.entries()) if (s.marked) last = i;
  return seq.slice(0, last + 1).map((s) => strip(s.item));
}

/** The blocks of `body`, stripped, in cache order (for comparison against a cachedPrefix). */
export function allBlocks(body: Json): unknown[] {
  return cachedPrefix({
    ...body,
    messages: body.messages.map((m: Json, i: number) =>
      i === body.messages.length - 1
        ? {
            ...m,
            content: m.content.map((b: Json, j: number) =>
              j === m.content.length - 1 ? { ...b, cache_control: { type: "ephemeral" } } : b,
            ),
          }
        : m,
    ),
  });
}

export function readsCacheOf(later: Json, earlier: Json): boolean {
  const prefix = cachedPrefix(earlier);
  const blocks = allBlocks(later);
  return prefix.length > 0 && JSON.stringify(blocks.slice(0, prefix.length)) === JSON.stringify(prefix);
}
