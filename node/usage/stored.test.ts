/**
 * A stored thread's usage as the list's scan keeps it (stored.ts, store/summary.ts) is the one a
 * loaded thread shows (figures.ts over its replayed history and side requests): after appends,
 * truncates that cut summed replies (read in an earlier scan or in the same one), a fork's own
 * part, side records, and a paused turn's meta (read by the whole parse, not the fast shape).
 * Figures a file holds that are not token counts (negative, 1e308, a fraction, more digits than a
 * sum keeps exact) are missing, in the scan, the load and the index alike: the reply itself loads.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { History } from "../core/history.ts";
import { assistantMessage, type Entry, entry, type ResponseMeta, userMessage } from "../core/native.ts";
import type { SideRequest } from "../core/side-request.ts";
import { ThreadStore } from "../store/store.ts";
import { type Snapshot, ThreadRecorder } from "../store/sync.ts";
import { threadFigures, withSide } from "./figures.ts";
import { PRICES } from "./prices.ts";
import { checkStoredUsage, storedFigures } from "./stored.ts";

const MODEL = "claude-haiku-5-5";
const usage = (input: number, cache_read = 0, output = 7) => ({
  input_tokens: input,
  output_tokens: output,
  cache_read_input_tokens: cache_read,
  cache_creation_input_tokens: 11,
  web_search_requests: 0,
});
const ask = (text: string): Entry => entry(userMessage([{ type: "text", text }]));
let at = 1_700_000_000_000;
const reply = (input: number, cache_read = 0, more: Partial<ResponseMeta> = {}): Entry =>
  entry(assistantMessage([{ type: "text", text: `reply ${input}` }]), {
    stopReason: "end_turn",
    usage: usage(input, cache_read),
    request: { model: MODEL, prefix: "p", at: at++ },
    ...more,
  });
const snap = (history: History, side: readonly SideRequest[] = []): Snapshot => ({
  history,
  open: [],
  streamed: "",
  results: new Map(),
  title: "T",
  reports: [],
  side,
});

let dataDir: string;
let n = 0;
const newId = () => `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}`;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "tine-usage-"));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

/** What the list shows of `id` (from the scan), and what it shows once loaded. */
function bothWays(id: string, ownFrom = 0) {
  const store = new ThreadStore(dataDir, "/project");
  const summary = store.list().threads.find((t) => t.id === id)!;
  const loaded = store.load(id);
  return {
    listed: storedFigures(summary.usage, PRICES),
    loaded: withSide(threadFigures(loaded.history, ownFrom, PRICES), loaded.raw.side, PRICES),
  };
}

