/**
 * The provider conversation in the Messages API's own shapes. What an agent holds here is exactly
 * what the API accepts: view and bookkeeping data live beside the messages (see `Entry`), never in
 * them. Messages are frozen once made, so source and forks can share them.
 */
import type Anthropic from "@anthropic-ai/sdk";

export type TextBlock = Anthropic.Messages.TextBlockParam;
export type ThinkingBlock = Anthropic.Messages.ThinkingBlockParam;
export type RedactedThinkingBlock = Anthropic.Messages.RedactedThinkingBlockParam;
export type ToolUseBlock = Anthropic.Messages.ToolUseBlockParam;
export type ToolResultBlock = Anthropic.Messages.ToolResultBlockParam;
export type ServerToolUseBlock = Anthropic.Messages.ServerToolUseBlockParam;
export type WebSearchResultBlock = Anthropic.Messages.WebSearchToolResultBlockParam;

export type AssistantBlock = TextBlock | ThinkingBlock | RedactedThinkingBlock | ToolUseBlock | ServerToolUseBlock | WebSearchResultBlock;
export type UserBlock = TextBlock | ToolResultBlock;
export type Block = AssistantBlock | UserBlock;

export type UserMessage = { readonly role: "user"; readonly content: readonly UserBlock[] };
export type AssistantMessage = {
  readonly role: "assistant";
  readonly content: readonly AssistantBlock[];
};
export type NativeMessage = UserMessage | AssistantMessage;

export type Usage = {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  /** The API's `server_tool_use.web_search_requests`; absent in entries stored before it was kept. */
  web_search_requests?: number;
};

/**
 * What a request was, for its cost and for whether the next one reads the cache (node/usage/):
 * the model asked for, and a digest of the cached prefix before the messages (tools and system
 * prompt, see `prefixKey` in node/providers/request.ts).
 */
export type RequestKey = { readonly model: string; readonly prefix: string };

/**
 * What the view shows under a response; never sent to the API. `interrupted`: the turn was cut
 * off (abort, error, stall) and holds what had arrived; `notes`: what tine left out of it.
 */
export type ResponseMeta = {
  readonly stopReason: string;
  /** Summed over every request of the turn (a paused turn's continuations each were billed). */
  readonly usage: Usage;
  /** Its request, and when the response ended (ms); absent in entries stored before it was kept. */
  readonly request?: RequestKey & { readonly at: number };
  /** Present when `usage` sums more than one request: how many, and the last one's own figures. */
  readonly continued?: { readonly requests: number; readonly last: Usage };
  readonly interrupted?: boolean;
  readonly notes?: readonly string[];
  /**
   * A turn run by an ACP agent: the agent's id of each assistant message of the turn, in order (this
   * one's last; null where the agent gave none). A fork names one as its fork point; never shown.
   */
  readonly agentMessageIds?: readonly (string | null)[];
};

/** One history entry: the native message and, for assistant responses, its bookkeeping. */
export type Entry = { readonly message: NativeMessage; readonly meta?: ResponseMeta };

export function freezeMessage<T extends NativeMessage>(message: T): T {
  for (const block of message.content) Object.freeze(block);
  Object.freeze(message.content);
  return Object.freeze(message);
}

export function userMessage(content: UserBlock[]): UserMessage {
  return freezeMessage({ role: "user", content });
}

export function assistantMessage(content: AssistantBlock[]): AssistantMessage {
  return freezeMessage({ role: "assistant", content });
}

export function entry(message: NativeMessage, meta?: ResponseMeta): Entry {
  return Object.freeze(meta ? { message, meta } : { message });
}
