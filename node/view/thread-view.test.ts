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
  return { runner: { history, open, status }, expanded: new Set<string>(), toolRuns: [] } as unknown as Thread;
}

function conversation(messages: number): Entry[] {
  return Array.from({ length: messages }, (_, i) => {
    const text = `message ${i}: lorem ipsum dolor sit amet`;
    return entry(i % 2 ? assistantMessage([{ type: "text", text }]) : userMessage([{ type: "text", text }]));
  });
}

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
const heapAfterGc = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

describe("ThreadView", () => {
  it("views of forks of a 1,000-message thread share its rendered entries: each holds a few KiB, not a copy", () => {
    const source = History.of(conversation(1000));
    const header = ["# a fork", ""];
    const first = new ThreadView();
    first.sync({ thread: threadOf(source), headerLines: header, forkMarks: [] });
    const views: ThreadView[] = [];
    const before = heapAfterGc();
    for (let i = 0; i < 40; i++) {
      const view = new ThreadView();
      // A fork holds its source's history, with its own tail to come.
      view.sync({ thread: threadOf(source.prefix(1000)), headerLines: header, forkMarks: [] });
      views.push(view);
    }
    const perView = (heapAfterGc() - before) / views.length;
    assert.deepEqual(views.at(-1)!.text(), first.text());
    // Two references per entry (the view's entries and its document's segments) and their arrays'
    // spare room come to about 22 KiB; a segment of its own per entry was 77 KiB.
    assert.ok(perView < 40 * 1024, `${(perView / 1024).toFixed(1)} KiB per view`);
  });
});
