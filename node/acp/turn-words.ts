/** How an ACP runner says what an agent gave: its turn's end as tine's stop reasons, a prompt's text. */
import type { StopReason } from "../core/agent.ts";
import type { History } from "../core/history.ts";
import type { UserBlock } from "../core/native.ts";

/** How an ACP turn's end is shown as tine's stop reasons. */
export function stopOf(reason: string): StopReason {
  switch (reason) {
    case "cancelled":
      return "aborted";
    case "max_tokens":
      return "max_tokens";
    case "refusal":
      return "refusal";
    default:
      return "end_turn";
  }
}

export function textOf(blocks: readonly { type: string; text?: string }[]): string {
  return blocks.flatMap((b) => (b.type === "text" && typeof b.text === "string" ? [b.text] : [])).join("\n\n");
}

/** The last prompt in `history` that had any text, as it was sent (what `retry` sends again); null when none had. */
export function lastPrompt(history: History): readonly UserBlock[] | null {
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history.at(i).message;
    if (m.role === "user" && m.content.some((b) => b.type === "text")) return m.content;
  }
  return null;
}
