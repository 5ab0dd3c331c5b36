/**
 * One response as it streams in: the blocks finished so far, the block in progress, usage and
 * stop reason, built from the SDK's stream events. The agent keeps one of these per request;
 * a fork copies its finished blocks, and abort or an error closes it with the turn clean-up rule.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { InProgressBlock, StopReason } from "../core/agent.ts";
import type { AssistantBlock, RequestKey, ResponseMeta, TextBlock, ToolResultBlock, Usage } from "../core/native.ts";
import { LEFT_OUT_NOTE, leftOutNote, takeCounts } from "../usage/token-counts.ts";
import { depthProblem, parseBounded, TOOL_INPUT_BOUNDS } from "../util/bounded-json.ts";
import { inputRefused, type OpenTurn } from "./turn-cleanup.ts";

export const zeroUsage = (): Usage => ({
  input_tokens: 0,
  output_tokens: 0,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0,
  web_search_requests: 0,
});

/**
 * A turn a server tool paused (`pause_turn`). It stays the open message: its blocks are sent back
 * as the last (assistant) message and the continuation's blocks are appended to them, so abort,
 * fork and errors close it like any half-streamed message, and it ends as one history entry.
 */
export type PausedTurn = {
  readonly blocks: readonly AssistantBlock[];
  /** Usage summed over the responses so far: each was billed. */
  readonly usage: Usage;
  /** Responses after the first so far (the stream continuing it is one more). */
  readonly continuations: number;
  readonly startedAt: number;
};

export type Stream = {
  readonly controller: AbortController;
  readonly paused: PausedTurn | null;
  finalized: AssistantBlock[];
  inProgress: InProgressBlock | null;
  /** This response's usage; the turn's is this plus `paused.usage`. A retried attempt starts from zero: only the kept one counts. */
  usage: Usage;
  /** The request this stream answers, once it is built. */
  key: RequestKey | null;
  stopReason: StopReason | null;
  /** Blocks of types tine does not know, left out of the history; said in the reply. */
  notes: string[];
  /** Set when the stream went silent past the idle limit (the abort that follows is ours). */
  idledOut: boolean;
  /** Tool calls whose input was refused as it came in (nested too deep, too long), by id: why. */
  refused: Map<string, string>;
};

/** A stream before its first event: a paused turn's blocks are its finished ones, continued. */
export function newStream(controller: AbortController, paused: PausedTurn | null, key: RequestKey): Stream {
  return {
    controller,
    paused,
    finalized: paused ? paused.blocks.slice() : [],
    inProgress: null,
    usage: zeroUsage(),
    key,
    stopReason: null,
    notes: [],
    idledOut: false,
    refused: new Map(),
  };
}

/** Applies one stream event; true when the view has something new to show. */
export function applyEvent(stream: Stream, event: Anthropic.Messages.RawMessageStreamEvent): boolean {
  switch (event.type) {
    case "message_start":
      mergeUsage(stream, event.message.usage);
      return false;
    case "content_block_start": {
      const started = startBlock(stream, event.content_block);
      // A block type this version does not know (a newer server tool) is left out, and said so.
      if (started.type === "unknown") stream.notes.push(`skipped a "${started.blockType}" block this version of tine does not know`);
      stream.inProgress = started;
      break;
    }
    case "content_block_delta": {
      const block = stream.inProgress;
      const delta = event.delta;
      if (!block) return false;
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
      mergeUsage(stream, event.usage);
      break;
    case "message_stop":
      return false;
  }
  return true;
}

function startBlock(stream: Stream, block: Anthropic.Messages.RawContentBlockStartEvent["content_block"]): InProgressBlock {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text, ...(block.citations?.length ? { citations: block.citations as never } : {}) };
    case "thinking":
      return { type: "thinking", thinking: block.thinking, signature: block.signature ?? "" };
    case "tool_use":
    case "server_tool_use": {
      // An input given whole is measured before anything recurses over it (see finishBlock).
      const deep = depthProblem(block.input, TOOL_INPUT_BOUNDS);
      if (deep && block.type === "tool_use") stream.refused.set(block.id, deep);
      const given = !deep && block.input && Object.keys(block.input as object).length ? JSON.stringify(block.input) : "";
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
      // A refused server tool's input is only stored empty: the server ran it, nothing answers it here.
      const { input, refused } = parseInput(b.inputJson);
      if (refused && b.type === "tool_use") stream.refused.set(b.id, refused);
      return Object.freeze({ type: b.type, id: b.id, name: b.name, input } as AssistantBlock);
    }
    case "whole":
      return b.block;
    case "unknown":
      return null;
  }
}

