/**
 * The `fetch` an HTTP MCP server's transports (the SDK's Streamable HTTP and SSE) read through, so
 * what a remote server sends is bounded as a stdio server's output is (message-lines.ts): each
 * message (a JSON body, or one event of an event stream) is held up to MAX_MESSAGE_BYTES. Past
 * that, the stream is cut there — a body or event that never ends would otherwise grow the host
 * until it dies — and the request it answers (the one POSTed, or the id its start names) gets
 * RESULT_TOO_LARGE, as a stdio server's too large answer does. Bundled with the SDK (sdk-entry.ts).
 */
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { answeredId, MAX_MESSAGE_BYTES, RESULT_TOO_LARGE } from "./message-lines.ts";

/** Bytes kept of a message's start, to find the id it answers (as message-lines.ts keeps). */
const START = 256;
const LF = 0x0a;
const CR = 0x0d;

/** `base` (the global fetch), each response's body bounded by `maxBytes` a message. */
export function boundedFetch(maxBytes = MAX_MESSAGE_BYTES, base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const response = await base(url, init);
    // No body, or a redirect (its Location is read, not its body; and a new Response would lose its url).
    if (!response.body || (response.status >= 300 && response.status < 400)) return response;
    const requestId = postedId(init?.body);
    const type = response.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
    const body =
      type === "text/event-stream" ? boundEvents(response.body, maxBytes, requestId) : boundWhole(response.body, maxBytes, requestId);
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** The id of the one request a POST carries (a Streamable HTTP response answers it), else null. */
function postedId(body: unknown): number | string | null {
  if (typeof body !== "string") return null;
  try {
    const message: unknown = JSON.parse(body);
    if (typeof message !== "object" || message === null || Array.isArray(message) || !("method" in message)) return null;
    const id = (message as { id?: unknown }).id;
    return typeof id === "number" || typeof id === "string" ? id : null;
  } catch {
    return null;
  }
}

/** The answer a request whose message went past the bound gets, as JSON-RPC; `bytes`: its size, or what was read of it when `cut`. */
function tooLargeAnswer(id: number | string, bytes: number, maxBytes: number, cut: boolean): string {
  const message = cut
    ? `not read: a message of more than ${maxBytes} bytes from a server (cut after ${bytes})`
    : `not read: a message of ${bytes} bytes, over the ${maxBytes} read from a server`;
  return JSON.stringify({ jsonrpc: "2.0", id, error: { code: RESULT_TOO_LARGE, message, data: { bytes, cut } } });
}

/** The id a too large message answers: the request POSTed, or the one its start (`data:` taken off) or end names. */
function idOf(requestId: number | string | null, start: Uint8Array, end: Uint8Array = Buffer.alloc(0)): number | string | null {
  if (requestId !== null) return requestId;
  const startText = Buffer.from(start)
    .toString("utf8")
    .replace(/^(?:(?!data:)[^\n]*\n)*data: ?/, "");
  return answeredId({ type: "too-large", bytes: 0, start: startText, end: Buffer.from(end).toString("utf8") });
}

const firstBytes = (pieces: readonly Uint8Array[]) => Buffer.concat(pieces).subarray(0, START);

/** A body that is one message (JSON): read whole up to `maxBytes`; past it, the too large answer, or an error when it names no request. */
function boundWhole(source: ReadableStream<Uint8Array>, maxBytes: number, requestId: number | string | null): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      const pieces: Uint8Array[] = [];
      let size = 0;
      try {
        for (let read = await reader.read(); !read.done; read = await reader.read()) {
          size += read.value.byteLength;
          pieces.push(read.value);
          if (size <= maxBytes) continue;
          void reader.cancel().catch(() => {});
          const id = idOf(requestId, firstBytes(pieces));
          if (id === null) return controller.error(new Error(`dropped a message of more than ${maxBytes} bytes from a server`));
          controller.enqueue(Buffer.from(tooLargeAnswer(id, size, maxBytes, true)));
          return controller.close();
        }
        for (const piece of pieces) controller.enqueue(piece);
        controller.close();
      } catch (error) {
        controller.error(error);
      }
    },
    cancel: (why) => reader.cancel(why),
  });
}

/**
 * An event stream passed on an event at a time, each held until its blank line (the SDK's parser
 * splits lines at CR, LF or CRLF, as here), up to `maxBytes`. Past it, an event answering the
 * request POSTed is answered as too large at once and the stream ends. On a stream that answers
 * many (the older SSE transport's), an event is counted to its end, only its ends kept, and
 * answered by the id they name, as a stdio server's line (the TypeScript SDK writes the id last);
 * one still going past twice the bound ends the stream.
 */
