/**
 * An Agent over the Anthropic Messages API (streaming, tool use, thinking, prompt caching).
 *
 * While a response streams, the finalized blocks of the assistant message are kept apart from the
 * block still in progress: the view appends deltas from the latter, and a fork copies the former.
 */
import Anthropic from "@anthropic-ai/sdk";
import type { Runner, RunnerSpec, RunnerTraits, Surface, ThreadStatus } from "../chat/runner.ts";
import type { AgentMsg, AgentStatus, CloneOptions, InProgressBlock, OpenMessage, StopReason } from "./agent.ts";
import { describeError, isRetryable, retryAfterMs } from "./api-errors.ts";
import { History } from "./history.ts";
import { type AssistantBlock, assistantMessage, entry, type ResponseMeta, type TextBlock, type Usage, type UserBlock } from "./native.ts";
import { buildRequest, type ProviderConfig } from "./request.ts";
import {
  ABORTED_BEFORE_TOOL_RAN,
  appendUserTurn,
  cleanAssistantBlocks,
  closeTurn,
  FORKED_BEFORE_TOOL_RAN,
  type OpenTurn,
  pausedTurnBlocks,
  resultsIn,
  stoppedBeforeToolRan,
} from "./turn-cleanup.ts";

export type Connection = {
  /** Null when ANTHROPIC_API_KEY is not set: requests then fail with a clear message. */
  client: Anthropic | null;
  /**
   * Retries of overloaded / rate-limit errors, at the HTTP level and mid-stream alike. This is the
   * only retry layer (the SDK's own is off), so a persistent 529 makes 1 + streamRetries requests.
   */
  streamRetries: number;
  /** First back-off when the server names no wait; doubles each time. */
  retryDelayMs: number;
  /** A longer `retry-after` than this is not waited out: the user is told and chooses. */
  maxRetryWaitMs?: number;
  /** A stream silent for this long is given up (partial text kept). */
  streamIdleTimeoutMs?: number;
  /** Where errors go with their stack (the host's log). */
  log?: (message: string) => void;
};

/** The SDK logs to the console by default, which is the host's RPC channel: send it to stderr. */
const toStderr =
  (level: string) =>
  (message: string, ...rest: unknown[]) =>
    void process.stderr.write(
      `tine host: sdk ${level}: ${[message, ...rest.map((r) => (typeof r === "string" ? r : JSON.stringify(r)))].join(" ")}\n`,
    );
export const sdkLogger = { debug: toStderr("debug"), info: toStderr("info"), warn: toStderr("warn"), error: toStderr("error") };

export function connect(
  options: {
    baseURL?: string;
    retryDelayMs?: number;
    maxRetryWaitMs?: number;
    streamIdleTimeoutMs?: number;
    logger?: typeof sdkLogger;
  } = {},
): Connection {
  const apiKey = process.env["ANTHROPIC_API_KEY"];
  const client = apiKey
    ? new Anthropic({
        apiKey,
        baseURL: options.baseURL || process.env["ANTHROPIC_BASE_URL"] || undefined,
        maxRetries: 0,
        logger: options.logger ?? sdkLogger,
      })
    : null;
  return {
    client,
    streamRetries: 3,
    retryDelayMs: options.retryDelayMs ?? 1000,
    maxRetryWaitMs: options.maxRetryWaitMs ?? 60_000,
    streamIdleTimeoutMs: options.streamIdleTimeoutMs ?? 60_000,
    log: (message) => void process.stderr.write(`tine host: ${message}\n`),
  };
}

export const MISSING_KEY_MESSAGE =
  "ANTHROPIC_API_KEY is not set. Export it before starting Neovim and run :Tine restart " + "(or try the offline demo with `npm run try`).";

const zeroUsage = (): Usage => ({
  input_tokens: 0,
  output_tokens: 0,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0,
});

/**
 * A turn a server tool paused (`pause_turn`). It stays the open message: its blocks are sent back
 * as the last (assistant) message and the continuation's blocks are appended to them, so abort,
 * fork and errors close it like any half-streamed message, and it ends as one history entry.
 */
