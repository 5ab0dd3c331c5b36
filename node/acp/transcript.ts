/**
 * An ACP session's `session/update` stream folded into what tine draws: a History of native,
 * Anthropic-shaped messages (the user's prompt; the agent's text, thinking and tool_use blocks;
 * a user message of tool_result blocks after each group of tool calls), plus the session's state
 * that is not conversation (commands, mode, usage, title, notices), kept beside it.
 *
 * A turn is held open as segments (one per group of agent output between tool results) while it
 * streams, since a tool call's updates may come after the agent has gone on; `endTurn` commits it
 * with its stop reason and usage. Updates for anything else (an unknown tool call, kinds tine does
 * not draw) change nothing but the state they carry: nothing from an agent is trusted to be well
 * ordered.
 *
 * Text that is not the model's: tine says it shows notices (`session.notices`), and an agent that
 * reads that sends `notice` updates. One that does not, like the Claude adapter before it did,
 * streams its own warnings (a billing notice against a gateway, shared/acp.md) as
 * agent_message_chunk without a `messageId`, while every
 * chunk of the model's carries the API message id. So once a session has labelled its chunks
 * (one came with a `messageId`), a chunk without one, or with an empty one, is the agent talking,
 * not the model: it goes to `state.notices`, not into the reply (tine's transcript holds what the
 * model said, and the thread's banner shows the latest notices). An agent that never labels its chunks (the field
 * is unstable; most do not send it) has every chunk taken as the model's.
 */
