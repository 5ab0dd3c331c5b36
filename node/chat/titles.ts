/**
 * The one rule for thread titles: what a user, a first message, a fork's prompt or the model gives,
 * made safe and short, and who may rename a thread after whom.
 */

import { mentionsAsRead } from "../context/mentions.ts";

/** The longest title, in characters: a longer one is cut, ending in "…". */
export const TITLE_MAX_CHARS = 80;
/** A title made from a message is shorter: its first words, for the list. */
const MESSAGE_TITLE_CHARS = 40;

/** A C0 or C1 control character, or DEL (ESC, BEL, NUL, line breaks, tabs…). */
const CONTROL = /\p{Cc}/gu;

const shortened = (line: string, max: number) => (line.length > max ? `${line.slice(0, max - 1).trimEnd()}…` : line);

/**
 * The rule for every title a user or a message gives (`:Tine rename`, the list's `r`, a first
 * message): one line, without control characters (a title reaches buffer names, the list and
 * notices, where ESC or BEL would act), spaces collapsed, at most TITLE_MAX_CHARS. "" when
 * nothing is left.
 */
export function cleanTitle(text: string): string {
  return shortened(text.replace(CONTROL, " ").replace(/\s+/g, " ").trim(), TITLE_MAX_CHARS);
}

/**
 * A title from the first user message (or a fork's prompt): its first line as the user reads it
 * (mentions as their files' paths or left out: mentions.ts), shortened, as cleanTitle keeps every
 * title; the line as typed when that leaves nothing (`@diff`).
 */
export function titleFrom(text: string): string {
  const firstLine = text.trim().split("\n")[0]!;
  const title = cleanTitle(mentionsAsRead(firstLine)) || cleanTitle(firstLine);
  return shortened(title, MESSAGE_TITLE_CHARS) || "Untitled";
}

/**
 * Who named a thread, which says what may rename it: a placeholder (`Thread 3`, `Claude Code 2`,
 * a fork taken without a prompt) gives way to the first message the user sends; a title from a
 * message, to the model's (asked once, after the first reply: "asked" until it answers); a title
 * the user gave, or one read from disk ("kept"), to nothing but the user.
 */
export type TitledBy = "placeholder" | "message" | "asked" | "model" | "kept";

/** The mark a fork taken without a prompt ends with: ` ⑂7`. */
const FORK_MARK = / ⑂\d+$/;
/** The mark a compaction's title opens with (the list shows no other for it): `⇣ `. */
const COMPACT_MARK = /^(⇣ )+/;

/** A compaction's title: its source's, marked once (a compaction of a compaction is `⇣ x`, not `⇣ ⇣ x`). */
export const compactTitle = (sourceTitle: string): string => `⇣ ${sourceTitle.replace(COMPACT_MARK, "")}`;

/**
 * A fork's title: its prompt's first words. Without a prompt, a placeholder until the user's first
 * message there names it: its source's title and the fork's own number (`plan the refactor ⑂7`,
 * the number `tine #7` and `:Tine diff 7` use), one mark however deep (a fork of `x ⑂7` is
 * `x ⑂9`, not `x ⑂7 ⑂9`), without a compaction's mark (a fork of `⇣ x` is no compaction:
 * `x ⑂9`). The list and the parent's fork marks put `⑂ ` before every fork.
 */
export function forkTitle(sourceTitle: string, prompt: string, num: number): { title: string; by: TitledBy } {
  if (prompt.trim()) return { title: titleFrom(prompt), by: "message" };
  return { title: `${sourceTitle.replace(FORK_MARK, "").replace(COMPACT_MARK, "")} ⑂${num}`, by: "placeholder" };
}
