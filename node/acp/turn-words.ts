/** How an ACP runner says what an agent gave: its turn's end as tine's stop reasons, a prompt's text. */
import type { StopReason } from "../core/agent.ts";
import type { History } from "../core/history.ts";
import type { UserBlock } from "../core/native.ts";

/** An ACP turn's end as its transcript keeps it: a cancelled turn is one of tine's aborted ones; any other as the agent said it. */
export const keptStop = (reason: string): string => (reason === "cancelled" ? "aborted" : reason);

/** An ACP turn's end as tine's stop reasons (the thread's status). */
export function stopOf(reason: string): StopReason {
  const kept = keptStop(reason);
  switch (kept) {
    case "aborted":
    case "max_tokens":
    case "refusal":
      return kept;
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