describe("a stored thread's usage, from the list's scan", () => {
  it("is the loaded thread's: appends, side records, a paused turn, truncates that cut summed replies before or after a scan", () => {
    const store = new ThreadStore(dataDir, "/project");
    const id = newId();
    const rec = new ThreadRecorder(
      store.create({ id, num: 1, title: "T", model: "m", runner: { kind: "api" }, parent: null }),
      snap(History.empty),
    );
    const title: SideRequest = { kind: "title", model: MODEL, usage: usage(70), requests: 1, at: 1 };
    // Past haiku 5.5's long-prompt mark: priced in its other band.
    let h = History.of([ask("a"), reply(100), ask("b"), reply(150_000, 40)]);
    rec.sync(snap(h, [title]));
    let { listed, loaded } = bothWays(id);
    expect(listed).toEqual(loaded);
    expect(listed.cost).toBeGreaterThan(0);
    // A paused turn: its meta has `continued` (read by the whole parse).
    h = h.push(ask("c"), reply(30, 5, { continued: { requests: 2, last: usage(10, 5, 3) } }));
    rec.sync(snap(h, [title]));
    ({ listed, loaded } = bothWays(id));
    expect(listed).toEqual(loaded);
    // Cut to before the reply read in the earlier scan: the file is scanned again whole.
    h = h.prefix(3).push(reply(60));
    rec.sync(snap(h, [title]));
    ({ listed, loaded } = bothWays(id));
    expect(listed).toEqual(loaded);
    expect(listed.last?.figures.input).toBe(60);
    // Appended and cut in the same scan.
    h = h.push(ask("d"), reply(80));
    rec.sync(snap(h, [title]));
    h = h.prefix(5).push(ask("e"), reply(90));
    rec.sync(snap(h, [title]));
    ({ listed, loaded } = bothWays(id));
    expect(listed).toEqual(loaded);
    expect(listed.last?.figures.input).toBe(90);
    rec.close();
  });

  it("a pointer fork's own figures are only what it did after its fork point; its side records are its own", () => {
    const store = new ThreadStore(dataDir, "/project");
    const parentId = newId();
    const parentRec = new ThreadRecorder(
      store.create({ id: parentId, num: 1, title: "P", model: "m", runner: { kind: "api" }, parent: null }),
      snap(History.empty),
    );
    const parentHistory = History.of([ask("a"), reply(100), ask("b"), reply(200)]);
    parentRec.sync(snap(parentHistory));
    const forkId = newId();
    const forkRec = new ThreadRecorder(
      store.create({
        id: forkId,
        num: 2,
        title: "F",
        model: "m",
        runner: { kind: "api" },
        parent: { relation: "fork", id: parentId, records: parentRec.records, atMessage: 1, messages: 4 },
      }),
      snap(parentHistory),
    );
    // Forked at message 1: the fork's file cuts to it, then goes on.
    const failed: SideRequest = { kind: "failed", model: MODEL, usage: usage(40), requests: 1, at: 2 };
    forkRec.sync(snap(parentHistory.prefix(2).push(ask("c"), reply(300, 100)), [failed]));
    const { listed, loaded } = bothWays(forkId, 2);
    expect(listed).toEqual(loaded);
    expect([...listed.own.values()].reduce((sum, f) => sum + f.requests, 0)).toBe(2);
    expect(listed.firstOwn?.cache_read).toBe(100);
    forkRec.close();
    parentRec.close();
  });

  it("figures that are not token counts are missing in the scan, the load and the index alike; the replies holding them load", () => {
    const store = new ThreadStore(dataDir, "/project");
    const id = newId();
    const rec = new ThreadRecorder(
      store.create({ id, num: 1, title: "T", model: "m", runner: { kind: "api" }, parent: null }),
      snap(History.empty),
    );
    rec.sync(snap(History.of([ask("a"), reply(100)])));
    rec.close();
    const path = join(store.dir, `${id}.jsonl`);
    const line = (u: Record<string, unknown>, more: Record<string, unknown> = {}) =>
      `${JSON.stringify({ t: "append", m: { role: "assistant", content: [{ type: "text", text: "bad" }] }, meta: { stopReason: "end_turn", usage: u, request: { model: MODEL, prefix: "p", at: at++ }, ...more } })}\n`;
    const figures = { input_tokens: 5, output_tokens: 7, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
    appendFileSync(path, `${JSON.stringify({ t: "append", m: { role: "user", content: [{ type: "text", text: "b" }] } })}\n`);
    // The shape the scan reads without a parse, with more digits than a sum keeps exact; then negative, 1e308 and a fraction.
    appendFileSync(path, line({ ...figures, input_tokens: 0 }).replace('"input_tokens":0', '"input_tokens":99999999999999999999'));
    appendFileSync(path, `${JSON.stringify({ t: "append", m: { role: "user", content: [{ type: "text", text: "c" }] } })}\n`);
    appendFileSync(path, line({ ...figures, input_tokens: -500, cache_read_input_tokens: 1e308, output_tokens: 1.5 }, { notes: ["n"] }));
    const side = { kind: "title", model: MODEL, usage: { ...figures, input_tokens: -70 }, requests: 1, at: 3 };
    appendFileSync(path, `${JSON.stringify({ t: "side", request: side })}\n`);
    const { listed, loaded } = bothWays(id);
    expect(listed).toEqual(loaded);
    // The first bad reply and the side record count but their inputs; the last reply kept no count, so no request of it.
    expect(loaded.own.get(MODEL)).toEqual({ input: 100, output: 7 + 7 + 7, cache_read: 0, cache_write: 11, web_searches: 0, requests: 3 });
    expect(listed.cost).toBeGreaterThan(0);
    expect(listed.cost).toBeLessThan(0.01);
    const history = new ThreadStore(dataDir, "/project").load(id).history;
    expect(history.messages().map((m) => m.content.map((b) => (b.type === "text" ? b.text : "")).join())).toEqual([
      "a",
      "reply 100",
      "b",
      "bad",
      "c",
      "bad",
    ]);
    // An index whose sums hold a figure that is not a count is no cache: that file is scanned again.
    const index = JSON.parse(readFileSync(join(store.dir, "index.json"), "utf8"));
    const cached = index.files[`${id}.jsonl`].summary.usage;
    expect(checkStoredUsage(cached)).toEqual(cached);
    for (const bad of [-2, 1e308, 0.5]) expect(checkStoredUsage({ ...cached, own: [[MODEL, bad, 0, 0, 0, 0, 1]] })).toBeNull();
    index.files[`${id}.jsonl`].summary.usage = { ...cached, own: [[MODEL, 1e308, 0, 0, 0, 0, 1]] };
    writeFileSync(join(store.dir, "index.json"), JSON.stringify(index));
    expect(bothWays(id).listed).toEqual(loaded);
  });
});
