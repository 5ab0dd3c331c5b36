import assert from "node:assert/strict";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, it } from "vitest";
import { SendQueue } from "../chat/send-queue.ts";
import type { Thread } from "../chat/thread.ts";
import type { AgentStatus, OpenMessage } from "../core/agent.ts";
import { History } from "../core/history.ts";
import { assistantMessage, type Entry, entry, userMessage } from "../core/native.ts";
import type { ViewUpdate } from "../nvim/bridge.ts";
import { replaceRange } from "../util/arrays.ts";
import { ThreadView, type ThreadViewInput } from "./thread-view.ts";

/** A thread as the view reads it. */
function threadOf(history: History, open: OpenMessage | null = null, status: AgentStatus = { type: "idle" }): Thread {
  return {
    runner: { history, open, status },
    expanded: new Set<string>(),
    toolRuns: [],
    queue: new SendQueue(),
    code: [],
  } as unknown as Thread;
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

/** Syncs a view and fills it in whole (what Buffers does over several steps). */
function show(view: ThreadView, input: ThreadViewInput): void {
  view.sync(input);
  while (view.fill(input.thread, Number.POSITIVE_INFINITY));
}

/** What a view of `input` shows once filled in: the reference a buffer must end equal to. */
function fullText(input: ThreadViewInput): string[] {
  const view = new ThreadView();
  show(view, input);
  return view.text();
}

/** A buffer as Neovim holds it: a new one has one empty line; the host's edits applied in order. */
class Mirror {
  readonly lines: string[] = [""];
  /** Bytes of text written by each update. */
  readonly written: number[] = [];
  apply(update: ViewUpdate | null): void {
    if (!update) return;
    let bytes = 0;
    for (const [start, end, lines] of update.edits) {
      replaceRange(this.lines, start, end - start, lines);
      for (const l of lines) bytes += l.length;
    }
    this.written.push(bytes);
  }
}

describe("ThreadView", () => {
  it("views of forks of a 1,000-message thread share its rendered entries: each holds a few KiB, not a copy", async () => {
    const source = History.of(conversation(1000));
    const header = ["# a fork", ""];
    const first = new ThreadView();
    show(first, { thread: threadOf(source), headerLines: header, forkMarks: [] });
    const views: ThreadView[] = [];
    const before = await heapAfterGc();
    for (let i = 0; i < 40; i++) {
      const view = new ThreadView();
      // A fork holds its source's history, with its own tail to come.
      show(view, { thread: threadOf(source.prefix(1000)), headerLines: header, forkMarks: [] });
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
    show(view, { thread: threadOf(prompt), headerLines: header, forkMarks: [] });
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

  it("thinking still streaming expands at its line, goes on streaming expanded, and stays expanded once finished", () => {
    const prompt = History.of([entry(userMessage([{ type: "text", text: "think" }]))]);
    const block = { type: "thinking" as const, thinking: "deep thoughts", signature: "" };
    const open: OpenMessage = { finalized: [], inProgress: block, usage: { input_tokens: 1, output_tokens: 1 } as OpenMessage["usage"] };
    const thread = threadOf(prompt, open, { type: "streaming", startedAt: 0, attempt: 0 });
    const input = { thread, headerLines: ["# t"], forkMarks: [] };
    const view = new ThreadView();
    const buffer = new Mirror();
    buffer.apply(view.sync(input));
    buffer.apply(view.fill(thread, Number.POSITIVE_INFINITY));
    const line = buffer.lines.indexOf("▸ Thinking… (13 chars)");
    assert.ok(line > 0, buffer.lines.join("\n"));
    assert.deepEqual(view.locate(line), { message: 1, role: "assistant", block: 0 }, "the block in progress, as the entry it becomes");
    thread.expanded.add("1:0");
    buffer.apply(view.sync(input));
    assert.deepEqual(buffer.lines.slice(line, line + 2), ["▾ Thinking…", "> deep thoughts"]);
    block.thinking += " and\nmore of them";
    buffer.apply(view.sync(input));
    assert.deepEqual(buffer.lines, view.text());
    assert.deepEqual(buffer.lines.slice(line, line + 3), ["▾ Thinking…", "> deep thoughts and", "> more of them"]);
    // Finished: the same block, expanded as it was.
    const text = { type: "text" as const, text: "Answer" };
    Object.assign(open, { finalized: [{ ...block, signature: "sig" }], inProgress: text });
    buffer.apply(view.sync(input));
    assert.deepEqual(buffer.lines.slice(line, line + 4), ["▾ Thinking", "> deep thoughts and", "> more of them", "Answer"]);
  });

  it("a finished block of the reply still streaming is found at its line and expands at once", () => {
    const prompt = History.of([entry(userMessage([{ type: "text", text: "think" }]))]);
    const thinking = { type: "thinking" as const, thinking: "deep thoughts\nin two lines", signature: "sig" };
    const block = { type: "text" as const, text: "Answer so far" };
    const open: OpenMessage = {
      finalized: [thinking],
      inProgress: block,
      usage: { input_tokens: 1, output_tokens: 1 } as OpenMessage["usage"],
    };
    const thread = threadOf(prompt, open, { type: "streaming", startedAt: 0, attempt: 0 });
    const input = { thread, headerLines: ["# t"], forkMarks: [] };
    const view = new ThreadView();
    const buffer = new Mirror();
    buffer.apply(view.sync(input));
    buffer.apply(view.fill(thread, Number.POSITIVE_INFINITY));
    const line = buffer.lines.indexOf("▸ Thinking (26 chars)");
    assert.ok(line > 0, buffer.lines.join("\n"));
    assert.deepEqual(
      view.locate(line),
      { message: 1, role: "assistant", block: 0 },
      "the open reply's finished block, as the entry it becomes",
    );
    thread.expanded.add("1:0");
    buffer.apply(view.sync(input));
    assert.deepEqual(buffer.lines.slice(line, line + 4), ["▾ Thinking", "> deep thoughts", "> in two lines", "Answer so far"]);
    block.text += ", and more";
    buffer.apply(view.sync(input));
    assert.deepEqual(buffer.lines, view.text());
    assert.ok(buffer.lines.includes("Answer so far, and more"), "the stream goes on after the toggle");
  });

  describe("opened from its end and filled in by steps", () => {
    /** 300 messages of 40 lines: about 360 KB of text. */
    const long = () =>
      History.of(
        Array.from({ length: 300 }, (_, m) => {
          const text = Array.from({ length: 40 }, (_, l) => `m${m} l${l} `.padEnd(30, "-")).join("\n");
          return entry(m % 2 ? assistantMessage([{ type: "text", text }]) : userMessage([{ type: "text", text }]));
        }),
      );
    const STEP = 4096;
    const header = ["# a long thread", ""];

    it("writes its end first and the rest in steps of about the budget, ending equal to the whole render", () => {
      const input = { thread: threadOf(long()), headerLines: header, forkMarks: [{ atMessage: 3, text: "⑂ a fork" }] };
      const view = new ThreadView();
      const buffer = new Mirror();
      buffer.apply(view.sync(input));
      buffer.apply(view.fill(input.thread, STEP));
      // The first screen: the thread's last lines (and its footer), about one step of them.
      assert.ok(buffer.written.reduce((a, b) => a + b, 0) <= STEP, `the first write is ${buffer.written} bytes`);
      assert.deepEqual(buffer.lines.slice(-3), ["m299 l39 ".padEnd(30, "-"), "", ""]);
      assert.deepEqual(buffer.lines, view.text());
      let steps = 0;
      let marks: ViewUpdate["marks"];
      for (let step = view.fill(input.thread, STEP); step; step = view.fill(input.thread, STEP)) {
        buffer.apply(step);
        marks = step.marks ?? marks;
        steps++;
        assert.ok(buffer.written.at(-1)! <= STEP, `a step wrote ${buffer.written.at(-1)} bytes`);
        assert.deepEqual(buffer.lines.slice(0, 2).concat(buffer.lines.slice(-2)), view.text().slice(0, 2).concat(view.text().slice(-2)));
      }
      assert.ok(steps > 50, `${steps} steps`);
      assert.deepEqual(buffer.lines, fullText(input));
      // The fork mark is placed once its message is shown, on that message's first line.
      assert.equal(buffer.lines[marks![0]!.line], "## Claude");
      assert.equal(buffer.lines[marks![0]!.line + 1], "m3 l0 ".padEnd(30, "-"));
      assert.equal(view.messageLine(3), marks![0]!.line);
    });

    it("a send, a streamed reply, an expanded detail and a new header while it fills in end right", () => {
      const history = long();
      const view = new ThreadView();
      const buffer = new Mirror();
      let input: ThreadViewInput = { thread: threadOf(history), headerLines: header, forkMarks: [] };
      buffer.apply(view.sync(input));
      for (let i = 0; i < 10; i++) buffer.apply(view.fill(input.thread, STEP));
      assert.equal(view.messageLine(0), null, "the top is not shown yet");
      // A send: the prompt appended, a reply streaming.
      const sent = history.push(entry(userMessage([{ type: "text", text: "and now?" }])));
      const block = { type: "text" as const, text: "Stream" };
      const open: OpenMessage = { finalized: [], inProgress: block, usage: { input_tokens: 1, output_tokens: 1 } as OpenMessage["usage"] };
      const streaming: AgentStatus = { type: "streaming", startedAt: 0, attempt: 0 };
      input = { thread: threadOf(sent, open, streaming), headerLines: ["# renamed", ""], forkMarks: [] };
      buffer.apply(view.sync(input));
      buffer.apply(view.fill(input.thread, STEP));
      block.text = "Streamed\nto the end.";
      buffer.apply(view.sync(input));
      assert.deepEqual(buffer.lines, view.text());
      // The reply ends; a tool result far above is expanded (its entry not rendered yet).
      const done = sent.push(entry(assistantMessage([{ type: "text", text: block.text }])));
      input = { thread: threadOf(done), headerLines: ["# renamed", ""], forkMarks: [{ atMessage: 300, text: "⑂ late" }] };
      input.thread.expanded.add("5:0");
      buffer.apply(view.sync(input));
      while (view.filling) {
        buffer.apply(view.fill(input.thread, STEP));
        assert.deepEqual(buffer.lines, view.text());
      }
      assert.deepEqual(buffer.lines, fullText(input));
      assert.deepEqual(buffer.lines.slice(-5), ["## Claude", "Streamed", "to the end.", "", ""]);
      assert.equal(buffer.lines[0], "# renamed");
    });

    it("a reply streaming into a display that shows only its end goes on and ends right", () => {
      const prompt = History.of([entry(userMessage([{ type: "text", text: "a long one please" }]))]);
      const block = { type: "text" as const, text: Array.from({ length: 2000 }, (_, i) => `line ${i}`).join("\n") };
      const open: OpenMessage = { finalized: [], inProgress: block, usage: { input_tokens: 1, output_tokens: 1 } as OpenMessage["usage"] };
      const input = { thread: threadOf(prompt, open, { type: "streaming", startedAt: 0, attempt: 0 }), headerLines: header, forkMarks: [] };
      const view = new ThreadView();
      const buffer = new Mirror();
      buffer.apply(view.sync(input));
      buffer.apply(view.fill(input.thread, STEP));
      assert.ok(view.filling && buffer.lines.length < 1000, "the reply is shown from its end");
      for (let d = 0; d < 20; d++) {
        block.text += ` more ${d}\nline ${2000 + d}`;
        buffer.apply(view.sync(input));
        if (d % 3 === 0) buffer.apply(view.fill(input.thread, STEP));
        assert.deepEqual(buffer.lines, view.text());
      }
      while (view.filling) buffer.apply(view.fill(input.thread, STEP));
      assert.deepEqual(buffer.lines, fullText(input));
      assert.equal(buffer.lines.at(-2), "line 2019");
    });

    it("a history rewritten above what is shown (a takeover reads it again) is filled in anew", () => {
      const view = new ThreadView();
      const buffer = new Mirror();
      const first = { thread: threadOf(long()), headerLines: header, forkMarks: [] };
      buffer.apply(view.sync(first));
      for (let i = 0; i < 10; i++) buffer.apply(view.fill(first.thread, STEP));
      // The same messages, read again: new entries from the first on, and one more message.
      const again = long().push(entry(userMessage([{ type: "text", text: "more" }])));
      const input = { thread: threadOf(again), headerLines: header, forkMarks: [] };
      buffer.apply(view.sync(input));
      assert.deepEqual(buffer.lines, view.text());
      while (view.filling) buffer.apply(view.fill(input.thread, STEP));
      assert.deepEqual(buffer.lines, fullText(input));
    });
  });
});
