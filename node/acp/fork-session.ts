/**
 * A fork of a thread run by an ACP agent, made ready before the chat takes it (the fork flow awaits
 * `AcpRunner.prepareFork`): where the fork point is, the way the agent allows (fork-way.ts), and
 * the new session that way makes. The fork's runner is then made on that session (`clone`), so its
 * stored header names the session from the start.
 *
 * The point: the message asked for; while the source streams or waits for a permission, and no
 * message is named, its last finished reply (the prompt in flight and what answers it stay the
 * source's). A native fork names the agent's id of the last reply at or before the point; a user
 * message after it (`F` on a prompt) is in the fork's history and the fork answers it.
 */

import type { McpServer } from "@agentclientprotocol/sdk/unstable";
import type { History } from "../core/history.ts";
import type { AcpConnection, AcpSession } from "./connection.ts";
import type { AcpFiles } from "./files.ts";
import { APPROXIMATE, forksAtMessage, forkWay } from "./fork-way.ts";
import type { SessionOffer } from "./settings.ts";
import { agentMessageId } from "./transcript.ts";

/** A fork's session, made: handed to the source's `clone` through the fork flow. */
export class AcpForkSession {
  constructor(
    readonly agent: string,
    readonly conn: AcpConnection,
    readonly sessionId: string,
    /** The folder its session works in (a worktree of its own, or its source's). */
    readonly cwd: string,
    /** The fork's conversation as tine draws it. */
    readonly history: History,
    /** Set for a seeded fork: what its banner says it loses, and the conversation its first prompt carries. */
    readonly seeded: { readonly note: string; readonly seed: string } | null,
    /** What its session's answer said of its settings. */
    readonly offer: SessionOffer,
  ) {}
}

/** What preparing a fork needs of its source. */
export type ForkSource = {
  readonly agent: string;
  readonly sessionId: string;
  /** The fork's folder (its source's, or a worktree of its own): its new session works there. */
  readonly cwd: string;
  readonly files: AcpFiles;
  readonly history: History;
  /** Entries of finished turns: while `busy`, the rest is the turn in flight. */
  readonly settledLength: number;
  /** It streams or waits for a permission. */
  readonly busy: boolean;
  /** Its session, live on its agent's process (taken up when it is not); rejects when it cannot be. */
  readonly session: () => Promise<AcpConnection>;
  /** The agent's process, for a new session (when the source's cannot be taken up). */
  readonly connection: () => Promise<AcpConnection>;
  /** The mode setup names for the agent, set on the new session. */
  readonly mode: string | null;
  /** tine's MCP servers as this agent's process takes them: the fork's session gets them as a new one does. */
  readonly mcpServers: (conn: AcpConnection) => McpServer[];
};

/** The fork at `at` (undefined: the latest finished message), made ready: where it is taken, and its session. */
export async function prepareAcpFork(source: ForkSource, at: number | undefined): Promise<{ atMessage: number; fork: AcpForkSession }> {
  const { history } = source;
  const limit = source.busy ? source.settledLength : history.length;
  const lastReply = (upTo: number) => {
    for (let i = Math.min(upTo, history.length - 1); i >= 0; i--) if (history.at(i).message.role === "assistant") return i;
    return -1;
  };
  // Mid-turn with no message named: the last finished reply (the prompt in flight stays the source's).
  const point = at === undefined ? (source.busy ? lastReply(limit - 1) : limit - 1) : Math.min(at, limit - 1);
  const reply = lastReply(point);
  // A user's messages after that reply (a prompt to answer again) go with the fork; tool results without their call do not.
  const carried = history
    .messages()
    .slice(reply + 1, point + 1)
    .every((m) => m.role === "user" && m.content.every((b) => b.type === "text"));
  const end = carried ? point : reply;
  const forked = history.prefix(end + 1);
  let conn: AcpConnection | null = null;
  try {
    conn = await source.session();
  } catch {
    // Its session cannot be taken up: the seeded way, on a new session of the agent's process.
  }
  const latest = !source.busy && lastReply(history.length - 1) === reply;
  const messageId = reply < 0 ? null : agentMessageId(history, reply);
  const can = conn
    ? { fork: conn.summary.fork, atMessage: forksAtMessage(conn.summary), sourceLive: true }
    : { fork: false, atMessage: false, sourceLive: false };
  const way = forkWay(can, { messageId, afterReply: reply >= 0, latest });
  const made = async (c: AcpConnection, { sessionId, response }: AcpSession, seeded: AcpForkSession["seeded"]) => {
    if (source.mode) await c.setMode(sessionId, source.mode);
    return { atMessage: end, fork: new AcpForkSession(source.agent, c, sessionId, source.cwd, forked, seeded, response) };
  };
  const fresh = async (why: string | null) => {
    const c = conn ?? (await source.connection());
    const session = await c.newSession(source.cwd, source.mcpServers(c), source.files);
    const conversation = history.prefix(reply + 1);
    return made(c, session, why === null ? null : { note: `${APPROXIMATE}; ${why}`, seed: seedText(conversation) });
  };
  switch (way.way) {
    case "at-message":
    case "whole-session": {
      const id = way.way === "at-message" ? way.messageId : undefined;
      const session = await conn!.forkSession(source.sessionId, source.cwd, source.mcpServers(conn!), source.files, id);
      return made(conn!, session, null);
    }
    case "new-session":
      return fresh(null);
    case "seeded":
      return fresh(way.why);
  }
}

/**
 * The conversation up to the fork point as one context-transfer prompt: each message's text, tool
 * calls and results as text (thinking left out). Sent before the fork's first prompt, never drawn.
 */
export function seedText(history: History): string {
  const parts: string[] = [];
  for (const m of history.messages()) {
    for (const b of m.content) {
      if (b.type === "text") parts.push(`${m.role === "user" ? "User" : "Assistant"}: ${b.text}`);
      else if (b.type === "tool_use") parts.push(`Assistant called tool ${b.name} with ${JSON.stringify(b.input)}`);
      else if (b.type === "tool_result")
        parts.push(`Tool result${b.is_error ? " (error)" : ""}: ${typeof b.content === "string" ? b.content : JSON.stringify(b.content)}`);
    }
  }
  return [
    "This session continues an earlier conversation, forked from it. The conversation so far, as a transcript:",
    "<conversation>",
    ...parts,
    "</conversation>",
    "Take it as what was said and done so far; the next message is the user's.",
  ].join("\n\n");
}
