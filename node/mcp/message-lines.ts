/**
 * A stdio MCP server's output cut into its messages (one JSON-RPC message a line), read in time
 * linear in its size, each held up to a bound. A longer line is not kept but counted to its end,
 * its first and last bytes kept to tell which request it answered (`answeredId`), and the lines
 * after it are read as before: the server goes on serving.
 */

/** The largest message read from a server: a result's text is capped once read (results.ts); this bounds the host's memory. */
export const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;

/** The error a request whose answer is too large to read gets (JSON-RPC's range for an implementation's own); `data.bytes`: its size. */
export const RESULT_TOO_LARGE = -32_090;

/** What a line of a server's output is. */
export type ServerLine =
  | { readonly type: "message"; readonly text: string }
  /** A line over the bound: its size, and its first and last bytes (the id of the request it answers is at one end). */
  | { readonly type: "too-large"; readonly bytes: number; readonly start: string; readonly end: string };

/** Bytes kept of each end of a line too large to read: room for `{"jsonrpc":"2.0","id":…` or `…,"id":…}`. */
const ENDS = 256;
const NEWLINE = 0x0a;

export class MessageLines {
  /** The current line's pieces while it is within the bound. */
  private pieces: Buffer[] = [];
  private size = 0;
  /** The current line once it went past the bound: only its size and ends are kept. */
  private skipped: { bytes: number; start: Buffer; end: Buffer } | null = null;

  constructor(private readonly maxBytes: number) {}

  /** The lines `chunk` completes. */
  push(chunk: Buffer): ServerLine[] {
    const lines: ServerLine[] = [];
    for (let at = chunk.indexOf(NEWLINE); at !== -1; at = chunk.indexOf(NEWLINE)) {
      this.add(chunk.subarray(0, at));
      const line = this.finish();
      if (line) lines.push(line);
      chunk = chunk.subarray(at + 1);
    }
    this.add(chunk);
    return lines;
  }

  private add(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.skipped) {
      this.skipped.bytes += piece.length;
      this.skipped.end = lastBytes(Buffer.concat([this.skipped.end, lastBytes(piece)]));
      return;
    }
    if (this.size + piece.length <= this.maxBytes) {
      this.pieces.push(piece);
      this.size += piece.length;
      return;
    }
    const start = Buffer.concat([...this.pieces, piece.subarray(0, ENDS)]).subarray(0, ENDS);
    const end = lastBytes(Buffer.concat([...this.pieces.slice(-1), piece]));
    this.skipped = { bytes: this.size + piece.length, start, end };
    this.pieces = [];
    this.size = 0;
  }

  private finish(): ServerLine | null {
    const skipped = this.skipped;
    const pieces = this.pieces;
    this.skipped = null;
    this.pieces = [];
    this.size = 0;
    if (skipped)
      return { type: "too-large", bytes: skipped.bytes, start: skipped.start.toString("utf8"), end: skipped.end.toString("utf8") };
    const text = Buffer.concat(pieces).toString("utf8").replace(/\r$/, "");
    return text.trim() ? { type: "message", text } : null;
  }
}

const lastBytes = (b: Buffer) => (b.length > ENDS ? b.subarray(b.length - ENDS) : b);

/** A JSON-RPC id: a number or a string, as JSON. */
const ID = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
/** The id of a message that starts with it (after `jsonrpc`, as most SDKs write it)… */
const ID_FIRST = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID}`);
/** …or ends with it (as the TypeScript SDK writes a response: `{"result":…,"jsonrpc":"2.0","id":3}`). */
const ID_LAST = new RegExp(String.raw`,\s*"id"\s*:\s*${ID}\s*\}\s*$`);

/** The id of the request a line too large to read answers, when its ends tell it. */
export function answeredId(line: Extract<ServerLine, { type: "too-large" }>): number | string | null {
  const found = ID_FIRST.exec(line.start) ?? ID_LAST.exec(line.end);
  if (!found) return null;
  try {
    const id: unknown = JSON.parse(found[1]!);
    return typeof id === "number" || typeof id === "string" ? id : null;
  } catch {
    return null;
  }
}
