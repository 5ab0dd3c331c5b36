/**
 * The one bound on JSON values that come from outside (the model's stream, a stored transcript, a
 * Claude Code transcript): how deep they nest and how long their text is. Everything after the
 * entry point (JSON.stringify, the Neovim RPC encoder, rendering) recurses, and a value nested a
 * few thousand levels deep overflows the stack there, far from where it came in; so values are
 * measured where they enter, without recursion, and refused there.
 *
 * Not options: the depth protects the host's own recursion (no tool takes inputs nested dozens of
 * levels deep), and the size is the Messages API's own request limit, past which a value can never
 * be sent back anyway.
 */

export type JsonBounds = { readonly depth: number; readonly chars: number };

/** The API refuses a request over 32 MB: a longer value can never go back to it. */
const API_REQUEST_CHARS = 32 * 1024 * 1024;

/** A tool call's input, as the model streams it. */
export const TOOL_INPUT_BOUNDS: JsonBounds = { depth: 64, chars: API_REQUEST_CHARS };

/**
 * One line of a transcript (tine's or Claude Code's): a record wraps a message, its blocks and a
 * tool input in a few levels of its own, so a line holding any input the stream accepts fits.
 */
export const LINE_BOUNDS: JsonBounds = { depth: TOOL_INPUT_BOUNDS.depth + 16, chars: API_REQUEST_CHARS };

/** Why `value` is out of `bounds` (its depth only: a parsed value has no text length), or null. */
export function depthProblem(value: unknown, bounds: JsonBounds): string | null {
  const stack: { value: object; depth: number }[] = [];
  if (value !== null && typeof value === "object") stack.push({ value, depth: 1 });
  while (stack.length) {
    const { value: v, depth } = stack.pop()!;
    if (depth > bounds.depth) return `nested more than ${bounds.depth} levels deep`;
    for (const child of Array.isArray(v) ? v : Object.values(v))
      if (child !== null && typeof child === "object") stack.push({ value: child, depth: depth + 1 });
  }
  return null;
}

export type Bounded =
  | { readonly ok: true; readonly value: unknown }
  /**
   * `outOfBounds`: refused for its size or depth, not for its syntax. `parsed`: the value of JSON
   * refused for its depth only, for a reader that needs a field or two of it (never to pass on).
   */
  | { readonly ok: false; readonly error: string; readonly outOfBounds: boolean; readonly parsed?: unknown };

/** Parses JSON text within `bounds`: too long, not JSON, or too deep is an error saying which. */
export function parseBounded(text: string, bounds: JsonBounds): Bounded {
  if (text.length > bounds.chars)
    return { ok: false, error: `${text.length} characters long, more than ${bounds.chars}`, outOfBounds: true };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `not JSON (${(error as Error).message})`, outOfBounds: false };
  }
  const deep = depthProblem(value, bounds);
  return deep ? { ok: false, error: deep, outOfBounds: true, parsed: value } : { ok: true, value };
}
