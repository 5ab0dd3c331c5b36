/**
 * What the editor shows, as mentions need it: the host asks Neovim once per send
 * (`require("tine.context").gather`, lua/tine/context.lua) for what the message's mentions need,
 * and checks the answer's shape here before anything reads it.
 */

/** What a mention reads of the editor; a send asks for the union of its mentions' needs in one call. */
export type EditorNeed =
  /** The window the user came from: its buffer's name, text and cursor. */
  | "source"
  /** Every listed, loaded buffer's name and text. */
  | "buffers"
  /** The diagnostics of the source window's buffer. */
  | "diagnostics"
  | "workspace-diagnostics"
  | "quickfix"
  /** The text of modified buffers, for files read as the user sees them. */
  | "modified";

/** The request lua/tine/context.lua answers. `around`: lines shown either side of a diagnostic. */
export type GatherRequest = {
  source: boolean;
  buffers: boolean;
  diagnostics: "none" | "buffer" | "workspace";
  quickfix: boolean;
  modified: boolean;
  around: number;
};

/**
 * A buffer's text: its lines joined with newlines (one string, not a list: 50 buffers cross the
 * RPC channel as 50 strings), and whether a write would end the last line with a newline.
 */
export type BufferText = { readonly name: string; readonly text: string; readonly eol: boolean; readonly modified: boolean };

/** A line (1-based) in a file, with lines around it from `first` on. */
export type Located = {
  readonly name: string;
  readonly lnum: number;
  readonly col: number;
  readonly first: number;
  readonly lines: readonly string[];
};

export type Diagnostic = Located & { readonly severity: string; readonly source: string; readonly message: string };
export type QuickfixEntry = Located & { readonly type: string; readonly text: string };

export type EditorFacts = {
  /** The window the user came from (null when none is known), with its text when asked. */
  readonly source: (BufferText & { readonly cursor: number }) | null;
  readonly buffers: readonly BufferText[];
  readonly diagnostics: readonly Diagnostic[];
  readonly quickfix: readonly QuickfixEntry[];
  /** Modified buffers, by absolute name. */
  readonly modified: ReadonlyMap<string, BufferText>;
};

/** Lines before and after each diagnostic. */
const DIAGNOSTIC_AROUND = 2;

export function requestFor(needs: ReadonlySet<EditorNeed>): GatherRequest {
  return {
    source: needs.has("source"),
    buffers: needs.has("buffers"),
    diagnostics: needs.has("workspace-diagnostics") ? "workspace" : needs.has("diagnostics") ? "buffer" : "none",
    quickfix: needs.has("quickfix"),
    modified: needs.has("modified"),
    around: DIAGNOSTIC_AROUND,
  };
}

/** A buffer's text as a write would leave it on disk. */
export function textOf(b: BufferText): string {
  return b.eol ? `${b.text}\n` : b.text;
}

// ---- the answer's shape, checked ----

class Shape extends Error {}
type Obj = Record<string, unknown>;

function obj(v: unknown, what: string): Obj {
  if (!v || typeof v !== "object" || Array.isArray(v)) throw new Shape(`${what} is not a table`);
  return v as Obj;
}
const str = (o: Obj, k: string): string => {
  const v = o[k] ?? "";
  if (typeof v !== "string") throw new Shape(`${k} is not a string`);
  return v;
};
const num = (o: Obj, k: string): number => {
  const v = o[k] ?? 0;
  if (typeof v !== "number") throw new Shape(`${k} is not a number`);
  return v;
};
const bool = (o: Obj, k: string): boolean => o[k] === true;
/** A Lua list: an empty one may come as an empty map. */
function list(v: unknown, what: string): unknown[] {
  if (v === undefined || v === null) return [];
  if (Array.isArray(v)) return v;
  if (typeof v === "object" && Object.keys(v).length === 0) return [];
  throw new Shape(`${what} is not a list`);
}
const strings = (v: unknown, what: string): string[] =>
  list(v, what).map((s) => {
    if (typeof s !== "string") throw new Shape(`${what} holds a non-string`);
    return s;
  });

const bufferText = (o: Obj): BufferText => ({
  name: str(o, "name"),
  text: str(o, "text"),
  eol: bool(o, "eol"),
  modified: bool(o, "modified"),
});
const located = (o: Obj): Located => ({
  name: str(o, "name"),
  lnum: num(o, "lnum"),
  col: num(o, "col"),
  first: num(o, "first"),
  lines: strings(o["lines"], "lines"),
});

/** The facts in Lua's answer; throws naming what does not fit. */
export function readFacts(answer: unknown): EditorFacts {
  try {
    const a = obj(answer, "the answer");
    const source = a["source"] == null ? null : obj(a["source"], "source");
    const modified = list(a["modified"], "modified").map((b) => bufferText(obj(b, "a modified buffer")));
    return {
      source: source && { ...bufferText(source), cursor: num(source, "cursor") },
      buffers: list(a["buffers"], "buffers").map((b) => bufferText(obj(b, "a buffer"))),
      diagnostics: list(a["diagnostics"], "diagnostics").map((d) => {
        const o = obj(d, "a diagnostic");
        return { ...located(o), severity: str(o, "severity"), source: str(o, "source"), message: str(o, "message") };
      }),
      quickfix: list(a["quickfix"], "quickfix").map((q) => {
        const o = obj(q, "a quickfix entry");
        return { ...located(o), type: str(o, "type"), text: str(o, "text") };
      }),
      modified: new Map(modified.map((b) => [b.name, b])),
    };
  } catch (error) {
    if (error instanceof Shape) throw new Error(`tine: what Neovim gave for the mentions does not fit: ${error.message}`);
    throw error;
  }
}
