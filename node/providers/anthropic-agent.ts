/**
 * An Agent over the Anthropic Messages API (streaming, tool use, thinking, prompt caching).
 *
 * While a response streams, the finalized blocks of the assistant message are kept apart from the
 * block still in progress: the view appends deltas from the latter, and a fork copies the former.
 *
 * Over 300 lines: it is the one owner of a thread's history and of the stream still open on it;
 * every verb (send, retry, abort, rewind, fork, a response's end) changes both together. What
 * follows a failed attempt is retry-policy.ts's, the stream's events stream.ts's, the clean-up of
 * a turn cut short turn-cleanup.ts's.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Conversation, Runner, RunnerTraits, Surface, ThreadStatus } from "../chat/runner.ts";
import type { AgentMsg, AgentStatus, CloneOptions, OpenMessage } from "../core/agent.ts";
import { History } from "../core/history.ts";
import type { ModelChoice } from "../core/model-choice.ts";
import { type AssistantBlock, assistantMessage, entry, type RequestKey, type ResponseMeta, type UserBlock } from "../core/native.ts";
import type { RunnerSpec, ThreadInstructions } from "../core/runner-spec.ts";
import type { SideRequest } from "../core/side-request.ts";
import type { PinnedTools } from "../tools/source.ts";
import { sideRequest } from "../usage/side.ts";
import { giveWay } from "../util/fair-share.ts";
import { type Connection, MISSING_KEY_MESSAGE } from "./connection.ts";
import { withChoice } from "./models.ts";
import { buildRequest, oversizeRequest, type ProviderConfig, prefixKey } from "./request.ts";
import { afterFailedAttempt, OversizeRequest, sleep } from "./retry-policy.ts";
import { StallWatch } from "./stall-watch.ts";
import {
  applyEvent,
  interrupted,
  newStream,
  type PausedTurn,
  refusedResults,
  type Stream,
  turnUsage,
  usageOf,
  withPartialText,
  zeroUsage,
} from "./stream.ts";
import {
  ABORTED_BEFORE_TOOL_RAN,
  appendUserTurn,
  cleanAssistantBlocks,
  closeTurn,
  FORKED_BEFORE_TOOL_RAN,
  NOT_RUN_BESIDE_REFUSED,
  pausedTurnBlocks,
  resultsIn,
  stoppedBeforeToolRan,
} from "./turn-cleanup.ts";

/** Continuations of one turn before it is stopped and left to the user (each is billed). */
export const MAX_PAUSE_CONTINUATIONS = 8;

const API_SPEC: RunnerSpec = { kind: "api" };
/** tine's own agent: forks of it come back, and it is stored once it has something to store. */
export const API_TRAITS: RunnerTraits = { forkLifecycle: true, ownConversation: null, storedAtOnce: false, toolsThroughTine: true };
const TRANSCRIPT: Surface = { type: "transcript" };

/** tine's own runner: the conversation is here, rendered and driven by tine (it is its own `conversation`). */
export class AnthropicAgent implements Runner, Conversation {
  readonly conversation: Conversation = this;
  private stream: Stream | null = null;
  private key: { readonly choice: ModelChoice | null; readonly key: RequestKey } | null = null;
  readonly traits = API_TRAITS;
  readonly surface = TRANSCRIPT;
  readonly label = "";

  constructor(
    private readonly config: ProviderConfig,
    private readonly connection: Connection,
    private readonly dispatch: (msg: AgentMsg) => void,
    public history: History = History.empty,
    public status: AgentStatus = { type: "idle" },
    /** Sent after the configured system prompt in every request, as read when the thread started; kept by its clones. */
    private readonly instructions: ThreadInstructions | null = null,
    /** Tools offered after the configured ones (MCP servers'), fixed at the first request; shared with its clones. */
    private readonly moreTools: PinnedTools | null = null,
    /** Its own model and thinking (`:Tine model`); null: setup's. Kept by its clones. */
    private choice: ModelChoice | null = null,
  ) {}

