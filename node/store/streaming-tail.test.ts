/**
 * A turn drawn as entries that each update makes again (an ACP agent's: the history past the
 * runner's `settledLength`) is written as a block's streamed text is: not with each update but
 * when it has waited `STREAMED_TEXT_EVERY_MS`, or with any other change; what is on disk then
 * reloads as drawn.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { History } from "../core/history.ts";
import { assistantMessage, type Entry, entry, userMessage } from "../core/native.ts";
import { ThreadStore } from "./store.ts";
import { type Snapshot, STREAMED_TEXT_EVERY_MS, ThreadRecorder } from "./sync.ts";

const usage = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
const user = (text: string): Entry => entry(userMessage([{ type: "text", text }]));
const partial = (text: string): Entry => entry(assistantMessage([{ type: "text", text }]));
const noReports: Snapshot["reports"] = [];
const snap = (history: History, settledLength?: number): Snapshot => ({
  history,
  ...(settledLength === undefined ? {} : { settledLength }),
  open: [],
  streamed: "",
  results: new Map(),
  title: "T",
  reports: noReports,
});

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "tine-store-"));
  vi.useFakeTimers({ now: 7_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
  rmSync(dataDir, { recursive: true, force: true });
});

function recorder() {
  const store = new ThreadStore(dataDir, "/p");
  const id = "00000000-0000-4000-8000-000000000001";
  const rec = new ThreadRecorder(
    store.create({ id, num: 1, title: "T", model: "m", runner: { kind: "api" }, parent: null }),
    snap(History.empty),
  );
  const lines = () =>
    readFileSync(join(store.dir, `${id}.jsonl`), "utf8")
      .trim()
      .split("\n");
  return { id, rec, lines, load: () => new ThreadStore(dataDir, "/p").load(id) };
}

describe("a turn still streaming as entries", () => {
  it("waits a second, is written when due, and reloads as drawn; the turn's end is written at once", () => {
    const { rec, lines, load } = recorder();
    const asked = History.empty.push(user("q"));
    rec.sync(snap(asked, 1));
    const written = lines().length;
    let text = "";
    // A hundred updates over two seconds, each making the open turn's entry anew: none is written by a batch's sync.
    for (let i = 0; i < 100; i++) {
      text += `w${i} `;
      rec.sync(snap(asked.push(partial(text)), 1));
      vi.advanceTimersByTime(20);
    }
    expect(lines().length).toBe(written);
    expect(rec.streamedDueAt).toBe(7_000_000 + STREAMED_TEXT_EVERY_MS);
    // Due (the host wakes the store): the tail as drawn now.
    rec.sync(snap(asked.push(partial(text)), 1), true);
    expect(rec.streamedDueAt).toBeNull();
    expect(load().history.last()?.message).toEqual({ role: "assistant", content: [{ type: "text", text }] });
    // The turn ends (the settled entries change): written at once, the tail replaced by the final entry.
    const done = asked.push(entry(assistantMessage([{ type: "text", text: `${text}end` }]), { stopReason: "end_turn", usage }));
    rec.sync(snap(asked.push(partial(`${text}more`)), 1));
    rec.sync(snap(done, 2));
    expect(rec.streamedDueAt).toBeNull();
    expect([...load().history.messages()].map((m) => m.content)).toEqual([
      [{ type: "text", text: "q" }],
      [{ type: "text", text: `${text}end` }],
    ]);
  });

  it("a change of a settled entry is written at once, even with the same count", () => {
    const { rec, lines } = recorder();
    const asked = History.empty.push(user("q"));
    rec.sync(snap(asked.push(partial("a")), 1));
    const written = lines().length;
    rec.sync(snap(History.empty.push(user("q2"), partial("a")), 1));
    expect(lines().length).toBeGreaterThan(written);
    expect(rec.streamedDueAt).toBeNull();
  });

  it("a runner without a settled count has every history change written at once", () => {
    const { rec, lines } = recorder();
    const asked = History.empty.push(user("q"));
    rec.sync(snap(asked));
    const written = lines().length;
    rec.sync(snap(asked.push(partial("a"))));
    rec.sync(snap(asked.push(partial("ab"))));
    expect(lines().length).toBe(written + 3);
  });
});
