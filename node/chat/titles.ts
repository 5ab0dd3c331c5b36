/** The one rule for thread titles: what a user or a first message gives, made safe and short. */

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

/** A title from the first user message: its first line, shortened, as cleanTitle keeps every title. */
export function titleFrom(text: string): string {
  const firstLine = text.trim().split("\n")[0]!;
  return shortened(cleanTitle(firstLine), MESSAGE_TITLE_CHARS) || "Untitled";
}
