/**
 * The first screen of a long stored thread shown before the thread is read whole: its last
 * messages (store/tail.ts) drawn as its display draws them with nothing expanded, only the last
 * `budget` bytes or so of lines. The thread's own render replaces them once it is loaded.
 */
import type { Entry } from "../core/native.ts";
import { renderEntry } from "./render.ts";

const NOTHING_EXPANDED: ReadonlySet<string> = new Set();

/** The lines of the last entries, `entries[0]` being message `firstIndex`: from the end up, about `budget` bytes. */
export function endLines(entries: readonly Entry[], firstIndex: number, budget: number): string[] {
  const parts: (readonly string[])[] = [];
  let bytes = 0;
  for (let j = entries.length - 1; j >= 0 && bytes < budget; j--) {
    const e = entries[j]!;
    // A user turn's tool results are titled with the tool names of the call before it.
    const prev = j > 0 && e.message.role === "user" ? entries[j - 1]!.message.content : [];
    const toolNames = new Map(prev.flatMap((b) => (b.type === "tool_use" ? [[b.id, b.name] as [string, string]] : [])));
    let lines = renderEntry(e, { index: firstIndex + j, expanded: NOTHING_EXPANDED, toolNames }).lines;
    let size = 0;
    let from = lines.length;
    while (from > 0 && bytes + size < budget) size += lines[--from]!.length + 1;
    if (from > 0) lines = lines.slice(from);
    bytes += size;
    parts.push(lines);
  }
  const out: string[] = [];
  for (let i = parts.length - 1; i >= 0; i--) for (const line of parts[i]!) out.push(line);
  return out;
}