import type { AvailableCommand, PlanEntry, PromptResponse, SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { History } from "../core/history.ts";
import {
  type AssistantBlock,
  assistantMessage,
  type Entry,
  entry,
  type ResponseMeta,
  type UserBlock,
  userMessage,
} from "../core/native.ts";
import { blockText, type ToolCallState, toolEnded, toolFields, toolResult, toolUse } from "./tool-text.ts";
import { type AgentNotice, keptStop, usageOf } from "./turn-words.ts";

/** What the session says besides its conversation. */
export type AcpSessionState = {
  readonly commands: readonly AvailableCommand[];
  readonly modeId: string | null;
  /** The context window as the agent counts it (usage_update), with the session's cost so far when it says it. */
  readonly context: { readonly used: number; readonly size: number; readonly cost: { amount: number; currency: string } | null } | null;
  readonly title: string | null;
  /** What the agent told the user that is not the model's (`notice` updates, and chunks as the module's comment says), oldest first. */
  readonly notices: readonly AgentNotice[];
  readonly plan: readonly PlanEntry[];
};

/** The updates that say a session's state, not its conversation (commands, mode, config options, usage, title). */
const STATE_KINDS: ReadonlySet<SessionUpdate["sessionUpdate"]> = new Set([
  "available_commands_update",
  "current_mode_update",
  "config_option_update",
  "usage_update",
  "session_info_update",
]);
export const isSessionState = (update: SessionUpdate): boolean => STATE_KINDS.has(update.sessionUpdate);

/** How many finished turns' call ids a transcript remembers (see `finished`). */
const FINISHED_CALLS = 1000;

/** How many notices a session keeps (the latest): they are shown, not history. */
const KEPT_NOTICES = 20;

type Segment = {
  messageId: string | null;
  /** Blocks in order; a text or thinking block grows while chunks of the same kind come. */
  blocks: AssistantBlock[];
  /** Tool calls of this segment, in the order they came. */
  tools: ToolCallState[];
  /** Where the plan's text block is, when the plan was shown in this segment. */
  planAt: number | null;
};

const EMPTY_STATE: AcpSessionState = { commands: [], modeId: null, context: null, title: null, notices: [], plan: [] };

export class AcpTranscript {
  private committed: History;
  private segments: Segment[] = [];
  private readonly tools = new Map<string, ToolCallState>();
  /**
   * The calls of finished turns (the latest FINISHED_CALLS): an agent's late word on one (a hook's
   * final diff after the turn's answer) changes nothing, where it would have drawn the call again.
   */
  private readonly finished = new Set<string>();
  /** Which segment each tool call is in (a late update changes that segment). */
  private readonly toolSegment = new Map<string, Segment>();
  /**
   * `committed` with every open segment but the last, while none of them changed (null: to be
   * made again): a read after each update redoes only the last segment, not the whole turn.
   */
  private settled: History | null = null;
  private cached: History | null = null;
  /** Whether this session's agent labels the model's chunks with a messageId (see the module's comment). */
  private labelled = false;
  state: AcpSessionState = EMPTY_STATE;

  constructor(history: History = History.empty) {
    this.committed = history;
  }

  /** The conversation as drawn now, the open turn included. */
  get history(): History {
    if (this.cached) return this.cached;
    const last = this.segments.at(-1);
    if (!last) {
      this.cached = this.committed;
      return this.cached;
    }
    this.settled ??= this.committed.push(...this.segments.slice(0, -1).flatMap((segment) => this.entriesOf(segment, false)));
    // share(): this read's tail never goes into the settled value's storage.
    this.cached = this.settled.share().push(...this.entriesOf(last, false));
    return this.cached;
  }

  /** How many entries are finished turns' (the open turn's are after them): a fork while it streams is taken within these. */
  get settledLength(): number {
    return this.committed.length;
  }

  /** The user's prompt, as sent: starts a turn. */
  prompt(blocks: readonly UserBlock[]): void {
    this.commitOpen(null);
    // Kept as sent, block by block: a retry sends them again the same way (an `@file` as a resource).
    this.committed = this.committed.push(entry(userMessage(blocks.filter((b) => b.type === "text"))));
    this.cached = null;
  }

  /** One `session/update`. */
  apply(update: SessionUpdate): void {
    switch (update.sessionUpdate) {
      case "agent_message_chunk":
        if (update.messageId) this.labelled = true;
        else if (this.labelled || update.messageId === "") {
          this.notice("info", blockText(update.content));
          return;
        }
        this.chunk("text", blockText(update.content), update.messageId ?? null);
        return;
      case "agent_thought_chunk":
        if (update.messageId) this.labelled = true;
        this.chunk("thinking", blockText(update.content), update.messageId ?? null);
        return;
      case "user_message_chunk":
        // A replayed conversation (session/load): the user's message, as the agent kept it.
        this.commitOpen(null);
        this.committed = appendUserText(this.committed, blockText(update.content));
        this.cached = null;
        return;
      case "tool_call":
        this.toolCall(update.toolCallId, toolFields(update));
        return;
      case "tool_call_update":
        this.toolUpdate(update);
        return;
      case "plan":
        this.showPlan(update.entries);
        return;
      case "available_commands_update":
        this.state = { ...this.state, commands: update.availableCommands };
        return;
      case "current_mode_update":
        this.state = { ...this.state, modeId: update.currentModeId };
        return;
      case "usage_update":
        this.state = { ...this.state, context: { used: update.used, size: update.size, cost: update.cost ?? null } };
        return;
      case "session_info_update":
        if (update.title !== undefined) this.state = { ...this.state, title: update.title };
        return;
      case "notice":
        this.notice(update.severity, update.description ? `${update.title}: ${update.description}` : update.title);
        return;
      default:
        // Kinds tine does not draw yet (config options, compaction, subagents, …): their state is the agent's.
        return;
    }
  }

  /** The turn ended (`session/prompt` answered): commits it with its stop reason and usage. */
  endTurn(response: PromptResponse): void {
    const stopReason = keptStop(response.stopReason);
    this.commitOpen({ stopReason, usage: usageOf(response.usage ?? null), ...(stopReason === "aborted" ? { interrupted: true } : {}) });
  }

  /** The turn was cut off (the agent exited, the connection failed): what came is kept, marked interrupted. */
  interruptTurn(why: string): void {
    this.commitOpen({ stopReason: "error", usage: usageOf(null), interrupted: true, notes: [why] });
  }

  private notice(severity: string, text: string): void {
    if (text) this.state = { ...this.state, notices: [...this.state.notices, { severity, text }].slice(-KEPT_NOTICES) };
  }

  /**
   * The segment agent output goes into: a new one after tool calls (their results come between).
   * A chunk labelled with the model's message id goes by that id instead: into the open segment
   * when it is of the same message, or when that segment's calls came before any of its text and
   * none has started (an adapter may announce a call ahead of the text the model wrote before it:
   * claude-agent-acp does, from a permission request or a hook); into a new one when it is of
   * another message, tool calls between or not, and that one takes the calls announced early for
   * it (`takeEarlyCalls`).
   */
  private open(messageId: string | null, forTool: boolean): Segment {
    const last = this.segments.at(-1);
    if (last && (forTool || joins(last, messageId))) {
      last.messageId ??= messageId;
      return last;
    }
    const segment: Segment = { messageId, blocks: [], tools: [], planAt: null };
    if (last && messageId !== null) this.takeEarlyCalls(last, segment);
    // The last segment is settled now: the settled value grows by it rather than being made again.
    if (last && this.settled) this.settled = this.settled.push(...this.entriesOf(last, false));
    this.segments.push(segment);
    return segment;
  }

  /**
   * A new message's text came: the calls of segment `from` that have not started and were
   * announced after one of its calls ended are the new message's, announced early. The model
   * writes its next message only once every call of the last has a result, so a call still
   * pending then is not the last message's (an agent that never says a call ended moves none).
   */
  private takeEarlyCalls(from: Segment, to: Segment): void {
    const firstEnded = from.tools.findIndex(toolEnded);
    if (firstEnded < 0) return;
    const early = new Set(from.tools.slice(firstEnded + 1).filter((t) => t.status === "pending"));
    if (early.size === 0) return;
    const ids = new Set([...early].map((t) => t.id));
    const moves = (b: AssistantBlock) => b.type === "tool_use" && ids.has(b.id);
    if (from.planAt !== null) from.planAt -= from.blocks.slice(0, from.planAt).filter(moves).length;
    from.tools = from.tools.filter((t) => !early.has(t));
    from.blocks = from.blocks.filter((b) => !moves(b));
    for (const t of early) {
      to.tools.push(t);
      to.blocks.push({ type: "tool_use", id: t.id, name: "", input: {} });
      this.toolSegment.set(t.id, to);
    }
  }

  private chunk(kind: "text" | "thinking", text: string, messageId: string | null): void {
    if (!text) return;
    const segment = this.open(messageId, false);
    // The model writes before its calls: text that comes after calls of its own message (announced
    // early, see `open`) goes before them.
    let at = segment.blocks.length;
    while (at > 0 && segment.blocks[at - 1]!.type === "tool_use") at--;
    const before = segment.blocks[at - 1];
    if (kind === "text" && before?.type === "text" && segment.planAt !== at - 1) {
      segment.blocks[at - 1] = { type: "text", text: before.text + text };
    } else if (kind === "thinking" && before?.type === "thinking") {
      segment.blocks[at - 1] = { type: "thinking", thinking: before.thinking + text, signature: "" };
    } else {
      segment.blocks.splice(at, 0, kind === "text" ? { type: "text", text } : { type: "thinking", thinking: text, signature: "" });
      if (segment.planAt !== null && segment.planAt >= at) segment.planAt++;
    }
    this.cached = null;
  }

  private toolCall(id: string, fields: Omit<ToolCallState, "id">): void {
    // An id the agent uses again for a new call (ids are the session's, but nothing from an agent is trusted) is that call.
    this.finished.delete(id);
    const known = this.tools.get(id);
    if (known) {
      // A repeated tool_call is an update of the same call.
      Object.assign(known, fields);
      this.changed(id);
      return;
    }
    const state: ToolCallState = { id, ...fields };
    this.tools.set(id, state);
    const segment = this.open(null, true);
    this.toolSegment.set(id, segment);
    segment.tools.push(state);
    segment.blocks.push({ type: "tool_use", id, name: "", input: {} });
    this.cached = null;
  }

  private toolUpdate(update: Extract<SessionUpdate, { sessionUpdate: "tool_call_update" }>): void {
    const state = this.tools.get(update.toolCallId);
    if (!state && this.finished.has(update.toolCallId)) return;
    if (!state) {
      // An update for a call never announced: drawn as a call from here on.
      this.toolCall(update.toolCallId, toolFields(update));
      return;
    }
    if (update.title != null) state.title = update.title;
    if (update.name != null) state.name = update.name;
    if (update.kind != null) state.kind = update.kind;
    if (update.status != null) state.status = update.status;
    if (update.content != null) state.content = update.content;
    if (update.rawInput !== undefined) state.rawInput = update.rawInput;
    if (update.rawOutput !== undefined) state.rawOutput = update.rawOutput;
    this.changed(update.toolCallId);
  }

  /** Tool call `id` changed: what is drawn is made again, from its segment on. */
  private changed(id: string): void {
    if (this.toolSegment.get(id) !== this.segments.at(-1)) this.settled = null;
    this.cached = null;
  }

  /** The plan as a short text block; a later plan in the same segment replaces it. */
  private showPlan(entries: readonly PlanEntry[]): void {
    this.state = { ...this.state, plan: entries };
    const mark = { completed: "✓", in_progress: "▸", pending: "·" } as const;
    const text = ["Plan:", ...entries.map((e) => `${mark[e.status]} ${e.content}`)].join("\n");
    const segment = this.open(null, false);
    if (segment.planAt !== null) segment.blocks[segment.planAt] = { type: "text", text };
    else {
      segment.planAt = segment.blocks.length;
      segment.blocks.push({ type: "text", text });
    }
    this.cached = null;
  }

  /**
   * A segment's entries: its assistant message, then the results of its calls that ended (at the
   * turn's end, `meta` given, every call's, and the message carries `meta`).
   */
  private entriesOf(segment: Segment, turnEnded: boolean, meta?: ResponseMeta): Entry[] {
    const blocks = segment.blocks.map((b) => (b.type === "tool_use" ? toolUse(this.tools.get(b.id)!) : b));
    if (blocks.length === 0) return [];
    const results = segment.tools.filter((t) => turnEnded || toolEnded(t)).map((t) => toolResult(t, turnEnded));
    const message = entry(assistantMessage(blocks), meta);
    return results.length ? [message, entry(userMessage(results))] : [message];
  }

  private commitOpen(meta: ResponseMeta | null): void {
    const lastAt = this.segments.length - 1;
    // The agent's ids of the turn's messages (those with blocks: the others make no entry), kept with its last: a fork's point.
    const ids = this.segments.filter((s) => s.blocks.length > 0).map((s) => s.messageId);
    const base = meta ?? { stopReason: "end_turn", usage: usageOf(null) };
    const turnMeta: ResponseMeta = ids.some((id) => id !== null) ? { ...base, agentMessageIds: ids } : base;
    const entries = this.segments.flatMap((segment, i) => this.entriesOf(segment, true, i === lastAt ? turnMeta : undefined));
    this.committed = this.committed.push(...entries);
    this.segments = [];
    for (const id of this.tools.keys()) {
      this.finished.add(id);
      if (this.finished.size > FINISHED_CALLS) this.finished.delete(this.finished.values().next().value!);
    }
    this.tools.clear();
    this.toolSegment.clear();
    this.settled = null;
    this.cached = null;
  }
}

/**
 * The agent's id of assistant message `at` of `history` (ACP's `messageId` its chunks carried), or
 * null: none given, or not an assistant message of a finished turn. The ids are kept with the
 * turn's last message (`agentMessageIds`), one per assistant message of the turn.
 */
export function agentMessageId(history: History, at: number): string | null {
  if (at < 0 || at >= history.length || history.at(at).message.role !== "assistant") return null;
  let after = 0;
  for (let j = at; j < history.length; j++) {
    const e = history.at(j);
    if (e.message.role !== "assistant") continue;
    after++;
    if (!e.meta) continue;
    const ids = e.meta.agentMessageIds ?? [];
    return ids[ids.length - after] ?? null;
  }
  return null;
}

/** Whether a chunk labelled `messageId` (null: unlabelled) goes on in segment `last` (see `AcpTranscript.open`). */
function joins(last: Segment, messageId: string | null): boolean {
  if (messageId === null) return last.tools.length === 0;
  if (last.messageId !== null) return last.messageId === messageId;
  return last.tools.every((t) => t.status === "pending");
}

function appendUserText(history: History, text: string): History {
  const last = history.last();
  if (last?.message.role === "user" && last.message.content.every((b) => b.type === "text")) {
    const blocks = last.message.content;
    const prior = blocks.at(-1);
    const merged =
      prior?.type === "text"
        ? [...blocks.slice(0, -1), { type: "text" as const, text: prior.text + text }]
        : [...blocks, { type: "text" as const, text }];
    return history.replaceLast(entry(userMessage(merged)));
  }
  return history.push(entry(userMessage([{ type: "text", text }])));
}