  get spec(): RunnerSpec {
    return {
      ...API_SPEC,
      ...(this.instructions ? { instructions: this.instructions } : {}),
      ...(this.choice ? { model: this.choice } : {}),
    };
  }

  get modelName(): string {
    return this.choice?.model ?? this.config.model;
  }

  /** Its next requests name this model and thinking (the prompt cache of the old model is not read). */
  chooseModel(choice: ModelChoice): void {
    this.choice = choice;
  }

  /** The request for `history` as this thread sends it: setup's config with its own model, its instructions, its pinned tools. */
  private async params(
    history: History,
    signal: AbortSignal,
    paused?: readonly AssistantBlock[],
  ): Promise<Anthropic.Messages.MessageCreateParamsStreaming> {
    // The first request of a thread waits here for its MCP servers to start (abort stops the wait).
    const more = this.moreTools ? await this.moreTools.list(signal) : [];
    const own = withChoice(this.config, this.choice, this.config.thinkingBudgets);
    const config = more.length ? { ...own, tools: [...own.tools, ...more] } : own;
    return buildRequest(config, this.instructions?.text ?? "", history, paused);
  }

  /**
   * One request of its own, never added to the history: the first `upTo` messages and `prompt`
   * after them, sent as the thread's requests are (so it reads their prompt cache); the reply's
   * text and what the request used. Compaction's summary (compact/compaction.ts).
   */
  async summarize(upTo: number, prompt: string): Promise<{ text: string; request: SideRequest | null }> {
    const client = this.connection.client;
    if (!client) throw new Error(MISSING_KEY_MESSAGE);
    const controller = new AbortController();
    const params = await this.params(appendUserTurn(this.history.prefix(upTo), [{ type: "text", text: prompt }]), controller.signal);
    const oversize = oversizeRequest(params);
    if (oversize) throw new Error(oversize);
    let text = "";
    const usage = zeroUsage();
    for await (const event of await client.messages.create(params, { signal: controller.signal })) {
      if (event.type === "content_block_delta" && event.delta.type === "text_delta") text += event.delta.text;
      else usageOf(usage, event);
    }
    return { text: text.trim(), request: sideRequest("compact", params.model, usage) };
  }

  /** A stream that ended without its turn becoming an entry that keeps its usage: what it was billed is counted apart. */
  private billedApart(stream: Stream, kept: ResponseMeta | null): void {
    // The closed turn is last, or before the results that answer its tool calls.
    const n = this.history.length;
    if (kept && ((n > 0 && this.history.at(n - 1).meta === kept) || (n > 1 && this.history.at(n - 2).meta === kept))) return;
    const request = sideRequest("failed", stream.key?.model ?? this.nextRequest().model, kept?.usage ?? stream.usage);
    if (request) this.dispatch({ type: "side-request", request });
  }

  get open(): OpenMessage | null {
    return this.stream;
  }

  threadStatus(toolsPending: boolean): ThreadStatus {
    if (this.status.type === "streaming") return "streaming";
    if (toolsPending) return "waiting";
    if (this.status.type === "error") return "error";
    return "idle";
  }

  statusDetail(): string {
    return "";
  }

  /** What its next request is, for the cache: its config and instructions are fixed; its own model choice may change. */
  nextRequest(): RequestKey {
    if (this.key?.choice !== this.choice) {
      const config = withChoice(this.config, this.choice, this.config.thinkingBudgets);
      this.key = { choice: this.choice, key: { model: config.model, prefix: prefixKey(config, this.instructions?.text ?? "") } };
    }
    return this.key.key;
  }

  /** Nothing is held beyond a stream, which the thread aborts before it lets the agent go. */
  close(): void {}

  send(blocks: UserBlock[]): void {
    if (this.stream) throw new Error("the agent is streaming");
    this.history = appendUserTurn(this.history, blocks);
    void this.request();
  }

  rewind(history: History): void {
    const stream = this.stream;
    this.stream = null;
    stream?.controller.abort();
    this.history = history;
    this.setStatus({ type: "stopped", stopReason: "end_turn" });
  }

