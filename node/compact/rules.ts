/**
 * Compaction's rules, pure: how full a thread's context is, where a compaction may cut its
 * history, what the model is asked for, and the history of the new thread (the summary, the
 * files followed, then the messages kept verbatim). The old thread is never changed: these only
 * read its history.
 */
import { writeContextBlock } from "../context/blocks.ts";
import type { Followed } from "../context/follow.ts";
import { History } from "../core/history.ts";
import { type Entry, entry, type UserBlock, userMessage } from "../core/native.ts";
import { entryUsage, totalTokens } from "../usage/figures.ts";

/**
 * The tokens of the thread's context after its last response: that request's input (read from
 * the cache, written to it, or neither) and its output, which the next request carries. Null
 * before any response.
 */
export function contextTokens(history: History): number | null {
  for (let i = history.length - 1; i >= 0; i--) {
    // No usage (a reply cut off before its figures came, one kept by a compaction): not a measure.
    // A turn continued after `pause_turn`: its last request's figures, not the sum of them all.
    const last = entryUsage(history.at(i))?.last;
    if (last) return totalTokens(last);
  }
  return null;
}

/** A rough count of the tokens in `text` (about four characters each), for a message not sent yet. */
export const estimateTokens = (text: string): number => Math.ceil(text.length / 4);

const answersTools = (e: Entry) => e.message.role === "user" && e.message.content.some((b) => b.type === "tool_result");

/**
 * Where the history is cut to compact it up to message `at` (`C` on it; the history's length:
 * the whole thread): the messages from the cut on are kept verbatim, those before summarized. A
 * message answering tool calls cannot open the kept part (its calls would be summarized away):
 * the cut goes back to the call.
 */
export function cutAt(history: History, at: number): number {
  let cut = Math.min(Math.max(at, 0), history.length);
  while (cut > 0 && cut < history.length && answersTools(history.at(cut))) cut--;
  return cut;
}

const NO_USAGE = Object.freeze({ input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });

/** What the model is asked for: one summary, following the user's instructions when given. */
export function compactPrompt(instructions: string): string {
  const extra = instructions.trim() ? `\n\nThe user's instructions for this summary: ${instructions.trim()}` : "";
  return (
    "This conversation is being compacted: a new thread will continue it holding only your summary (the files " +
    "followed come with it, as they are). Write that summary now, complete enough to go on without the messages: " +
    "the user's goal and requests, the decisions made and why, what was done (files changed, commands run, " +
    "results), what was learned about the code, and, last, every open point still to do as a list under the " +
    `heading "Open points". Do not call any tool.${extra}`
  );
}

/** The text block that opens a compacted thread; `messages`: how many of the source's it summarizes. */
export function summaryBlock(sourceTitle: string, messages: number, summary: string, unknown: readonly string[]): string {
  const lost = unknown.length
    ? `\n\nAlso followed there, their last text unknown (mention them again with @file: to follow them here): ${unknown.join(", ")}`
    : "";
  return (
    `This thread continues "${sourceTitle}", compacted: its first ${messages} messages are summarized here ` +
    `(that thread is kept whole).\n\n${summary}${lost}`
  );
}

/**
 * The new thread's history: one user message holding the files followed at the cut (as last
 * sent: the next send carries what changed since) and the summary, then the messages from `cut`
 * on as they are (a user message there joins the first one, so roles still alternate).
 */
export function compactedHistory(history: History, cut: number, summary: string, followed: Followed, sourceTitle: string): History {
  const files: UserBlock[] = [];
  const unknown: string[] = [];
  for (const [path, text] of followed) {
    if (text === null) unknown.push(path);
    else files.push({ type: "text", text: writeContextBlock({ kind: "file", path, text, unsaved: false, changed: false }) });
  }
  const first: UserBlock[] = [...files, { type: "text", text: summaryBlock(sourceTitle, cut, summary, unknown) }];
  // Kept verbatim; their usage was the source's requests', not this thread's (nor a measure of its context).
  const kept = [...history.entries(cut)].map((e) => (e.meta ? entry(e.message, { ...e.meta, usage: NO_USAGE }) : e));
  const head = kept[0];
  if (head?.message.role === "user") {
    kept[0] = entry(userMessage([...first, ...head.message.content]));
    return History.of(kept);
  }
  return History.of([entry(userMessage(first)), ...kept]);
}