type PausedTurn = {
  readonly blocks: readonly AssistantBlock[];
  /** Usage summed over the responses so far: each was billed. */
  readonly usage: Usage;
  readonly continuations: number;
  readonly startedAt: number;
};

/** Continuations of one turn before it is stopped and left to the user (each is billed). */
export const MAX_PAUSE_CONTINUATIONS = 8;

type Stream = {
  readonly controller: AbortController;
  readonly paused: PausedTurn | null;
  finalized: AssistantBlock[];
  inProgress: InProgressBlock | null;
  /** This response's usage; the turn's is this plus `paused.usage`. */
  usage: Usage;
  stopReason: StopReason | null;
  /** Blocks of types tine does not know, left out of the history; said in the reply. */
  notes: string[];
  /** Set when the stream went silent past the idle limit (the abort that follows is ours). */
  idledOut: boolean;
};

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

const API_SPEC: RunnerSpec = { kind: "api" };
/** tine's own agent: forks of it come back, and it is stored once it has something to store. */
const API_TRAITS: RunnerTraits = { forkLifecycle: true, endBlocker: null, storedAtOnce: false };
const TRANSCRIPT: Surface = { type: "transcript" };

/** tine's own runner: the conversation is here, rendered by tine. */
export class AnthropicAgent implements Runner {
  private stream: Stream | null = null;
  readonly spec = API_SPEC;
  readonly traits = API_TRAITS;
  readonly surface = TRANSCRIPT;
  readonly label = "";

