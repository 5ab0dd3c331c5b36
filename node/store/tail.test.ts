/**
 * A transcript's end read alone (the first screen of a long stored thread): the same last
 * messages the whole read gives, from a read bounded by the tail, not the file; none when the end
 * cannot be told apart from what came before (then the thread is read whole, as before).
 */
import { appendFileSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { History } from "../core/history.ts";
import { assistantMessage, type Entry, entry, userMessage } from "../core/native.ts";
import { encode } from "./records.ts";
import { ThreadStore } from "./store.ts";
import { type Snapshot, ThreadRecorder } from "./sync.ts";

const usage = { input_tokens: 3, output_tokens: 4, cache_read_input_tokens: 5, cache_creation_input_tokens: 0 };
const text = (m: number) => Array.from({ length: 40 }, (_, l) => `m${m} l${l} `.padEnd(50, "-")).join("\n");
const message = (m: number): Entry =>
  m % 2
    ? entry(assistantMessage([{ type: "text", text: text(m) }]), { stopReason: "end_turn", usage })
    : entry(userMessage([{ type: "text", text: text(m) }]));
const snap = (history: History, more: Partial<Snapshot> = {}): Snapshot => ({
  history,
  open: [],
  streamed: "",
  results: new Map(),
  title: "T",
  reports: [],
  ...more,
});

const MESSAGES = 400; // some 2 KB each: 800 KB
const STEP = 16 * 1024;
let dataDir: string;
let store: ThreadStore;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "tine-tail-"));
  store = new ThreadStore(dataDir, "/project");
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

let n = 0;
/** A root (or a fork of `parent`) holding MESSAGES messages; its recorder stays open for more. */
function stored(parent: { id: string; records: number } | null = null, count = MESSAGES) {
  const id = `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}`;
  const pointer = parent && { id: parent.id, records: parent.records, atMessage: 0, messages: 1, relation: "fork" as const };
  const rec = new ThreadRecorder(
    store.create({ id, num: n, title: "T", model: "m", runner: { kind: "api" }, parent: pointer }),
    snap(History.empty),
  );
  const history = History.of(Array.from({ length: count }, (_, m) => message(m)));
  rec.sync(snap(history));
  return { id, rec, history, path: join(store.dir, `${id}.jsonl`) };
}

describe("a transcript's end read alone", () => {
  it("gives the last messages the whole read gives, reading and parsing what its tail holds, not the file", () => {
    const { id, rec, history, path } = stored();
    // Records that change nothing in the history may follow the last message.
    rec.sync(snap(history, { title: "Renamed", queue: [{ text: "later" }] }));
    const tail = store.tail(id, STEP)!;
    expect(tail).not.toBeNull();
    const whole = store.load(id).history;
    const k = tail.entries.length;
    expect(k).toBeGreaterThan(0);
    expect(whole.length).toBe(MESSAGES);
    expect(tail.entries).toEqual(Array.from({ length: k }, (_, i) => whole.at(MESSAGES - k + i)));
    const size = statSync(path).size;
    // The header's chunk and the tail: a small part of the file; its records are the tail's alone.
    expect(tail.bytesRead).toBeLessThanOrEqual(64 * 1024 + 2 * STEP);
    expect(tail.bytesRead).toBeLessThan(size / 4);
    expect(tail.recordsParsed).toBeLessThanOrEqual((2 * STEP) / 2000 + 3);
  });

  it("none when the end holds what changes the history before it (a cut), or leaves a turn open", () => {
    const cut = stored();
    cut.rec.sync(snap(cut.history.prefix(MESSAGES - 3)));
    expect(store.tail(cut.id, STEP)).toBeNull();
    const open = stored();
    open.rec.sync(snap(open.history, { open: [{ type: "text", text: "half" }] }));
    expect(store.tail(open.id, STEP)).toBeNull();
  });

  it("none for a fork (its history starts in its parent's file), a line that does not read, a cut last line, a short file", () => {
    const parent = stored();
    const fork = stored({ id: parent.id, records: MESSAGES });
    expect(store.tail(fork.id, STEP)).toBeNull();
    const bad = stored();
    appendFileSync(bad.path, "{not json\n");
    expect(store.tail(bad.id, STEP)).toBeNull();
    const torn = stored();
    appendFileSync(torn.path, encode({ t: "title", title: "x" }).slice(0, 10));
    expect(store.tail(torn.id, STEP)).toBeNull();
    const short = stored(null, 20); // 40 KB: read whole at once anyway
    expect(store.tail(short.id, STEP)).toBeNull();
  });
});
