/**
 * Opening a long stored thread from its end: the first screen is shown from the tail of its file,
 * before the whole is read (the read waits for the next turn of the event loop), and is the
 * thread's end as its display draws it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { StoredThread } from "../chat/msgs.ts";
import { History } from "../core/history.ts";
import { assistantMessage, entry, userMessage } from "../core/native.ts";
import * as replay from "../store/replay.ts";
import { ThreadStore } from "../store/store.ts";
import { ThreadRecorder } from "../store/sync.ts";
import { OpenFromEnd } from "./open-from-end.ts";
import { renderEntry } from "./render.ts";

const MESSAGES = 400;
const STEP = 16 * 1024;
const line = (m: number, l: number) => `m${m} l${l} `.padEnd(50, "-");

let dataDir: string | null = null;
afterEach(() => {
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  vi.restoreAllMocks();
});

describe("OpenFromEnd", () => {
  it("shows the end of an 800 KB thread before any of it is read whole, then reads it once", async () => {
    dataDir = mkdtempSync(join(tmpdir(), "tine-open-end-"));
    const store = new ThreadStore(dataDir, "/project");
    const id = "00000000-0000-4000-8000-000000000001";
    const empty = { history: History.empty, open: [], streamed: "", results: new Map(), title: "T", reports: [] };
    const rec = new ThreadRecorder(store.create({ id, num: 7, title: "T", model: "m", runner: { kind: "api" }, parent: null }), empty);
    const entries = Array.from({ length: MESSAGES }, (_, m) => {
      const text = Array.from({ length: 40 }, (_, l) => line(m, l)).join("\n");
      return entry(m % 2 ? assistantMessage([{ type: "text", text }]) : userMessage([{ type: "text", text }]));
    });
    rec.sync({ ...empty, history: History.of(entries) });
    rec.close();

    const wholeReads = vi.spyOn(replay, "readLog");
    const shown: { lines: string[]; wholeReadsThen: number }[] = [];
    const opened: string[] = [];
    const opening = new OpenFromEnd({
      stored: () => ({ id, num: 7, title: "T", messages: MESSAGES }) as StoredThread,
      tail: (tid, minBytes) => store.tail(tid, minBytes),
      lockedBy: () => null,
      showEnd: async (_id, _num, _title, lines) => {
        shown.push({ lines, wholeReadsThen: wholeReads.mock.calls.length });
        return { display: 1, input: 2 };
      },
      fillStep: STEP,
      open: (tid) => {
        store.load(tid);
        opened.push(tid);
      },
      notifyError: (text) => {
        throw new Error(text);
      },
    });

    expect(await opening.showEnd(id)).toEqual({ display: 1, input: 2, read_only_by: null });
    expect(shown).toHaveLength(1);
    expect(shown[0]!.wholeReadsThen).toBe(0);
    expect(opened).toEqual([]);
    // The end as the display draws it: the last message's lines, at most about a fill step of them (what the tail held).
    const last = renderEntry(entries.at(-1)!, { index: MESSAGES - 1, expanded: new Set() }).lines;
    expect(shown[0]!.lines.slice(-last.length)).toEqual(last);
    const bytes = shown[0]!.lines.reduce((n, l) => n + l.length + 1, 0);
    expect(bytes).toBeGreaterThan(STEP / 2);
    expect(bytes).toBeLessThan(2 * STEP);
    await new Promise((resolve) => setImmediate(resolve));
    expect(opened).toEqual([id]);
    expect(wholeReads).toHaveBeenCalledTimes(1);
    // Asked for again meanwhile or after: read whole once, never twice.
    opening.finish(id);
    expect(opened).toEqual([id]);
  });
});
