/** How an ACP runner says what an agent gave: its turn's end as tine's stop reasons, a prompt's text. */

import type { Usage as AcpUsage } from "@agentclientprotocol/sdk/unstable";
import type { StopReason } from "../core/agent.ts";
import type { History } from "../core/history.ts";
import type { Usage, UserBlock } from "../core/native.ts";
import { oneLine } from "../core/one-line.ts";
import type { AgentSummary } from "./summary.ts";

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

/** A notice of the agent's: `severity` as it said ("info", "warning", "error", or its own word). */
export type AgentNotice = { readonly severity: string; readonly text: string };

/** How many of the agent's latest notices its thread's banner shows. */
const SHOWN_NOTICES = 2;

/** An ACP thread's banner: who runs it, its settings, what it lost as a seeded fork, what went wrong, what the agent said. */
export function bannerLines(b: {
  readonly agent: string;
  readonly sessionId: string;
  readonly summary: AgentSummary | null;
  readonly takingUp: boolean;
  readonly chosen: string | null;
  readonly seededNote: string | null;
  readonly trouble: string | null;
  readonly notices: readonly AgentNotice[];
}): readonly string[] {
  const s = b.summary;
  const who = s?.name ? ` (${oneLine(s.name)}${s.version ? ` ${oneLine(s.version)}` : ""})` : "";
  const state = b.takingUp ? " · taking its session up…" : "";
  const lines = [`◆ Run by the ACP agent "${b.agent}"${who} · session ${b.sessionId}${state}`];
  if (b.chosen) lines.push(`◆ ${b.chosen}`);
  if (b.seededNote) lines.push(b.seededNote);
  if (b.trouble) lines.push(`⚠ ${b.trouble} · sending again tries again`);
  for (const n of b.notices.slice(-SHOWN_NOTICES))
    lines.push(`${n.severity === "info" ? "◆" : "⚠"} ${b.agent} says: ${oneLine(n.text, 200)}`);
  return lines;
}

/**
 * ACP's usage in tine's shape (the winbar's). The Claude and Codex adapters count input apart
 * from the cache, as the Messages API does (their totalTokens is the sum of the parts).
 */
export function usageOf(u: AcpUsage | null): Usage {
  return {
    input_tokens: u?.inputTokens ?? 0,
    output_tokens: u?.outputTokens ?? 0,
    cache_read_input_tokens: u?.cachedReadTokens ?? 0,
    cache_creation_input_tokens: u?.cachedWriteTokens ?? 0,
  };
}
