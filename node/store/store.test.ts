import { spawn } from "node:child_process";
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { History } from "../core/history.ts";
import { type AssistantBlock, assistantMessage, type Entry, entry, userMessage } from "../core/native.ts";
import { metaLine } from "../view/render.ts";
import { SESSION_ENDED, SESSION_ENDED_BEFORE_TOOL_RAN } from "./replay.ts";
import { ThreadStore } from "./store.ts";
import { type Snapshot, STREAMED_TEXT_EVERY_MS, ThreadRecorder } from "./sync.ts";

const usage = { input_tokens: 3, output_tokens: 4, cache_read_input_tokens: 5, cache_creation_input_tokens: 0 };
const user = (text: string): Entry => entry(userMessage([{ type: "text", text }]));
const reply = (text: string): Entry => entry(assistantMessage([{ type: "text", text }]), { stopReason: "end_turn", usage });
const noReports: Snapshot["reports"] = [];
const snap = (history: History, more: Partial<Snapshot> = {}): Snapshot => ({
  history,
  open: [],
  streamed: "",
  results: new Map(),
  title: "T",
  reports: noReports,
  ...more,
});

let dataDir: string;
let n = 0;
const newId = () => `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}`;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "tine-store-"));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

/** A root thread recorded from `start`. */
function root(store: ThreadStore, title = "T") {
  const id = newId();
  const rec = new ThreadRecorder(
    store.create({ id, num: 1, title, model: "m", runner: { kind: "api" }, parent: null }),
    snap(History.empty, { title }),
  );
  return { id, rec };
}