  /** After an error: the turn that failed (the history's last, a user message) is sent again. */
  retry(): void {
    if (this.stream) throw new Error("the agent is streaming");
    if (this.status.type !== "error" || this.history.last()?.message.role !== "user")
      throw new Error("there is no failed turn to send again");
    void this.request();
  }

  answer(): void {
    if (this.stream) throw new Error("the agent is streaming");
    if (this.history.last()?.message.role !== "user") throw new Error("there is no message to answer");
    void this.request();
  }

  /**
   * After an error: a new send replaces the text of the turn that failed instead of joining it
   * (tool results in that turn stay). Returns the text that was replaced.
   */
  replaceFailed(blocks: UserBlock[]): string {
    if (this.stream) throw new Error("the agent is streaming");
    const last = this.history.last()?.message;
    if (this.status.type !== "error" || last?.role !== "user") {
      this.send(blocks);
      return "";
    }
    const failed = last.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
    const kept = last.content.filter((b) => b.type !== "text");
    this.history = this.history.prefix(this.history.length - 1);
    if (kept.length) this.history = appendUserTurn(this.history, [...kept]);
    this.send(blocks);
    return failed;
  }

  abort(): void {
    const stream = this.stream;
    if (stream) {
      this.stream = null;
      stream.controller.abort();
      const meta = interrupted("aborted", stream);
      this.history = closeTurn(this.history, withPartialText(stream), { missingResultText: ABORTED_BEFORE_TOOL_RAN, meta });
      this.billedApart(stream, meta);
    } else if (this.status.type === "stopped" && this.status.stopReason === "tool_use") {
      this.history = closeTurn(this.history, null, { missingResultText: ABORTED_BEFORE_TOOL_RAN });
    } else {
      return;
    }
    this.setStatus({ type: "stopped", stopReason: "aborted" });
  }

  /** Its forks are taken in any state: a half-finished turn is closed in the clone (`clone`). */
  betweenTurns(): null {
    return null;
  }

  /** Its turns are the thread's status (`Thread.atRest`). */
  midTurn(): false {
    return false;
  }

  clone(dispatch: (msg: AgentMsg) => void, options: CloneOptions = {}): AnthropicAgent {
    let history = this.history.share();
    let open: { finalized: readonly AssistantBlock[] } | null = this.stream ? { finalized: this.stream.finalized.slice() } : null;
    let knownResults = options.knownResults;
    if (options.atMessage !== undefined && options.atMessage < this.history.length - 1) {
      // Branching from an earlier message: a tool call there keeps its result when it has one.
      knownResults = resultsIn(history.at(options.atMessage + 1));
      history = history.prefix(options.atMessage + 1);
      open = null;
    }
    history = closeTurn(history, open, { knownResults, missingResultText: FORKED_BEFORE_TOOL_RAN });
    // The same system prompt as its source: its first request reads the source's cache.
    return new AnthropicAgent(
      this.config,
      this.connection,
      dispatch,
      history,
      { type: "stopped", stopReason: "end_turn" },
      this.instructions,
      this.moreTools,
      this.choice,
    );
  }

  private setStatus(status: AgentStatus): void {
    this.status = status;
    this.dispatch({ type: "status-changed", status });
  }

