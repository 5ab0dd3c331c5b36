import assert from "node:assert/strict";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, it } from "vitest";
import type { Thread } from "../chat/thread.ts";
import type { AgentStatus, OpenMessage } from "../providers/agent.ts";
import { History } from "../providers/history.ts";
import { assistantMessage, type Entry, entry, userMessage } from "../providers/native.ts";
import { ThreadView } from "./thread-view.ts";

/** A thread as the view reads it. */
function threadOf(history: History, open: OpenMessage | null = null, status: AgentStatus = { type: "idle" }): Thread {
  return { runner: { history, open, status }, expanded: new Set<string>(), toolRuns: [], code: [] } as unknown as Thread;
}

function conversation(messages: number): Entry[] {
  return Array.from({ length: messages }, (_, i) => {
    const text = `message ${i}: lorem ipsum dolor sit amet`;
    return entry(i % 2 ? assistantMessage([{ type: "text", text }]) : userMessage([{ type: "text", text }]));
  });
}

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
/** The heap in use once collected, in a later turn of the loop (what a job made, weakly held, is kept until it ends). */
const heapAfterGc = async () => {
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

describe("ThreadView", () => {
  it("views of forks of a 1,000-message thread share its rendered entries: each holds a few KiB, not a copy", async () => {
    const source = History.of(conversation(1000));
    const header = ["# a fork", ""];
    const first = new ThreadView();
    first.sync({ thread: threadOf(source), headerLines: header, forkMarks: [] });
    const views: ThreadView[] = [];
    const before = await heapAfterGc();
    for (let i = 0; i < 40; i++) {
      const view = new ThreadView();
      // A fork holds its source's history, with its own tail to come.
      view.sync({ thread: threadOf(source.prefix(1000)), headerLines: header, forkMarks: [] });
      views.push(view);
    }
    const perView = ((await heapAfterGc()) - before) / views.length;
    assert.deepEqual(views.at(-1)!.text(), first.text());
    // Two references per entry (the view's entries and its document's segments) and their arrays'
    // spare room come to about 22 KiB; a segment of its own per entry was 77 KiB.
    assert.ok(perView < 40 * 1024, `${(perView / 1024).toFixed(1)} KiB per view`);
  });

  it("keeps no copy of a long reply's lines once its turn ended: the view holds a fraction of its text", async () => {
    const LINES = 200_000;
    const text = Array.from({ length: LINES }, (_, i) => String(i).padStart(9, "0")).join("\n");
    const prompt = History.of([entry(userMessage([{ type: "text", text: "a long one please" }]))]);
    const view = new ThreadView();
    const header = ["# long", ""];
    view.sync({ thread: threadOf(prompt), headerLines: header, forkMarks: [] });
    const before = await heapAfterGc();
    // Streamed in pieces, then the turn ends: the reply becomes an entry of the history.
    const block = { type: "text" as const, text: "" };
    const open: OpenMessage = { finalized: [], inProgress: block, usage: { input_tokens: 1, output_tokens: 1 } as OpenMessage["usage"] };
    const streaming: AgentStatus = { type: "streaming", startedAt: 0, attempt: 0 };
    for (let at = 0; at < text.length; at += 1 << 16) {
      block.text = text.slice(0, at + (1 << 16));
      view.sync({ thread: threadOf(prompt, open, streaming), headerLines: header, forkMarks: [] });
    }
    const done = prompt.push(entry(assistantMessage([{ type: "text", text: block.text }])));
    view.sync({ thread: threadOf(done), headerLines: header, forkMarks: [] });
    const held = (await heapAfterGc()) - before;
    assert.equal(view.text().at(-3), String(LINES - 1).padStart(9, "0"));
    // Its lines as strings were four times the text; the text itself is held by the history.
    assert.ok(held < text.length / 2, `${(held / text.length).toFixed(2)}× the reply's size`);
  });
});
