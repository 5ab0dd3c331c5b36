/**
 * The agent's text streaming, read without the SDK's schema check. The SDK checks each message
 * against its zod schema (twice for a `session/update`), which costs more host CPU than the fold
 * and the drawing of a text chunk together (test/bench/acp-updates.bench.ts). A line that is a
 * `session/update` notification of a text chunk (`agent_message_chunk`, `agent_thought_chunk`) is
 * checked here by hand, field by field, and handed on as a new object holding only those fields:
 * nothing else the agent wrote reaches tine. Every other line, and a chunk line that does not fit
 * exactly, goes on to the SDK as it came.
 *
 * Order: a chunk taken here is handed on at once, while lines given to the SDK are handled a
 * little later; so a chunk is only taken here while no update given to the SDK waits to be
 * handled (`waiting()`), else it goes the SDK's way behind it.
 */
import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";

const NEWLINE = 0x0a;
const CHUNK_KINDS = new Set(["agent_message_chunk", "agent_thought_chunk"]);
/** Bytes every line this takes has; others are not parsed here. */
const MARK = Buffer.from('"session/update"');

export type FastUpdates = {
  /** Whether an update given to the SDK has not been handled yet. */
  readonly waiting: () => boolean;
  /** A text chunk taken here, for session `sessionId`. */
  readonly update: (sessionId: string, update: SessionUpdate) => void;
  /** A `session/update` line went to the SDK (the counterpart of `waiting`). */
  readonly passed: () => void;
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The chunk `line` is, checked, or null: not one this takes. */
export function textChunkOf(line: string): { sessionId: string; update: SessionUpdate } | null {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return null;
  }
  if (!isObject(message) || message["jsonrpc"] !== "2.0" || message["method"] !== "session/update" || "id" in message) return null;
  const params = message["params"];
  if (!isObject(params) || typeof params["sessionId"] !== "string") return null;
  const update = params["update"];
  if (!isObject(update) || !CHUNK_KINDS.has(update["sessionUpdate"] as string)) return null;
  const content = update["content"];
  if (!isObject(content) || content["type"] !== "text" || typeof content["text"] !== "string") return null;
  const messageId = update["messageId"];
  if (messageId !== undefined && messageId !== null && typeof messageId !== "string") return null;
  const kind = update["sessionUpdate"] as "agent_message_chunk" | "agent_thought_chunk";
  return {
    sessionId: params["sessionId"],
    update: {
      sessionUpdate: kind,
      content: { type: "text", text: content["text"] },
      ...(typeof messageId === "string" ? { messageId } : {}),
    },
  };
}

/** Takes the text chunks out of the agent's stdout (whole lines, after stdout-lines.ts), the rest passed on. */
export function takeTextChunks(to: FastUpdates): TransformStream<Uint8Array, Uint8Array> {
  let pieces: Uint8Array[] = [];
  const line = (bytes: Uint8Array, controller: TransformStreamDefaultController<Uint8Array>) => {
    const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (buf.indexOf(MARK) !== -1) {
      if (!to.waiting()) {
        const chunk = textChunkOf(buf.toString("utf8"));
        try {
          if (chunk) return to.update(chunk.sessionId, chunk.update);
        } catch {
          // A listener that throws must not end the agent's stream: the line goes the SDK's way,
          // which reports a failing handler as it does for every other message.
        }
      }
      to.passed();
    }
    controller.enqueue(bytes);
  };
  return new TransformStream({
    transform(chunk, controller) {
      let i = 0;
      while (i < chunk.length) {
        const end = chunk.indexOf(NEWLINE, i);
        if (end === -1) {
          pieces.push(chunk.slice(i));
          return;
        }
        const piece = chunk.subarray(i, end + 1);
        if (pieces.length) {
          pieces.push(piece);
          line(Buffer.concat(pieces), controller);
          pieces = [];
        } else line(piece.slice(), controller);
        i = end + 1;
      }
    },
    flush(controller) {
      if (pieces.length) controller.enqueue(Buffer.concat(pieces));
    },
  });
}