  private async request(paused: PausedTurn | null = null): Promise<void> {
    const client = this.connection.client;
    if (!client) {
      this.setStatus({ type: "error", message: MISSING_KEY_MESSAGE });
      return;
    }
    const controller = new AbortController();
    const startedAt = paused?.startedAt ?? Date.now();
    const fresh = () => newStream(controller, paused, this.nextRequest());
    const idleMs = this.connection.streamIdleTimeoutMs ?? 60_000;
    let params: Anthropic.Messages.MessageCreateParamsStreaming | null = null;
    let oversize: string | null = null;
    for (let attempt = 0; ; attempt++) {
      const stream = fresh();
      this.stream = stream;
      this.setStatus({ type: "streaming", startedAt, attempt });
      // Any event resets it; silence past it gives the request up (a stalled connection).
      let idle: StallWatch | null = null;
      try {
        if (!params) {
          // A thread's first request waits for its MCP servers: its display says so (and why, a sign-in).
          const waits = this.moreTools !== null && !this.moreTools.fixed;
          if (waits) this.setStatus({ type: "streaming", startedAt, attempt, waitingForTools: true });
          params = await this.params(this.history, controller.signal, paused?.blocks);
          if (this.stream !== stream) return;
          if (waits) this.setStatus({ type: "streaming", startedAt, attempt });
          // Said before sending, as the thread's error (its text kept for the next send): the API would refuse it.
          oversize = oversizeRequest(params);
        }
        idle = new StallWatch(idleMs, () => {
          stream.idledOut = true;
          controller.abort();
        });
        if (oversize) throw new OversizeRequest(oversize);
        const events = await client.messages.create(params, { signal: controller.signal });
        for await (const event of events) {
          idle.touch();
          // Past this turn's budget for stream work, requests from Neovim are answered first: the
          // event waits before its work (a stream woken by the network parses no more than it).
          const wait = giveWay();
          if (wait) await wait;
          if (this.stream !== stream) return;
          if (applyEvent(stream, event)) this.dispatch({ type: "stream-updated" });
        }
        if (this.stream !== stream) return;
        if (!stream.stopReason) throw new Error("the response ended before message_stop");
        this.finish(stream);
        return;
      } catch (error) {
        if (this.stream !== stream) return; // aborted: abort() already closed the turn
        const next = afterFailedAttempt({ error, attempt, idledOut: stream.idledOut, idleMs, baseURL: client.baseURL }, this.connection);
        if (next.type === "retry") {
          // Tried again from zero: what this attempt was billed (its input, once the API began to answer) is counted apart.
          this.billedApart(stream, null);
          this.stream = fresh();
          this.setStatus({ type: "streaming", startedAt, attempt: attempt + 1, retry: { at: Date.now() + next.ms, why: next.why } });
          await sleep(next.ms, controller.signal);
          if (controller.signal.aborted) return;
          continue;
        }
        this.stream = null;
        const message = next.message;
        this.connection.log?.(`request failed: ${message}\n${error instanceof Error ? error.stack : String(error)}`);
        const meta = interrupted("error", stream);
        this.history = closeTurn(this.history, withPartialText(stream), {
          missingResultText: `The response failed (${message}) before the tool call was complete; it did not run.`,
          meta,
        });
        this.billedApart(stream, meta);
        this.setStatus({ type: "error", message });
        return;
      } finally {
        idle?.stop();
      }
    }
  }

  private finish(stream: Stream): void {
    const stopReason = stream.stopReason!;
    const usage = turnUsage(stream);
    const continuations = stream.paused?.continuations ?? 0;
    if (stopReason === "pause_turn" && continuations < MAX_PAUSE_CONTINUATIONS) {
      // A server tool paused the turn: the API goes on from the paused message sent back as it is.
      const blocks = pausedTurnBlocks(stream.finalized);
      if (blocks.length) {
        void this.request({
          blocks,
          usage: usage.usage,
          continuations: continuations + 1,
          startedAt: stream.paused?.startedAt ?? Date.now(),
        });
        return;
      }
    }
    this.stream = null;
    // A complete message can still hold blocks the API would refuse back (an empty text block).
    const content = cleanAssistantBlocks(stream.finalized);
    const meta = stream.notes.length ? { stopReason, ...usage, notes: stream.notes } : { stopReason, ...usage };
    if (content.length) this.history = this.history.push(entry(assistantMessage(content), meta));
    if (stopReason !== "tool_use") {
      // A tool call cut off by max_tokens (or any stop but tool_use) never runs: answer it now so
      // the next send is valid.
      this.history = closeTurn(this.history, null, { missingResultText: stoppedBeforeToolRan(stopReason) });
    } else if (stream.refused.size) {
      // A call whose input was refused never runs: it is told why, and the turn stops for the user.
      this.history = closeTurn(this.history, null, { knownResults: refusedResults(stream), missingResultText: NOT_RUN_BESIDE_REFUSED });
    }
    this.setStatus({ type: "stopped", stopReason });
  }
}