/** An aborted or failed stream's turn, with the text block it was in the middle of kept. */
export function withPartialText(stream: Stream): OpenTurn {
  const b = stream.inProgress;
  return b?.type === "text" && b.text.trim() ? { finalized: stream.finalized, partialText: b.text } : { finalized: stream.finalized };
}

/** The bookkeeping of a turn that ended early: the view marks it interrupted. */
export function interrupted(stopReason: "aborted" | "error", stream: Stream): ResponseMeta {
  return { stopReason, ...turnUsage(stream), interrupted: true };
}

/**
 * The usage of the turn a stream ends, as its entry keeps it: summed over a paused turn's
 * responses (with the last one's own figures), with its request and when it ended.
 */
export function turnUsage(stream: Stream): Pick<ResponseMeta, "usage" | "request" | "continued"> {
  const request = stream.key ? { request: { ...stream.key, at: Date.now() } } : {};
  if (!stream.paused) return { usage: stream.usage, ...request };
  return {
    usage: addUsage(stream.paused.usage, stream.usage),
    ...request,
    continued: { requests: stream.paused.continuations + 1, last: stream.usage },
  };
}

/**
 * A tool's input must be a JSON object: anything else (cut off, or an array or a string) is stored
 * as `{}`. So is an input over TOOL_INPUT_BOUNDS, and `refused` says why: the call is answered with
 * that, never run (see `refusedResults`).
 */
function parseInput(json: string): { input: Record<string, unknown>; refused: string | null } {
  if (!json) return { input: {}, refused: null };
  const parsed = parseBounded(json, TOOL_INPUT_BOUNDS);
  if (!parsed.ok) return { input: {}, refused: parsed.outOfBounds ? parsed.error : null };
  const value = parsed.value;
  return { input: value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {}, refused: null };
}

/**
 * The results of a response's tool calls when some inputs were refused: those calls are told why,
 * the others that they were not run beside them. The turn then stops for the user (no tool runs).
 */
export function refusedResults(stream: Stream): Map<string, ToolResultBlock> {
  const out = new Map<string, ToolResultBlock>();
  for (const [id, why] of stream.refused) out.set(id, { type: "tool_result", tool_use_id: id, content: inputRefused(why), is_error: true });
  return out;
}

export function addUsage(a: Usage, b: Usage): Usage {
  const out = zeroUsage();
  for (const key of Object.keys(out) as (keyof Usage)[]) out[key] = (a[key] ?? 0) + (b[key] ?? 0);
  return out;
}

/**
 * The usage a request's own stream event reports, into `into` (a request read apart from the
 * history: a summary, a title); a figure that is not a token count is left out unsaid (nothing
 * shows these requests but their sums).
 */
export function usageOf(into: Usage, event: Anthropic.Messages.RawMessageStreamEvent): void {
  if (event.type === "message_start") apiFigures(into, event.message.usage);
  else if (event.type === "message_delta") apiFigures(into, event.usage);
}

/** The figures as the API's events hold them (web searches under `server_tool_use`): nothing in them is trusted. */
type ApiUsage = { readonly server_tool_use?: unknown };

/**
 * The API's figures are totals so far (message_delta repeats and updates message_start's): each
 * replaces the last. One that is not a token count is left out (usage/token-counts.ts), and the
 * reply says so once, however many of its events held it.
 */
function mergeUsage(stream: Stream, from: ApiUsage | null | undefined): void {
  const note = leftOutNote(apiFigures(stream.usage, from));
  if (note && !stream.notes.some((n) => n.startsWith(LEFT_OUT_NOTE))) stream.notes.push(note);
}

/** `from`'s token counts into `into`; the figures that were not counts. */
function apiFigures(into: Usage, from: ApiUsage | null | undefined): string[] {
  if (!from || typeof from !== "object") return [];
  const searches = from.server_tool_use;
  const search = searches && typeof searches === "object" ? (searches as Record<string, unknown>) : {};
  return takeCounts(into, { ...(from as Record<string, unknown>), web_search_requests: search["web_search_requests"] });
}
