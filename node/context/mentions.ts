/**
 * Finds the mentions in a message's text (`@file:a.ts`, `@buf`, `@diff:HEAD~1`…): a pure function
 * of the text, so what counts as a mention is decided here alone. The names are mention-names.ts'.
 *
 * A mention starts with `@` at the start of a line, after a space or an opening bracket (an e-mail address or
 * `a@b` is no mention), is one of the known names, and ends at a space, at the end of the line
 * or before trailing punctuation (`see @file:a.ts.`). An argument in double quotes may hold
 * spaces (`@file:"my notes.md"`). Nothing inside code (a fenced block or `inline code`) is one.
 * The text itself is sent as typed: a mention is a word of the user's sentence ("compare
 * @file:a.ts with @file:b.ts"), and its content follows in blocks of its own (blocks.ts).
 */
import { MENTIONS, type MentionName, type MentionSpec } from "./mention-names.ts";

export type Mention = {
  readonly name: MentionName;
  /** What follows the colon (`@file:<path>`), or null when there is none. */
  readonly argument: string | null;
  /** As written, for the messages that name it. */
  readonly source: string;
};

// Longest names first, so `@bufs` is not read as `@buf` followed by "s".
const BY_LENGTH: readonly MentionSpec[] = [...MENTIONS].sort((a, b) => b.name.length - a.name.length);

/** Punctuation that ends a sentence rather than a path: taken off the end of a mention. */
const TRAILING = /[.,;:!?)\]'"]+$/;
/** After a mention without an argument: the end of the word, perhaps after punctuation. */
const WORD_END = /^[.,;!?)\]'"]*(?=\s|$)/;
const FENCE = /^\s*(```|~~~)/;
/** What may stand right before a mention's `@`: a space or an opening bracket or quote. */
const OPENS = /[\s(["']/;

/** The mentions of `text`, in the order written, each distinct one once. */
export function parseMentions(text: string): readonly Mention[] {
  const mentions: Mention[] = [];
  const seen = new Set<string>();
  for (const { mention } of mentionsIn(text.split("\n"))) {
    const key = `${mention.name}\u0000${mention.argument ?? ""}`;
    if (!seen.has(key)) {
      seen.add(key);
      mentions.push(mention);
    }
  }
  return mentions;
}

/**
 * `text` as the user reads it, for a title: a file's mention is its path (`@file:a.ts` is
 * `a.ts`), the others are left out (`@buf`, `@diff:HEAD~1`: what the message brought, not words).
 */
export function mentionsAsRead(text: string): string {
  const lines = text.split("\n");
  // From the end, so the places found before stay right.
  for (const { line, start, end, mention } of [...mentionsIn(lines)].reverse()) {
    const shown = mention.name === "file" ? (mention.argument ?? "") : "";
    lines[line] = lines[line]!.slice(0, start) + shown + lines[line]!.slice(end);
  }
  return lines.join("\n");
}

/** Every mention of `lines`, in the order written, with its place (line, and columns `start` to `end`). */
function* mentionsIn(lines: readonly string[]): Generator<{ line: number; start: number; end: number; mention: Mention }> {
  let fenced = false;
  for (const [n, line] of lines.entries()) {
    if (FENCE.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (fenced) continue;
    for (let i = line.indexOf("@"); i !== -1; i = line.indexOf("@", i + 1)) {
      if ((i > 0 && !OPENS.test(line[i - 1]!)) || insideInlineCode(line, i)) continue;
      const found = mentionAt(line, i);
      if (!found) continue;
      yield { line: n, start: i, end: found.end, mention: found.mention };
      i = found.end - 1;
    }
  }
}

/**
 * How `@name:argument` is written so that `parseMentions` reads it back whole (quoted when it
 * holds a space or ends in punctuation); null when it cannot be (a double quote or a line break in it).
 */
export function writtenMention(name: MentionName, argument: string): string | null {
  if (!argument || /["\n\r]/.test(argument)) return null;
  return /\s/.test(argument) || TRAILING.test(argument) ? `@${name}:"${argument}"` : `@${name}:${argument}`;
}

/** An odd number of backticks before `i` on its line: `i` is inside inline code. */
function insideInlineCode(line: string, i: number): boolean {
  let ticks = 0;
  for (let j = line.indexOf("`"); j !== -1 && j < i; j = line.indexOf("`", j + 1)) ticks++;
  return ticks % 2 === 1;
}

/** The mention starting at `line[at]` (an `@`) and where it ends, or null. */
function mentionAt(line: string, at: number): { mention: Mention; end: number } | null {
  for (const spec of BY_LENGTH) {
    const nameEnd = at + 1 + spec.name.length;
    if (line.slice(at + 1, nameEnd) !== spec.name) continue;
    if (line[nameEnd] === ":" && spec.argument !== "none") {
      const arg = argumentAt(line, nameEnd + 1);
      if (!arg) return null;
      return { mention: { name: spec.name, argument: arg.value, source: line.slice(at, arg.end) }, end: arg.end };
    }
    // Without an argument the word must end here: `@buffer` or `@buf:x` is no mention.
    if (!WORD_END.test(line.slice(nameEnd))) continue;
    return { mention: { name: spec.name, argument: null, source: `@${spec.name}` }, end: nameEnd };
  }
  return null;
}

/** A mention's argument from `start`: quoted, or up to the next space less trailing punctuation. */
function argumentAt(line: string, start: number): { value: string; end: number } | null {
  if (line[start] === '"') {
    const close = line.indexOf('"', start + 1);
    if (close <= start + 1) return null;
    return { value: line.slice(start + 1, close), end: close + 1 };
  }
  const space = line.slice(start).search(/\s/);
  const end = space === -1 ? line.length : start + space;
  const raw = line.slice(start, end);
  const value = raw.slice(0, raw.length - (TRAILING.exec(raw)?.[0].length ?? 0));
  return value ? { value, end: start + value.length } : null;
}