function boundEvents(source: ReadableStream<Uint8Array>, maxBytes: number, requestId: number | string | null): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  const event = new EventBound(maxBytes, requestId);
  let lineBytes = 0;
  let lastWasCr = false;

  /** Reads a chunk; whether it passed anything on or ended the stream. */
  async function step(controller: ReadableStreamDefaultController<Uint8Array>): Promise<boolean> {
    const read = await reader.read();
    if (read.done) {
      controller.close();
      return true;
    }
    const chunk = read.value;
    const passed: Uint8Array[] = [];
    let from = 0;
    for (let at = 0; at < chunk.length; at++) {
      const byte = chunk[at]!;
      if (byte === LF && lastWasCr) {
        lastWasCr = false;
        continue;
      }
      lastWasCr = byte === CR;
      if (byte !== LF && byte !== CR) {
        lineBytes++;
        continue;
      }
      const endsEvent = lineBytes === 0;
      lineBytes = 0;
      if (!endsEvent) continue;
      // A CRLF's LF belongs to the event it ends.
      const end = byte === CR && chunk[at + 1] === LF ? at + 2 : at + 1;
      const cut = event.add(chunk.subarray(from, end));
      if (cut) return end_(controller, passed, cut);
      passed.push(...event.finish());
      from = end;
    }
    const cut = event.add(chunk.subarray(from));
    if (cut) return end_(controller, passed, cut);
    for (const piece of passed) controller.enqueue(piece);
    return passed.length > 0;
  }

  /** The stream cut: what passed before, then the too large answer (or an error when no request is known). */
  function end_(controller: ReadableStreamDefaultController<Uint8Array>, passed: readonly Uint8Array[], cut: Cut): true {
    void reader.cancel().catch(() => {});
    for (const piece of passed) controller.enqueue(piece);
    if (cut.id === null) controller.error(new Error(`dropped an event of more than ${maxBytes} bytes from a server`));
    else {
      controller.enqueue(Buffer.from(`event: message\ndata: ${tooLargeAnswer(cut.id, cut.bytes, maxBytes, true)}\n\n`));
      controller.close();
    }
    return true;
  }

  return new ReadableStream<Uint8Array>({
    // Reads until it passes something on: a pull that enqueues nothing is not called again.
    async pull(controller) {
      let passed = false;
      while (!passed) passed = await step(controller);
    },
    cancel: (why) => reader.cancel(why),
  });
}

/** Where the stream is cut, and the request then answered (null: none known). */
type Cut = { readonly id: number | string | null; readonly bytes: number };

/** The event being read: held while within the bound, else counted with its ends. */
class EventBound {
  private pieces: Uint8Array[] = [];
  private bytes = 0;
  private skipped: { start: Buffer; end: Buffer } | null = null;

  constructor(
    private readonly maxBytes: number,
    private readonly requestId: number | string | null,
  ) {}

  /** Adds a piece of the event; where to cut the stream, when it must be. */
  add(piece: Uint8Array): Cut | null {
    if (piece.length === 0) return null;
    this.bytes += piece.length;
    if (this.skipped) {
      this.skipped.end = lastBytes(Buffer.concat([this.skipped.end, lastBytes(Buffer.from(piece))]));
      return this.bytes > 2 * this.maxBytes ? { id: idOf(null, this.skipped.start), bytes: this.bytes } : null;
    }
    this.pieces.push(piece);
    if (this.bytes <= this.maxBytes) return null;
    const start = firstBytes(this.pieces);
    if (this.requestId !== null) return { id: this.requestId, bytes: this.bytes };
    this.skipped = { start, end: lastBytes(Buffer.concat(this.pieces.slice(-2))) };
    this.pieces = [];
    return null;
  }

  /** The event ended: what to pass on for it (itself, or the too large answer to the request its ends name). */
  finish(): Uint8Array[] {
    const { pieces, skipped, bytes } = this;
    this.pieces = [];
    this.bytes = 0;
    this.skipped = null;
    if (!skipped) return pieces;
    const id = idOf(null, skipped.start) ?? idOf(null, Buffer.alloc(0), skipped.end);
    // One that names no request is dropped, as a stdio server's line.
    return id === null ? [] : [Buffer.from(`event: message\ndata: ${tooLargeAnswer(id, bytes, this.maxBytes, false)}\n\n`)];
  }
}

const lastBytes = (b: Buffer) => (b.length > START ? b.subarray(b.length - START) : b);