  constructor(
    private readonly config: ProviderConfig,
    private readonly connection: Connection,
    private readonly dispatch: (msg: AgentMsg) => void,
    public history: History = History.empty,
    public status: AgentStatus = { type: "idle" },
  ) {}

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
      this.history = closeTurn(this.history, withPartialText(stream), {
        missingResultText: ABORTED_BEFORE_TOOL_RAN,
        meta: interrupted("aborted", stream),
      });
    } else if (this.status.type === "stopped" && this.status.stopReason === "tool_use") {
      this.history = closeTurn(this.history, null, { missingResultText: ABORTED_BEFORE_TOOL_RAN });
    } else {
      return;
    }
    this.setStatus({ type: "stopped", stopReason: "aborted" });
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
    return new AnthropicAgent(this.config, this.connection, dispatch, history, {
      type: "stopped",
      stopReason: "end_turn",
    });
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
    const fresh = (): Stream => ({
      controller,
      paused,
      finalized: paused ? paused.blocks.slice() : [],
      inProgress: null,
      usage: zeroUsage(),
      stopReason: null,
      notes: [],
      idledOut: false,
    });
    const idleMs = this.connection.streamIdleTimeoutMs ?? 60_000;
    for (let attempt = 0; ; attempt++) {
      const stream = fresh();
      this.stream = stream;
      this.setStatus({ type: "streaming", startedAt, attempt });
      // Any event resets it; silence past it gives the request up (a stalled connection).
      let idle: NodeJS.Timeout | null = null;
      const touch = () => {
        if (idle) clearTimeout(idle);
        idle = setTimeout(() => {
          stream.idledOut = true;
          controller.abort();
        }, idleMs);
        idle.unref?.();
      };
      try {
        touch();
        const events = await client.messages.create(buildRequest(this.config, this.history, paused?.blocks), {
          signal: controller.signal,
        });
        for await (const event of events) {
          if (this.stream !== stream) return;
          touch();
          this.onEvent(stream, event);
        }
        if (this.stream !== stream) return;
        if (!stream.stopReason) throw new Error("the response ended before message_stop");
        this.finish(stream);
        return;
      } catch (error) {
        if (this.stream !== stream) return; // aborted: abort() already closed the turn
        const wait = stream.idledOut ? null : this.retryWait(error, attempt);
        if (wait !== null && wait.ms <= (this.connection.maxRetryWaitMs ?? 60_000)) {
          this.stream = fresh();
          this.setStatus({ type: "streaming", startedAt, attempt: attempt + 1, retryAt: Date.now() + wait.ms });
          await sleep(wait.ms, controller.signal);
          if (controller.signal.aborted) return;
          continue;
        }
        this.stream = null;
        let message = stream.idledOut
          ? `no data from the API for ${Math.round(idleMs / 1000)} s: the request was given up`
          : describeError(error, client.baseURL);
        if (wait)
          message += ` · the server asks to wait ${Math.round(wait.ms / 1000)} s (more than max_retry_wait): send again when you want to`;
        this.connection.log?.(`request failed: ${message}\n${error instanceof Error ? error.stack : String(error)}`);
        this.history = closeTurn(this.history, withPartialText(stream), {
          missingResultText: `The response failed (${message}) before the tool call was complete; it did not run.`,
          meta: interrupted("error", stream),
        });
        this.setStatus({ type: "error", message });
        return;
      } finally {
        if (idle) clearTimeout(idle);
      }
    }
  }

  /** How long to wait before trying again, or null when this error is not retried. */
  private retryWait(error: unknown, attempt: number): { ms: number } | null {
    if (!isRetryable(error) || attempt >= this.connection.streamRetries) return null;
    return { ms: retryAfterMs(error) ?? this.connection.retryDelayMs * 2 ** attempt };
  }

  private finish(stream: Stream): void {
    const stopReason = stream.stopReason!;
    const usage = stream.paused ? addUsage(stream.paused.usage, stream.usage) : stream.usage;
    const continuations = stream.paused?.continuations ?? 0;
    if (stopReason === "pause_turn" && continuations < MAX_PAUSE_CONTINUATIONS) {
      // A server tool paused the turn: the API goes on from the paused message sent back as it is.
      const blocks = pausedTurnBlocks(stream.finalized);
      if (blocks.length) {
        void this.request({ blocks, usage, continuations: continuations + 1, startedAt: stream.paused?.startedAt ?? Date.now() });
        return;
      }
    }
    this.stream = null;
    // A complete message can still hold blocks the API would refuse back (an empty text block).
    const content = cleanAssistantBlocks(stream.finalized);
    const meta = stream.notes.length ? { stopReason, usage, notes: stream.notes } : { stopReason, usage };
    if (content.length) this.history = this.history.push(entry(assistantMessage(content), meta));
    if (stopReason !== "tool_use") {
      // A tool call cut off by max_tokens (or any stop but tool_use) never runs: answer it now so
      // the next send is valid.
      this.history = closeTurn(this.history, null, { missingResultText: stoppedBeforeToolRan(stopReason) });
    }
    this.setStatus({ type: "stopped", stopReason });
  }

  private onEvent(stream: Stream, event: Anthropic.Messages.RawMessageStreamEvent): void {
    switch (event.type) {
      case "message_start":
        mergeUsage(stream.usage, event.message.usage);
        return;
      case "content_block_start": {
        const started = startBlock(event.content_block);
        // A block type this version does not know (a newer server tool) is left out, and said so.
        if (started.type === "unknown") stream.notes.push(`skipped a "${started.blockType}" block this version of tine does not know`);
        stream.inProgress = started;
        break;
      }
      case "content_block_delta": {
        const block = stream.inProgress;
        const delta = event.delta;
        if (!block) return;
        if (delta.type === "text_delta" && block.type === "text") block.text += delta.text;
        else if (delta.type === "citations_delta" && block.type === "text")
          block.citations = [...(block.citations ?? []), delta.citation as never];
        else if (delta.type === "thinking_delta" && block.type === "thinking") block.thinking += delta.thinking;
        else if (delta.type === "signature_delta" && block.type === "thinking") block.signature += delta.signature;
        else if (delta.type === "input_json_delta" && (block.type === "tool_use" || block.type === "server_tool_use"))
          block.inputJson += delta.partial_json;
        break;
      }
      case "content_block_stop": {
        const done = finishBlock(stream);
        if (done) stream.finalized.push(done);
        stream.inProgress = null;
        break;
      }
      case "message_delta":
        stream.stopReason = (event.delta.stop_reason as StopReason | null) ?? stream.stopReason;
        mergeUsage(stream.usage, event.usage);
        break;
      case "message_stop":
        return;
    }
    this.dispatch({ type: "stream-updated" });
  }
}

