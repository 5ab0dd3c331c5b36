/**
 * The commands a thread's program takes as a message starting with `/` (an ACP agent's
 * `available_commands_update`: `/compact`, `/init`, `/review`, …), which completion offers at the
 * start of a message in its thread's input. They come from the agent and are not trusted: a name
 * is a short word, a description one short line, and never more than a few hundred of them.
 */

import { oneLine } from "./one-line.ts";

export type AgentCommand = { readonly name: string; readonly description: string; readonly hint: string };

/** At most this many commands are offered. */
const MAX_COMMANDS = 200;
const NAME = /^[\p{L}\p{N}_.:-]{1,64}$/u;

const line = (v: unknown, max: number) => (typeof v === "string" ? oneLine(v, max) : "");

/** The commands an agent announced, as tine offers them: malformed ones left out. */
export function agentCommandsOf(announced: readonly unknown[]): AgentCommand[] {
  const out: AgentCommand[] = [];
  for (const c of announced) {
    if (out.length >= MAX_COMMANDS) break;
    if (typeof c !== "object" || c === null) continue;
    const { name, description, input } = c as { name?: unknown; description?: unknown; input?: { hint?: unknown } | null };
    const bare = typeof name === "string" ? name.replace(/^\//, "") : "";
    if (!NAME.test(bare)) continue;
    out.push({ name: bare, description: line(description, 200), hint: line(input?.hint, 80) });
  }
  return out;
}
