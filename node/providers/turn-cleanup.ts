/**
 * The one rule for closing a half-finished assistant turn. Abort, stream errors, fork (in any
 * state) and fork-at-message all end a turn early; each calls `closeTurn`, so the history that
 * results is always one the Messages API accepts.
 */

import type { History } from "../core/history.ts";
import {
  type AssistantBlock,
  assistantMessage,
  type Entry,
  entry,
  type ResponseMeta,
  type ToolResultBlock,
  type UserBlock,
  userMessage,
} from "../core/native.ts";
import { assertUnreachable } from "../util/assert-unreachable.ts";

export const FORKED_BEFORE_TOOL_RAN = "The thread was forked before the tool could execute.";
export const ABORTED_BEFORE_TOOL_RAN = "The user aborted before the tool could execute.";
export const stoppedBeforeToolRan = (stopReason: string) =>
  `The response stopped (${stopReason}) before the tool call was complete; it did not run.`;
/** A call whose input was refused where it came in (see bounded-json.ts). */
export const inputRefused = (why: string) =>
  `The tool call's input was refused (${why}); it did not run. Call it again with a smaller, flatter input.`;
export const NOT_RUN_BESIDE_REFUSED = "Not run: another tool call of the same response had its input refused.";

export type OpenTurn = {
  /** Blocks of the assistant message being streamed that have finished. */
  readonly finalized: readonly AssistantBlock[];
  /**
   * The text of the block in progress, kept when the turn is aborted or fails (a partial text
   * block is valid for the API); a fork leaves it out and keeps finished blocks only.
   */
  readonly partialText?: string;
};

export type CloseTurnOptions = {
  /** Results that exist for some tool_use ids (a tool finished in the source); used as they are. */
  readonly knownResults?: ReadonlyMap<string, ToolResultBlock>;
  /** The error text given to each tool_use that has no result. */
  readonly missingResultText: string;
  /** Bookkeeping for the closed turn's entry (an interrupted turn is marked so). */
  readonly meta?: ResponseMeta;
};

/** Keeps the blocks of an assistant message that the API accepts on their own. */
export function cleanAssistantBlocks(blocks: readonly AssistantBlock[]): AssistantBlock[] {
  return keepValidBlocks(blocks, false);
}

/**
 * The blocks of a turn paused by a server tool, to send back as the request's last message. A
 * `server_tool_use` still waiting on its result stays: the API continues from it (and accepts it
 * only there, as the last message).
 */
export function pausedTurnBlocks(blocks: readonly AssistantBlock[]): AssistantBlock[] {
  return keepValidBlocks(blocks, true);
}

function keepValidBlocks(blocks: readonly AssistantBlock[], keepPendingServerTools: boolean): AssistantBlock[] {
  const searchUses = new Set<string>();
  const searchResults = new Set<string>();
  for (const b of blocks) {
    if (b.type === "server_tool_use") searchUses.add(b.id);
    if (b.type === "web_search_tool_result") searchResults.add(b.tool_use_id);
  }
  const kept = blocks.filter((b) => {
    switch (b.type) {
      case "text":
        // The API refuses empty and whitespace-only text blocks alike.
        return b.text.trim().length > 0;
      case "thinking":
        // A signed block is valid even with empty text (omitted thinking display).
        return typeof b.signature === "string" && b.signature.length > 0;
      case "redacted_thinking":
        return true;
      case "tool_use":
        return true;
      case "server_tool_use":
        return keepPendingServerTools || searchResults.has(b.id);
      case "web_search_tool_result":
        return searchUses.has(b.tool_use_id);
      default:
        return assertUnreachable(b);
    }
  });
  // The API refuses an assistant message whose final block is thinking (a turn cut after its
  // thinking, or while a later block streamed): trailing thinking goes, signed thinking before
  // other blocks stays.
  while (kept.length && (kept.at(-1)!.type === "thinking" || kept.at(-1)!.type === "redacted_thinking")) kept.pop();
  return kept;
}

function pendingToolUses(blocks: readonly AssistantBlock[]) {
  return blocks.filter((b) => b.type === "tool_use");
}

/**
 * Closes the history's last turn.
 *
 * - With `open`, the turn is the streaming assistant message made of its finalized blocks.
 * - Otherwise, if the history ends with an assistant message, that message is the turn (a stop on
 *   tool_use whose tools have not all answered, or an assistant message cut by fork-at-message).
 *
 * The turn's blocks are cleaned (`cleanAssistantBlocks`); an empty turn is dropped; each tool_use
 * gets a result in a following user message: its known result, or an error saying why it has none.
 * A history that already ends with a user message is returned unchanged.
 */
export function closeTurn(history: History, open: OpenTurn | null, options: CloseTurnOptions): History {
  let base = history;
  let blocks: readonly AssistantBlock[];
  if (open) {
    blocks = open.partialText ? [...open.finalized, Object.freeze({ type: "text" as const, text: open.partialText })] : open.finalized;
  } else {
    const last = history.last();
    if (last?.message.role !== "assistant") return history;
    blocks = last.message.content;
    base = history.prefix(history.length - 1);
    const cleaned = cleanAssistantBlocks(blocks);
    if (cleaned.length === blocks.length && pendingToolUses(cleaned).length === 0) return history;
    // An unchanged message stays the same shared object.
    return appendClosed(base, cleaned, options, cleaned.length === blocks.length ? last : undefined);
  }
  return appendClosed(base, cleanAssistantBlocks(blocks), options, undefined);
}

function appendClosed(base: History, cleaned: AssistantBlock[], options: CloseTurnOptions, unchanged?: Entry): History {
  if (cleaned.length === 0) return base;
  const out: Entry[] = [unchanged ?? entry(assistantMessage(cleaned), options.meta)];
  const uses = pendingToolUses(cleaned);
  if (uses.length > 0) {
    const results: UserBlock[] = uses.map(
      (use) =>
        options.knownResults?.get(use.id) ?? {
          type: "tool_result",
          tool_use_id: use.id,
          content: options.missingResultText,
          is_error: true,
        },
    );
    out.push(entry(userMessage(results)));
  }
  return base.push(...out);
}

/**
 * Adds a user turn. When the history already ends with a user message (tool results, or a fork
 * taken at a user message) the blocks join it, so roles keep alternating.
 */
export function appendUserTurn(history: History, blocks: UserBlock[]): History {
  if (blocks.length === 0) return history;
  const last = history.last();
  if (last && last.message.role === "user") {
    return history.replaceLast(entry(userMessage([...last.message.content, ...blocks])));
  }
  return history.push(entry(userMessage(blocks)));
}

/** Results present in a user message, by tool_use id (fork-at-message keeps a result that exists). */
export function resultsIn(e: Entry | undefined): Map<string, ToolResultBlock> {
  const out = new Map<string, ToolResultBlock>();
  if (e?.message.role === "user") {
    for (const b of e.message.content) if (b.type === "tool_result") out.set(b.tool_use_id, b);
  }
  return out;
}
