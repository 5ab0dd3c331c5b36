/**
 * The agent's streaming, read without the SDK's schema check. The SDK checks each message against
 * its zod schema (twice for a `session/update`), which costs more host CPU than the fold and the
 * drawing of an update together (test/bench/acp-updates.bench.ts). A line that is a
 * `session/update` of the kinds a turn is made of (text chunks, tool calls and their updates) is
 * checked here by hand instead (update-check.ts, which takes only what the schema would take as
 * it is) and handed on as a new object of the fields checked. Every other line, and an update
 * line that does not fit exactly, goes on to the SDK as it came.
 *
 * Order: an update taken here is handed on at once, while lines given to the SDK are handled a
 * little later; so an update is only taken here while no update given to the SDK waits to be
 * handled (`waiting()`), else it goes the SDK's way behind it.
 */
import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { checkedUpdateOf } from "./update-check.ts";

const NEWLINE = 0x0a;
/** Bytes every line this takes has; others are not parsed here. */
const MARK = Buffer.from('"session/update"');

export type FastUpdates = {
  /** Whether an update given to the SDK has not been handled yet. */
  readonly waiting: () => boolean;
  /** An update taken here, for session `sessionId`. */
  readonly update: (sessionId: string, update: SessionUpdate) => void;
  /** A `session/update` line went to the SDK (the counterpart of `waiting`). */
  readonly passed: () => void;
};

/** Takes the updates checked by hand out of the agent's stdout (whole lines, after stdout-lines.ts), the rest passed on. */
export function takeCheckedUpdates(to: FastUpdates): TransformStream<Uint8Array, Uint8Array> {
  let pieces: Uint8Array[] = [];
  const line = (bytes: Uint8Array, controller: TransformStreamDefaultController<Uint8Array>) => {
    const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (buf.indexOf(MARK) !== -1) {
      if (!to.waiting()) {
        const taken = checkedUpdateOf(buf.toString("utf8"));
        try {
          if (taken) return to.update(taken.sessionId, taken.update);
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