describe("ThreadStore", () => {
  it("round-trips every record kind: entries with meta, truncation, open blocks, results, title", () => {
    const store = new ThreadStore(dataDir, "/project");
    const { id, rec } = root(store);
    let h = History.empty.push(user("hi"), reply("hello"));
    rec.sync(snap(h));
    h = h.prefix(1).push(reply("hello again"));
    rec.sync(snap(h, { title: "Renamed" }));
    const think: AssistantBlock = { type: "thinking", thinking: "hmm", signature: "sig" };
    const use: AssistantBlock = { type: "tool_use", id: "t1", name: "get_file", input: { path: "a" } };
    const use2: AssistantBlock = { type: "tool_use", id: "t2", name: "get_file", input: { path: "b" } };
    h = h.push(user("read two files"));
    rec.sync(snap(h, { title: "Renamed", open: [think] }));
    rec.sync(snap(h, { title: "Renamed", open: [] })); // a retried response starts over
    const partial = [think, use, use2];
    rec.sync(snap(h, { title: "Renamed", open: partial }));
    const withTools = h.push(entry(assistantMessage(partial), { stopReason: "tool_use", usage }));
    const r1 = { type: "tool_result" as const, tool_use_id: "t1", content: "A" };
    rec.sync(snap(withTools, { title: "Renamed", results: new Map([["t1", r1]]) }));
    const queued = [{ from: "T ⑂1", text: "found it" }];
    rec.sync(snap(withTools, { title: "Renamed", results: new Map([["t1", r1]]), reports: queued }));
    rec.append([{ t: "ended", how: "reported" }]);

    const loaded = new ThreadStore(dataDir, "/project").load(id);
    expect(loaded.problems).toEqual([]);
    expect(loaded.raw.title).toBe("Renamed");
    expect(loaded.raw.history.messages()).toEqual(withTools.messages());
    expect(loaded.raw.history.at(1).meta).toEqual({ stopReason: "end_turn", usage });
    expect([...loaded.raw.results.values()]).toEqual([r1]);
    expect(loaded.raw.reports).toEqual(queued);
    expect(loaded.raw.ended).toEqual({ how: "reported" });
    // The tool that had not finished when the log ends is answered; the finished one keeps its result.
    expect(loaded.history.messages().at(-1)).toEqual({
      role: "user",
      content: [r1, { type: "tool_result", tool_use_id: "t2", content: SESSION_ENDED_BEFORE_TOOL_RAN, is_error: true }],
    });
  });

  it("a turn interrupted while streaming is closed like an abort: finished blocks kept, the next send valid", () => {
    const store = new ThreadStore(dataDir, "/p");
    const { id, rec } = root(store);
    const h = History.empty.push(user("q"));
    rec.sync(
      snap(h, {
        open: [
          { type: "text", text: "First block." },
          { type: "tool_use", id: "t1", name: "bash_command", input: {} },
        ],
      }),
    );
    const loaded = new ThreadStore(dataDir, "/p").load(id);
    expect(loaded.history.messages()).toEqual([
      { role: "user", content: [{ type: "text", text: "q" }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "First block." },
          { type: "tool_use", id: "t1", name: "bash_command", input: {} },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: SESSION_ENDED_BEFORE_TOOL_RAN, is_error: true }] },
    ]);
  });

  it("the text of a block still streaming waits a second, is written when due with only what is new; a reload keeps it, marked interrupted", () => {
    vi.useFakeTimers({ now: 5_000_000 });
    try {
      const store = new ThreadStore(dataDir, "/p");
      const id = newId();
      // The recorder's default clock is Date: fake timers move it.
      const rec = new ThreadRecorder(
        store.create({ id, num: 1, title: "T", model: "m", runner: { kind: "api" }, parent: null }),
        snap(History.empty),
      );
      const path = join(store.dir, `${id}.jsonl`);
      const lines = () => readFileSync(path, "utf8").trim().split("\n");
      const h = History.empty.push(user("q"));
      const done: AssistantBlock = { type: "text", text: "First block." };
      rec.sync(snap(h, { open: [done] }));
      const written = lines().length;
      expect(rec.streamedDueAt).toBeNull();
      let text = "";
      // Deltas for two seconds: none is written by a sync after a batch, however long it waits.
      for (let i = 0; i < 100; i++) {
        text += `word${i} `;
        rec.sync(snap(h, { open: [done], streamed: text }));
        vi.advanceTimersByTime(20);
      }
      expect(lines().length).toBe(written);
      expect(rec.streamedDueAt).toBe(5_000_000 + STREAMED_TEXT_EVERY_MS);
      // Due (the host wakes the store): written, and the next wait starts with the next delta.
      rec.sync(snap(h, { open: [done], streamed: text }), true);
      expect(lines().at(-1)).toBe(JSON.stringify({ t: "streamed", at: 0, text }));
      expect(rec.streamedDueAt).toBeNull();
      rec.sync(snap(h, { open: [done], streamed: `${text}and more` }));
      expect(rec.streamedDueAt).toBe(5_002_000 + STREAMED_TEXT_EVERY_MS);
      rec.sync(snap(h, { open: [done], streamed: `${text}and more` }), true);
      expect(lines().at(-1)).toBe(JSON.stringify({ t: "streamed", at: text.length, text: "and more" }));

      const loaded = new ThreadStore(dataDir, "/p").load(id);
      expect(loaded.raw.streamed).toBe(`${text}and more`);
      const last = loaded.history.last()!;
      expect(last.message).toEqual({ role: "assistant", content: [done, { type: "text", text: `${text}and more` }] });
      expect(last.meta).toEqual(SESSION_ENDED);
      expect(metaLine(last.meta!, false)).toBe("── interrupted (the session ended): the reply stops here");
    } finally {
      vi.useRealTimers();
    }
  });

  it("a reply cut with only finished blocks is marked interrupted too; a finished block replaces the streamed text", () => {
    const store = new ThreadStore(dataDir, "/p");
    const { id, rec } = root(store);
    const h = History.empty.push(user("q"));
    rec.sync(snap(h, { streamed: "Hello wor" }));
    rec.sync(snap(h, { open: [{ type: "text", text: "Hello world." }], streamed: "" }));
    const loaded = new ThreadStore(dataDir, "/p").load(id);
    expect(loaded.raw.streamed).toBe("");
    expect(loaded.history.last()).toEqual({
      message: { role: "assistant", content: [{ type: "text", text: "Hello world." }] },
      meta: SESSION_ENDED,
    });
  });

  it("forks of forks of forks are pointers that reproduce each history; the parent's later changes do not reach them", () => {
    const store = new ThreadStore(dataDir, "/p");
    const a = root(store);
    let ha = History.empty.push(user("a1"), reply("a2"), user("a3"), reply("a4"));
    a.rec.sync(snap(ha));
    // Fork b at message 1 (clone semantics: a prefix), c from b after more turns, d from c.
    const fork = (parent: { id: string; rec: ThreadRecorder }, atMessage: number, base: History) => {
      const id = newId();
      const log = store.create({
        id,
        num: 2,
        title: "F",
        model: "m",
        runner: { kind: "api" },
        parent: { relation: "fork", id: parent.id, records: parent.rec.records, atMessage, messages: parent.rec.writtenHistory.length },
      });
      return { id, rec: new ThreadRecorder(log, snap(parent.rec.writtenHistory, { title: "F" })), base };
    };
    const b = fork(a, 1, ha);
    let hb = ha.share().prefix(2).push(user("b3"), reply("b4"));
    b.rec.sync(snap(hb, { title: "F" }));
    const c = fork(b, 3, hb);
    let hc = hb.share().push(user("c5"), reply("c6"));
    c.rec.sync(snap(hc, { title: "F" }));
    const d = fork(c, 5, hc);
    const hd = hc.share().prefix(4).push(user("d5"));
    d.rec.sync(snap(hd, { title: "F" }));
    // The parents change after the forks: appends, and a clean-up that cuts their tails.
    ha = ha.prefix(2).push(user("a3 again"));
    a.rec.sync(snap(ha));
    hb = hb.push(user("b5"));
    b.rec.sync(snap(hb, { title: "F" }));
    hc = hc.prefix(1);
    c.rec.sync(snap(hc, { title: "F" }));

    const reread = new ThreadStore(dataDir, "/p");
    expect(reread.load(a.id).history.messages()).toEqual(ha.messages());
    expect(reread.load(b.id).history.messages()).toEqual(hb.messages());
    expect(reread.load(c.id).history.messages()).toEqual(hc.messages());
    expect(reread.load(d.id).history.messages()).toEqual(hd.messages());
    // A fork's file holds its own records only.
    expect(statSync(join(reread.dir, `${d.id}.jsonl`)).size).toBeLessThan(600);
    // Loaded together, forks share their parent's entries instead of holding copies.
    expect(reread.load(d.id).history.at(0)).toBe(reread.load(b.id).history.at(0));
  });

  it("a truncated last line is tolerated; a corrupt middle line is reported and the rest loads", () => {
    const store = new ThreadStore(dataDir, "/p");
    const { id, rec } = root(store);
    rec.sync(snap(History.empty.push(user("one"), reply("two"))));
    const path = join(store.dir, `${id}.jsonl`);
    appendFileSync(path, '{"t":"append","m":{"role":"user","content":[{"type":"te');
    let loaded = new ThreadStore(dataDir, "/p").load(id);
    expect(loaded.problems).toEqual([]);
    expect(loaded.history.length).toBe(2);

    const lines = readFileSync(path, "utf8").split("\n").slice(0, -1); // without the partial line
    lines.splice(2, 0, "{not json");
    writeFileSync(path, `${lines.join("\n")}\n`);
    loaded = new ThreadStore(dataDir, "/p").load(id);
    expect(loaded.problems).toEqual([{ line: 3, error: expect.stringContaining("not JSON") }]);
    expect(loaded.history.messages().map((m) => m.content[0])).toEqual([
      { type: "text", text: "one" },
      { type: "text", text: "two" },
    ]);
    const listed = new ThreadStore(dataDir, "/p").list();
    expect(listed.threads[0]!.problems).toEqual([{ line: 3, error: expect.stringContaining("not JSON") }]);
  });

  it("a transcript without a header is listed as unreadable and the others still list", () => {
    const store = new ThreadStore(dataDir, "/p");
    const good = root(store, "Good");
    good.rec.sync(snap(History.empty.push(user("x")), { title: "Good" }));
    writeFileSync(join(store.dir, `${newId()}.jsonl`), "garbage\n", { mode: 0o600 });
    const list = new ThreadStore(dataDir, "/p").list();
    expect(list.threads.map((t) => t.title)).toEqual(["Good"]);
    expect(list.unreadable).toEqual([{ path: expect.stringMatching(/\.jsonl$/), error: expect.stringContaining("not JSON") }]);
  });

  it("lists from the index, reading only what was appended since; counts follow truncations", () => {
    const store = new ThreadStore(dataDir, "/p");
    const { id, rec } = root(store, "First");
    let h = History.empty.push(user("1"), reply("2"), user("3"));
    rec.sync(snap(h, { title: "First" }));
    expect(store.list().threads).toMatchObject([{ id, title: "First", messages: 3, parent: null, deleted: false }]);
    const index = JSON.parse(readFileSync(join(store.dir, "index.json"), "utf8"));
    expect(index.files[`${id}.jsonl`].offset).toBe(statSync(join(store.dir, `${id}.jsonl`)).size);
    h = h.prefix(1).push(reply("2b"));
    rec.sync(snap(h, { title: "Second" }));
    expect(store.list().threads).toMatchObject([{ id, title: "Second", messages: 2 }]);
  });

  it("files are 0600 and folders 0700", () => {
    const store = new ThreadStore(dataDir, "/p");
    const { id, rec } = root(store);
    rec.sync(snap(History.empty.push(user("x"))));
    store.list();
    expect(statSync(join(store.dir, `${id}.jsonl`)).mode & 0o777).toBe(0o600);
    expect(statSync(join(store.dir, "index.json")).mode & 0o777).toBe(0o600);
    expect(statSync(store.dir).mode & 0o777).toBe(0o700);
  });

  it("one writer per thread: a live holder makes it busy; a dead holder's lock is taken over", async () => {
    const first = new ThreadStore(dataDir, "/p");
    const { id, rec } = root(first);
    rec.sync(snap(History.empty.push(user("x"))));
    // Another live process holds it.
    const other = spawn("sleep", ["30"]);
    try {
      const second = new ThreadStore(dataDir, "/p", other.pid!);
      rec.close();
      expect(second.openWriter(id, 1)).not.toHaveProperty("busy");
      expect(first.lockedBy(id)).toBe(other.pid);
      expect(first.openWriter(id, 1)).toEqual({ busy: other.pid });
    } finally {
      other.kill("SIGKILL");
      await new Promise((r) => other.once("exit", r));
    }
    // Its process is gone: the lock is stale.
    expect(first.lockedBy(id)).toBe(null);
    expect(first.openWriter(id, 1)).not.toHaveProperty("busy");
  });

  it("a writer reopened after a kill cuts the partial last line, so the next record is whole", () => {
    const store = new ThreadStore(dataDir, "/p");
    const { id, rec } = root(store);
    rec.sync(snap(History.empty.push(user("x"))));
    rec.close();
    appendFileSync(join(store.dir, `${id}.jsonl`), '{"t":"block","b":{"type":"te');
    const again = new ThreadStore(dataDir, "/p");
    const loaded = again.load(id);
    const writer = again.openWriter(id, loaded.records);
    if ("busy" in writer) throw new Error("busy");
    new ThreadRecorder(writer, snap(loaded.raw.history)).sync(snap(loaded.raw.history.push(reply("y"))));
    const reloaded = new ThreadStore(dataDir, "/p").load(id);
    expect(reloaded.problems).toEqual([]);
    expect(reloaded.history.length).toBe(2);
  });

  it("deleting a parent keeps what its forks point at until the last fork is deleted", () => {
    const store = new ThreadStore(dataDir, "/p");
    const a = root(store);
    const h = History.empty.push(user("a1"), reply("a2"));
    a.rec.sync(snap(h));
    const bId = newId();
    const b = new ThreadRecorder(
      store.create({
        id: bId,
        num: 2,
        title: "F",
        model: "m",
        runner: { kind: "api" },
        parent: { relation: "fork", id: a.id, records: a.rec.records, atMessage: 1, messages: 2 },
      }),
      snap(h, { title: "F" }),
    );
    b.sync(snap(h.share().push(user("b3")), { title: "F" }));
    a.rec.close();
    store.delete(a.id);
    expect(store.list().threads.map((t) => [t.id, t.deleted])).toEqual([
      [a.id, true],
      [bId, false],
    ]);
    expect(
      new ThreadStore(dataDir, "/p")
        .load(bId)
        .history.messages()
        .map((m) => m.content[0]),
    ).toEqual([
      { type: "text", text: "a1" },
      { type: "text", text: "a2" },
      { type: "text", text: "b3" },
    ]);
    b.close();
    store.delete(bId);
    expect(readdirSync(store.dir).filter((f) => f.endsWith(".jsonl"))).toEqual([]);
  });

  it("lists every project's threads grouped by project", () => {
    const p1 = new ThreadStore(dataDir, "/work/one");
    const p2 = new ThreadStore(dataDir, "/work/two");
    root(p1, "In one").rec.sync(snap(History.empty.push(user("x")), { title: "In one" }));
    root(p2, "In two").rec.sync(snap(History.empty.push(user("y")), { title: "In two" }));
    const all = p1.listAll().map((p) => [p.cwd, p.threads.map((t) => t.title)]);
    expect(all.sort()).toEqual([
      ["/work/one", ["In one"]],
      ["/work/two", ["In two"]],
    ]);
  });
});
