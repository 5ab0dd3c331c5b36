/**
 * The lines of a JSON Lines file (a Claude Code transcript), read a piece at a time. A line up to
 * `maxBytes` comes as its text; a longer one is never held whole: it comes as its size and, when
 * it is one JSON object, the top-level fields asked for (strings, booleans and null, as short as
 * links are), read as its bytes pass. So a file of any size with a line of any length is read in
 * bounded memory, and a reader keeps a too-long record's place in the chain without its content.
 *
 * Bytes, not characters: a newline byte never occurs inside a multi-byte UTF-8 character, nor do
 * the bytes of JSON's structure (quotes, brackets, backslashes).
 */
import { closeSync, openSync, readSync } from "node:fs";

export type Scalar = string | boolean | null;

export type JsonlLine =
  /** `ended`: a newline followed it (a last line without one may have been cut mid-write). */
  | { readonly kind: "text"; readonly n: number; readonly text: string; readonly ended: boolean }
  /** `fields`: those asked for that it has at its top level; null when it is not one JSON object. */
  | {
      readonly kind: "too-long";
      readonly n: number;
      readonly bytes: number;
      readonly fields: Readonly<Record<string, Scalar>> | null;
      readonly ended: boolean;
    };

const CHUNK = 1024 * 1024;
/** Longer keys and values are never links: they are skipped, not kept. */
const MAX_CAPTURE = 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** Where `byte` next is in `bytes` from `from` on; their length when nowhere. */
const nextAt = (bytes: Uint8Array, byte: number, from: number) => {
  const at = bytes.indexOf(byte, from);
  return at < 0 ? bytes.length : at;
};
const isSpace = (b: number) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;

/**
 * Reads one JSON object's top-level `wanted` fields from its bytes as they come, without keeping
 * them: nested values and unwanted strings are skipped (a long string with one search for its end).
 */
class TopLevelFields {
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** Where the object is, at its top level. */
  private expect: "open" | "key" | "colon" | "value" | "literal" | "comma" | "done" | "bad" = "open";
  /** The bytes of the top-level key or wanted value being read; null: not kept. */
  private capture: number[] | null = null;
  private stringIsKey = false;
  private key = "";
  readonly fields: Record<string, Scalar> = {};

  constructor(private readonly wanted: ReadonlySet<string>) {}

  feed(bytes: Uint8Array): void {
    // Where the next quote and backslash are (searched again only once passed: linear however many).
    let quote = -1;
    let slash = -1;
    let i = 0;
    while (i < bytes.length && this.expect !== "bad") {
      if (this.inString && this.capture === null && !this.escaped) {
        // Skipped text: straight to its next quote or backslash.
        if (quote < i) quote = nextAt(bytes, QUOTE, i);
        if (slash < i) slash = nextAt(bytes, BACKSLASH, i);
        i = Math.min(quote, slash);
        if (i >= bytes.length) return;
      }
      this.take(bytes[i]!);
      i++;
    }
  }

  private take(b: number): void {
    if (this.inString) this.stringByte(b);
    else if (this.expect === "literal" && !isSpace(b) && b !== 0x2c && b !== 0x7d) this.keep(b);
    else {
      if (this.expect === "literal") this.endLiteral();
      if (!isSpace(b)) this.structure(b);
    }
  }

  private stringByte(b: number): void {
    if (this.escaped) this.escaped = false;
    else if (b === BACKSLASH) this.escaped = true;
    else if (b === QUOTE) {
      this.inString = false;
      if (this.depth === 1) this.endString();
      return;
    }
    this.keep(b);
  }

  /** A byte outside strings and literals: where it stands in the object, at its top level. */
  private structure(b: number): void {
    const top = this.depth === 1;
    if (b === QUOTE) {
      this.inString = true;
      this.stringIsKey = top && this.expect === "key";
      if (this.depth === 0 || (top && !this.stringIsKey && this.expect !== "value")) this.fail();
      else if (top) this.capture = this.stringIsKey || this.wanted.has(this.key) ? [] : null;
    } else if (b === 0x7b || b === 0x5b) {
      // { [: the object itself, or a value (nested ones are only counted).
      if (this.depth === 0 ? b !== 0x7b || this.expect !== "open" : top && this.expect !== "value") this.fail();
      else {
        if (this.depth === 0) this.expect = "key";
        this.depth++;
      }
    } else if (b === 0x7d || b === 0x5d) {
      // } ]: the object's end, a value's, or a nested one's.
      if (this.depth === 0 || (top && (b !== 0x7d || (this.expect !== "comma" && this.expect !== "key")))) this.fail();
      else {
        if (top) this.expect = "done";
        else if (this.depth === 2) this.expect = "comma";
        this.depth--;
      }
    } else if (this.depth === 0) this.fail();
    else if (!top) return;
    else if (b === 0x3a && this.expect === "colon") this.expect = "value";
    else if (b === 0x2c && this.expect === "comma") this.expect = "key";
    else if (this.expect === "value") {
      this.expect = "literal";
      this.capture = this.wanted.has(this.key) ? [b] : null;
    } else this.fail();
  }

