import assert from "node:assert/strict";
import { it } from "vitest";
import { SendQueue } from "../chat/send-queue.ts";
import { queuedLines } from "./queued-lines.ts";

it("each queued message is its own few lines, marked, the rest counted; then when they go and the keys", () => {
  const q = new SendQueue();
  q.add({ type: "send", text: "one" });
  q.add({ type: "send", text: "a\nb\nc\nd\ne" });
  q.add({ type: "send", text: "steer", now: true });
  const shown = queuedLines(q, "<CR>");
  assert.deepEqual(shown.lines, [
    "⏳ queued: one",
    "⏳ queued: a",
    "   b",
    "   c",
    "   … (2 more lines)",
    "⚡ @now: steer",
    "   sent when the turn ends (@now: with the next tool results) · <CR> on one edits it · dd cancels it",
  ]);
  assert.deepEqual(
    shown.spans.map((s) => [s.from, s.to]),
    [
      [0, 1],
      [1, 5],
      [5, 6],
    ],
  );
});

it("a held queue says why and how it goes; an unmapped edit key is not named", () => {
  const q = new SendQueue();
  q.add({ type: "send", text: "one" });
  q.hold("aborted");
  assert.deepEqual(queuedLines(q, false).lines, [
    "⏸ held: one",
    "   held: the turn was aborted · they go with your next message (an empty send sends them as they are) · dd cancels it",
  ]);
  assert.deepEqual(queuedLines(new SendQueue(), "<CR>").lines, []);
});
