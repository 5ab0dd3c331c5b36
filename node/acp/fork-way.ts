/**
 * How a thread run by an ACP agent is forked: the best way the agent allows, tried in this order
 * (#33): a native fork at the fork point's message (`session/fork` naming the message in
 * `_meta.jetbrains.air.fork`); a native fork of the whole session when the point is its latest
 * message; otherwise a new session seeded with the conversation up to the point as one
 * context-transfer prompt (an approximate fork). A point before any reply of the agent's needs no
 * fork at all: a new session, exact. One pure function of what the agent can do and where the
 * point is, so each rung is decided here and nowhere else.
 */
import type { AgentSummary } from "./summary.ts";

/** What the agent can do, as its `initialize` answer said (summary.ts) and the source's session allows. */
export type ForkAbilities = {
  /** `sessionCapabilities.fork`: it forks a session (at its tip at least). */
  readonly fork: boolean;
  /** It takes a fork point (`_meta.jetbrains.air.fork.messageId`): see `forksAtMessage`. */
  readonly atMessage: boolean;
  /** The source's session can still be taken up (resumed or loaded): a native fork starts from it. */
  readonly sourceLive: boolean;
};

/** Where the fork point is in the source's conversation. */
export type ForkPoint = {
  /** The agent's id of the last reply at or before the point, or null: none of its replies carries one. */
  readonly messageId: string | null;
  /** Some reply of the agent's is at or before the point (else the fork starts a new conversation). */
  readonly afterReply: boolean;
  /** The point is the session's latest finished message: a fork of the whole session is the fork at it. */
  readonly latest: boolean;
};

export type ForkWay =
  | { readonly way: "at-message"; readonly messageId: string }
  | { readonly way: "whole-session" }
  /** Nothing of the agent's to carry over: a new session, the same conversation. */
  | { readonly way: "new-session" }
  /** A new session told the conversation in one prompt; `why`: why no native fork could be taken. */
  | { readonly way: "seeded"; readonly why: string };

export function forkWay(can: ForkAbilities, point: ForkPoint): ForkWay {
  if (!point.afterReply) return { way: "new-session" };
  if (!can.sourceLive) return { way: "seeded", why: "its session can no longer be taken up" };
  if (can.fork && can.atMessage && point.messageId !== null) return { way: "at-message", messageId: point.messageId };
  if (can.fork && point.latest) return { way: "whole-session" };
  if (!can.fork) return { way: "seeded", why: "the agent cannot fork sessions" };
  if (can.atMessage) return { way: "seeded", why: "the agent gave no id for the reply at the fork point" };
  return { way: "seeded", why: "the agent forks only at its latest message" };
}

/**
 * The agents known to take a fork point in `_meta.jetbrains.air.fork` (by the name their
 * `initialize` gives, `agentInfo.name`): the Claude adapter (tried: an unknown id is refused with
 * -32602). An agent that would ignore the field would fork the whole session and say nothing, so
 * the field is sent only to these; ACP has no capability that says it.
 */
const FORK_POINT_AGENTS: ReadonlySet<string> = new Set(["@agentclientprotocol/claude-agent-acp"]);

export function forksAtMessage(summary: Pick<AgentSummary, "fork"> & { readonly id: string | null }): boolean {
  return summary.fork && summary.id !== null && FORK_POINT_AGENTS.has(summary.id);
}

/** What a seeded fork loses, said in its banner and the list. */
export const APPROXIMATE =
  "≈ approximate fork: a new session told the conversation up to the fork point in one prompt (tool calls as text, no thinking, no prompt cache)";