function startBlock(block: Anthropic.Messages.RawContentBlockStartEvent["content_block"]): InProgressBlock {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text, ...(block.citations?.length ? { citations: block.citations as never } : {}) };
    case "thinking":
      return { type: "thinking", thinking: block.thinking, signature: block.signature ?? "" };
    case "tool_use":
    case "server_tool_use": {
      const given = block.input && Object.keys(block.input as object).length ? JSON.stringify(block.input) : "";
      return { type: block.type, id: block.id, name: block.name, inputJson: given };
    }
    case "redacted_thinking":
    case "web_search_tool_result":
      // Blocks that arrive whole still finish at their stop event.
      return { type: "whole", block: wholeBlock(block) };
    default:
      return { type: "unknown", blockType: String((block as { type?: unknown }).type) };
  }
}

/** Only the fields the API defines for a request block. */
function wholeBlock(block: Anthropic.Messages.RawContentBlockStartEvent["content_block"]): AssistantBlock {
  if (block.type === "redacted_thinking") return Object.freeze({ type: "redacted_thinking", data: block.data });
  if (block.type === "web_search_tool_result") {
    return Object.freeze({
      type: "web_search_tool_result",
      tool_use_id: block.tool_use_id,
      content: block.content as Anthropic.Messages.WebSearchToolResultBlockParam["content"],
    });
  }
  throw new Error(`unsupported content block: ${block.type}`);
}

function finishBlock(stream: Stream): AssistantBlock | null {
  const b = stream.inProgress;
  if (!b) return null;
  switch (b.type) {
    case "text":
      // Citations are kept as they came: the API takes them back on the text block.
      return Object.freeze(
        b.citations?.length
          ? { type: "text" as const, text: b.text, citations: b.citations as TextBlock["citations"] }
          : { type: "text" as const, text: b.text },
      );
    case "thinking":
      return Object.freeze({ type: "thinking", thinking: b.thinking, signature: b.signature });
    case "tool_use":
    case "server_tool_use": {
      // Input cut off by max_tokens is not JSON; the call is then answered as never run.
      const input = parseInput(b.inputJson);
      return Object.freeze({ type: b.type, id: b.id, name: b.name, input } as AssistantBlock);
    }
    case "whole":
      return b.block;
    case "unknown":
      return null;
  }
}

/** An aborted or failed stream's turn, with the text block it was in the middle of kept. */
function withPartialText(stream: Stream): OpenTurn {
  const b = stream.inProgress;
  return b?.type === "text" && b.text.trim() ? { finalized: stream.finalized, partialText: b.text } : { finalized: stream.finalized };
}

/** The bookkeeping of a turn that ended early: the view marks it interrupted. */
function interrupted(stopReason: "aborted" | "error", stream: Stream): ResponseMeta {
  const usage = stream.paused ? addUsage(stream.paused.usage, stream.usage) : stream.usage;
  return { stopReason, usage, interrupted: true };
}

/** A tool's input must be a JSON object: anything else (cut off, or an array or a string) is stored as `{}`. */
function parseInput(json: string): Record<string, unknown> {
  if (!json) return {};
  try {
    const value: unknown = JSON.parse(json);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function addUsage(a: Usage, b: Usage): Usage {
  const out = zeroUsage();
  for (const key of Object.keys(out) as (keyof Usage)[]) out[key] = a[key] + b[key];
  return out;
}

function mergeUsage(into: Usage, from: Partial<Record<keyof Usage, number | null>> | null | undefined): void {
  if (!from) return;
  for (const key of Object.keys(into) as (keyof Usage)[]) {
    const v = from[key];
    if (typeof v === "number") into[key] = v;
  }
}