  /** A byte of the key or wanted value being read; one too long to be a link is not kept. */
  private keep(b: number): void {
    if (!this.capture) return;
    if (this.capture.length < MAX_CAPTURE) this.capture.push(b);
    else this.capture = null;
  }

  private endString(): void {
    const text = this.capture ? decodeString(this.capture) : null;
    if (this.stringIsKey) {
      this.key = text ?? "";
      this.expect = "colon";
    } else {
      if (text !== null) this.fields[this.key] = text;
      this.expect = "comma";
    }
    this.capture = null;
  }

  private endLiteral(): void {
    const word = this.capture ? Buffer.from(this.capture).toString("latin1") : "";
    if (word === "true" || word === "false" || word === "null") this.fields[this.key] = word === "null" ? null : word === "true";
    this.capture = null;
    this.expect = "comma";
  }

  private fail(): void {
    this.expect = "bad";
  }

  /** The fields read, or null when the bytes were not one whole JSON object. */
  result(): Record<string, Scalar> | null {
    if (this.expect === "literal") this.endLiteral();
    return this.expect === "done" ? this.fields : null;
  }
}

/** A JSON string's text from the bytes between its quotes, or null when they are not one. */
function decodeString(bytes: readonly number[]): string | null {
  try {
    const value: unknown = JSON.parse(`"${Buffer.from(bytes).toString("utf8")}"`);
    return typeof value === "string" ? value : null;
  } catch {
    return null;
  }
}

/** Splits `chunks` into lines: each kept whole up to `maxBytes`, past that read for `wanted` and let go. */
export function* splitLines(chunks: Iterable<Uint8Array>, maxBytes: number, wanted: ReadonlySet<string>): Generator<JsonlLine> {
  let n = 1;
  let pieces: Uint8Array[] = [];
  let size = 0;
  let long: TopLevelFields | null = null;
  const add = (piece: Uint8Array) => {
    size += piece.length;
    if (!long && size > maxBytes) {
      long = new TopLevelFields(wanted);
      for (const p of pieces) long.feed(p);
      pieces = [];
    }
    if (long) long.feed(piece);
    else if (piece.length) pieces.push(piece);
  };
  const line = (ended: boolean): JsonlLine => {
    const done: JsonlLine = long
      ? { kind: "too-long", n, bytes: size, fields: (long as TopLevelFields).result(), ended }
      : { kind: "text", n, text: Buffer.concat(pieces).toString("utf8"), ended };
    n++;
    pieces = [];
    size = 0;
    long = null;
    return done;
  };
  for (const chunk of chunks) {
    let at = 0;
    for (let nl = chunk.indexOf(0x0a, at); nl >= 0; nl = chunk.indexOf(0x0a, at)) {
      add(chunk.subarray(at, nl));
      yield line(true);
      at = nl + 1;
    }
    add(chunk.subarray(at));
  }
  if (size > 0) yield line(false);
}

/** A file's bytes, a piece at a time (each piece its own buffer: lines keep pieces of it). */
function* fileChunks(path: string): Generator<Uint8Array> {
  const fd = openSync(path, "r");
  try {
    for (;;) {
      const buf = Buffer.allocUnsafe(CHUNK);
      const read = readSync(fd, buf, 0, CHUNK, null);
      if (read === 0) return;
      yield buf.subarray(0, read);
    }
  } finally {
    closeSync(fd);
  }
}

/** The lines of the file at `path` (see `splitLines`). */
export function fileLines(path: string, maxBytes: number, wanted: ReadonlySet<string>): Generator<JsonlLine> {
  return splitLines(fileChunks(path), maxBytes, wanted);
}

/** The lines of `text` (see `splitLines`). */
export function textLines(text: string, maxBytes: number, wanted: ReadonlySet<string>): Generator<JsonlLine> {
  return splitLines([Buffer.from(text, "utf8")], maxBytes, wanted);
}
