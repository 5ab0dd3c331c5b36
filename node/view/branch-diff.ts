/**
 * A branch as plain text for `:Tine diff`: one section per message, headed by its number and
 * role, so Neovim's diff mode lines the two branches up message by message.
 */

import type { History } from "../core/history.ts";
import type { NativeMessage } from "../core/native.ts";
import { appendAll } from "../util/arrays.ts";

/** Both branches after their common prefix (compared by content), one section per message. */
export function diffBranches(...sides: { title: string; history: History }[]): {
  common: number;
  sides: { title: string; lines: string[] }[];
} {
  const [a, b] = [sides[0]!.history, sides[1]!.history];
  let common = 0;
  while (
    common < a.length &&
    common < b.length &&
    (a.at(common) === b.at(common) || JSON.stringify(a.at(common).message) === JSON.stringify(b.at(common).message))
  )
    common++;
  return { common, sides: sides.map((s) => ({ title: s.title, lines: branchLines(s.history.messages().slice(common), common) })) };
}

export function branchLines(messages: readonly NativeMessage[], firstIndex: number): string[] {
  const out: string[] = [];
  messages.forEach((m, i) => {
    out.push(`── message ${firstIndex + i + 1} · ${m.role === "user" ? "You" : "Claude"} ──`);
    for (const b of m.content) {
      switch (b.type) {
        case "text":
          appendAll(out, b.text.split("\n"));
          break;
        case "thinking":
          out.push(`▸ Thinking (${b.thinking.length} chars)`);
          break;
        case "redacted_thinking":
          out.push("▸ Thinking (redacted)");
          break;
        case "tool_use":
        case "server_tool_use":
          out.push(`🔧 ${b.name} ${JSON.stringify(b.input)}`);
          break;
        case "tool_result": {
          const text =
            typeof b.content === "string"
              ? b.content
              : (b.content ?? []).map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join("\n");
          out.push(`→ ${b.is_error ? "error: " : ""}${text.split("\n")[0] ?? ""}${text.includes("\n") ? " …" : ""}`);
          break;
        }
        case "web_search_tool_result":
          out.push(`→ ${Array.isArray(b.content) ? b.content.length : 0} search results`);
          break;
      }
    }
    out.push("");
  });
  return out;
}
