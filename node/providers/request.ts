/**
 * Builds the Messages API request for a history. Deterministic: the same config, instructions and
 * history give the same request, which is what lets a fork's first request read its source's
 * prompt cache.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { History } from "../core/history.ts";
import { type AssistantBlock, assistantMessage, type Block, type NativeMessage } from "../core/native.ts";
import { sha256Hex } from "../util/sha256.ts";

/** Thinking budgets (tokens) by effort, from `thinking_budgets` in setup. */
export type ThinkingBudgets = { readonly low: number; readonly medium: number; readonly high: number };

export type ProviderConfig = {
  model: string;
  maxTokens: number;
  /** The request's `thinking`, as configured; null sends none (the model's default). */
  thinking: Anthropic.Messages.ThinkingConfigParam | null;
  /** `output_config.effort`; null sends none. */
  effort: NonNullable<Anthropic.Messages.OutputConfig["effort"]> | null;
  webSearch: boolean;
  /** tine's own system prompt (`system_prompt`); a thread's project instructions follow it. */
  system: string;
  tools: readonly Anthropic.Messages.Tool[];
  /** What a thread's own thinking effort (`:Tine model`, models.ts) asks for. */
  thinkingBudgets: ThinkingBudgets;
};

/** A digest of what every request of an agent puts before its messages: what the cache rule compares (usage/cache.ts). */
export function prefixKey(config: ProviderConfig, instructions: string): string {
  const prefix = JSON.stringify([config.tools, config.webSearch, config.system, instructions, config.thinking, config.effort]);
  return sha256Hex(prefix).slice(0, 16);
}

const EPHEMERAL = { type: "ephemeral" } as const;

function withCacheBreakpoint(message: NativeMessage): NativeMessage {
  const content = message.content as readonly Block[];
  const last = content[content.length - 1];
  if (!last || last.type === "thinking" || last.type === "redacted_thinking") return message;
  const marked = { ...last, cache_control: EPHEMERAL } as Block;
  return { role: message.role, content: [...content.slice(0, -1), marked] } as NativeMessage;
}

/** A paused turn as sent back last: its last text block may not end in whitespace (the turn itself keeps it). */
function sentBack(blocks: readonly AssistantBlock[]): AssistantBlock[] {
  const out = blocks.slice();
  const at = out.findLastIndex((b) => b.type === "text");
  const last = out[at];
  if (last?.type === "text" && last.text !== last.text.trimEnd()) out[at] = { ...last, text: last.text.trimEnd() };
  return out;
}

/**
 * `instructions`: the thread's project instructions, sent after tine's system prompt ("" for
 * none). `pausedTurn`: the blocks of a turn a server tool paused, sent back last so the API
 * continues it.
 */
export function buildRequest(
  config: ProviderConfig,
  instructions: string,
  history: History,
  pausedTurn?: readonly AssistantBlock[],
): Anthropic.Messages.MessageCreateParamsStreaming {
  const messages = history.messages();
  if (pausedTurn?.length) messages.push(assistantMessage(sentBack(pausedTurn)));
  // Breakpoint on the latest message; the next request finds this prefix in the cache.
  if (messages.length) messages[messages.length - 1] = withCacheBreakpoint(messages[messages.length - 1]!);
  const tools: Anthropic.Messages.ToolUnion[] = [...config.tools];
  if (config.webSearch) tools.push({ type: "web_search_20250305", name: "web_search", max_uses: 5 });
  // Breakpoint on the tools: the part every request of every thread shares.
  if (tools.length) tools[tools.length - 1] = { ...tools[tools.length - 1]!, cache_control: EPHEMERAL };
  const params: Anthropic.Messages.MessageCreateParamsStreaming = {
    model: config.model,
    max_tokens: config.maxTokens,
    messages: messages as Anthropic.Messages.MessageParam[],
    stream: true,
  };
  // tine's text, then the thread's instructions, a block each; the API refuses an empty one.
  const system: Anthropic.Messages.TextBlockParam[] = [config.system, instructions]
    .filter((text) => text.trim())
    .map((text) => ({ type: "text" as const, text }));
  // One breakpoint after both: every request of the thread (and of its forks) shares them.
  if (system.length) {
    system[system.length - 1] = { ...system[system.length - 1]!, cache_control: EPHEMERAL };
    params.system = system;
  }
  if (tools.length) params.tools = tools;
  if (config.thinking) params.thinking = config.thinking;
  if (config.effort) params.output_config = { effort: config.effort };
  return params;
}

/** The Messages API refuses a request body over 32 MB: tine says so before sending one. */
export const MAX_REQUEST_BYTES = 32_000_000;

/** Why a request would be refused for its size (and how to go on), or null when it is within the limit. */
export function oversizeRequest(params: Anthropic.Messages.MessageCreateParamsStreaming): string | null {
  const bytes = Buffer.byteLength(JSON.stringify(params), "utf8");
  if (bytes <= MAX_REQUEST_BYTES) return null;
  const mb = (n: number) => `${Math.round(n / 100_000) / 10} MB`;
  return (
    `this thread's next request is ${mb(bytes)}, over the Messages API's limit of ${mb(MAX_REQUEST_BYTES)}, so it was not sent: ` +
    "fork from an earlier message (F on it) to go on with less of the history, or start a new thread"
  );
}
