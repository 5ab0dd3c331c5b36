/**
 * How the user is told which thread or message is meant: by its title or its first words, never
 * by its id (a UUID means nothing to anyone). Every message that names a thread goes through here.
 */
import { readContextBlock } from "../context/blocks.ts";
import type { ThreadId } from "../core/ids.ts";
import type { NativeMessage } from "../core/native.ts";
import { isTineNote, readReportBlock } from "./prompts.ts";

/** What knows thread titles (the chat). */
export type Titles = { titleOf(id: ThreadId): string | undefined };

/** A thread as a message names it: its title in quotes, or what became of it. */
export function threadName(titles: Titles, id: ThreadId): string {
  const title = titles.titleOf(id);
  return title === undefined ? "a thread that no longer exists (it was deleted or ended)" : `"${title}"`;
}

/** What knows thread numbers too (the chat). */
export type Listed = Titles & { numOf(id: ThreadId): number | undefined };

/**
 * A thread as the list names it, for a message about what the user asked (`#3 "explain ⑂3"`);
 * an id that is no thread (one the user gave) is quoted as given, said to be none.
 */
export function listedName(threads: Listed, id: ThreadId): string {
  const num = threads.numOf(id);
  if (num === undefined || threads.titleOf(id) === undefined) return `${JSON.stringify(id)} (no thread has that id)`;
  return `#${num} ${threadName(threads, id)}`;
}

/** At most this many characters of a message name it. */
const MESSAGE_NAME_CHARS = 40;

/**
 * Whether a text block of a user turn is what the user typed: not the context their mentions
 * brought, a fork's report that went with it, nor a note of tine's (a review's, a wrap-up prompt).
 */
export const isTyped = (text: string): boolean => !readContextBlock(text) && !readReportBlock(text) && !isTineNote(text);

/** What the user typed in a message of theirs (isTyped); "" for tool results and the like. */
export function typedText(message: NativeMessage): string {
  if (message.role !== "user") return "";
  return message.content.flatMap((b) => (b.type === "text" && isTyped(b.text) ? [b.text] : [])).join("\n");
}

/** A message as a banner names it: whose it is and its first words (`your "try a hash map…"`). */
export function messageName(message: NativeMessage | undefined): string {
  if (!message) return "its start";
  const text =
    message.role === "user"
      ? typedText(message)
      : message.content.flatMap((b) => (b.type === "text" ? [b.text] : b.type === "tool_use" ? [`(${b.name})`] : [])).join(" ");
  const words = text
    .replace(/\p{Cc}/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
  const short = words.length > MESSAGE_NAME_CHARS ? `${words.slice(0, MESSAGE_NAME_CHARS - 1).trimEnd()}…` : words;
  const whose = message.role === "user" ? "your message" : "Claude's reply";
  return short ? `${whose} "${short}"` : message.role === "user" ? "your tool results" : whose;
}
