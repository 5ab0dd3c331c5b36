/**
 * Words from outside (an agent, a server) shown as one line of the display, cut short: nothing
 * from outside is trusted to be either. Control characters (newlines, escapes) become spaces; a
 * line cut is marked with … within `max` characters.
 */
export function oneLine(text: string, max = 120): string {
  const line = text.replace(/\p{Cc}+/gu, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
