/**
 * The messages waiting in a thread's queue as display lines, under the reply being written: each
 * its own few lines, marked as waiting, then one line saying when they go and the keys that act
 * on them. Where each message's lines are is returned too, so a key on a line finds its message.
 */
import type { SendQueue } from "../chat/send-queue.ts";

/** Lines shown of one message; the rest are counted. */
const SHOWN_LINES = 3;

export type QueuedLines = {
  readonly lines: string[];
  /** Each message's lines, [from, to) in `lines`. */
  readonly spans: readonly { readonly item: number; readonly from: number; readonly to: number }[];
};

export const NO_QUEUED_LINES: QueuedLines = { lines: [], spans: [] };

/** `editKey`: the display key that takes a message back into the input (`false`: unmapped). */
export function queuedLines(queue: SendQueue, editKey: string | false): QueuedLines {
  if (!queue.items.length) return NO_QUEUED_LINES;
  const lines: string[] = [];
  const spans: { item: number; from: number; to: number }[] = [];
  for (const { id, msg } of queue.items) {
    const from = lines.length;
    const text = msg.text.split("\n");
    const mark = queue.held ? "⏸ held" : msg.now ? "⚡ @now" : "⏳ queued";
    lines.push(`${mark}: ${text[0]}`, ...text.slice(1, SHOWN_LINES).map((l) => `   ${l}`));
    if (text.length > SHOWN_LINES) lines.push(`   … (${text.length - SHOWN_LINES} more lines)`);
    spans.push({ item: id, from, to: lines.length });
  }
  const keys = `${editKey === false ? "" : `${editKey} on one edits it · `}dd cancels it`;
  lines.push(`   ${whenTheyGo(queue)} · ${keys}`);
  return { lines, spans };
}

function whenTheyGo(queue: SendQueue): string {
  const now = queue.items.some((i) => i.msg.now);
  switch (queue.held) {
    case null:
      return now ? "sent when the turn ends (@now: with the next tool results)" : "sent when the turn ends, as one message";
    case "aborted":
      return "held: the turn was aborted · they go with your next message (an empty send sends them as they are)";
    case "failed":
      return "held: the turn failed · they go with your next message, or after R's retry ends";
    case "restored":
      return "held: tine stopped before they were sent · they go with your next message (an empty send sends them as they are)";
  }
}
