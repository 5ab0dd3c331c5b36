/**
 * Files in the data folder that must not be trusted: links planted where transcripts, locks and the
 * index live, hand-written index entries, records of the wrong types, a fork whose parent is gone.
 * Each is refused or rebuilt, with a message that says what and where; nothing else is touched.
 */
import { execFileSync } from "node:child_process";
import {
  appendFileSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { History } from "../core/history.ts";
import { assistantMessage, type Entry, entry, userMessage } from "../core/native.ts";
import { ThreadStore } from "./store.ts";
import { type Snapshot, ThreadRecorder } from "./sync.ts";

const usage = { input_tokens: 1, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
const user = (text: string): Entry => entry(userMessage([{ type: "text", text }]));
const reply = (text: string): Entry => entry(assistantMessage([{ type: "text", text }]), { stopReason: "end_turn", usage });
const snap = (history: History, title = "T"): Snapshot => ({ history, open: [], streamed: "", results: new Map(), title, reports: [] });

let dataDir: string;
let outside: string;
let n = 0;
const newId = () => `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}`;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "tine-untrusted-"));
  outside = mkdtempSync(join(tmpdir(), "tine-outside-"));
});
afterEach(() => {
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

/** A stored root thread with one exchange; its writer closed (as after a restart). */
function stored(store: ThreadStore, title = "T", num = 1) {
  const id = newId();
  const rec = new ThreadRecorder(
    store.create({ id, num, title, model: "m", runner: { kind: "api" }, parent: null }),
    snap(History.empty, title),
  );
  rec.sync(snap(History.empty.push(user(`${title} question`), reply(`${title} answer`)), title));
  rec.close();
  return { id, path: join(store.dir, `${id}.jsonl`) };
}

/** A file outside the data folder whose last line has no newline: what a follow-and-cut would damage. */
function victim(): { path: string; bytes: string } {
  const path = join(outside, "victim.txt");
  const bytes = "precious first line\nprecious last line without newline";
  writeFileSync(path, bytes);
  return { path, bytes };
}

describe("links and other non-files in the data folder", () => {
  it("a transcript that is a link is never opened for writing: its target keeps every byte, the lock is let go", () => {
    const store = new ThreadStore(dataDir, "/p");
    const { id, path } = stored(store);
    const target = victim();
    unlinkSync(path);
    symlinkSync(target.path, path);
    const again = new ThreadStore(dataDir, "/p");
    expect(() => again.openWriter(id, 2)).toThrow(`${path} is a symbolic link: tine opens only regular files there, never through a link`);
    expect(readFileSync(target.path, "utf8")).toBe(target.bytes);
    expect(existsSync(join(store.dir, `${id}.lock`))).toBe(false);
    // Nor read through: loading and listing say what it is.
    expect(() => again.load(id)).toThrow(/is a symbolic link/);
    expect(again.list().unreadable).toEqual([{ path, error: expect.stringMatching(/^a symbolic link: tine opens only regular files/) }]);
  });

  it("a deleted thread with forks is marked without writing through a link", () => {
    const store = new ThreadStore(dataDir, "/p");
    const parent = stored(store);
    const fork = store.create({
      id: newId(),
      num: 2,
      title: "F",
      model: "m",
      runner: { kind: "api" },
      parent: { relation: "fork", id: parent.id, records: 2, atMessage: 1, messages: 2 },
    });
    fork.close();
    const target = victim();
    unlinkSync(parent.path);
    symlinkSync(target.path, parent.path);
    expect(() => new ThreadStore(dataDir, "/p").delete(parent.id)).toThrow(/is a symbolic link/);
    expect(readFileSync(target.path, "utf8")).toBe(target.bytes);
  });

  it("a lock that is a link is refused with the path, and its target is neither read nor replaced", () => {
    const store = new ThreadStore(dataDir, "/p");
    const { id } = stored(store);
    const target = victim();
    symlinkSync(target.path, join(store.dir, `${id}.lock`));
    expect(() => new ThreadStore(dataDir, "/p").openWriter(id, 2)).toThrow(`${join(store.dir, `${id}.lock`)} is a symbolic link`);
    expect(readFileSync(target.path, "utf8")).toBe(target.bytes);
    expect(lstatSync(join(store.dir, `${id}.lock`)).isSymbolicLink()).toBe(true);
  });

  it("the index is written through neither a link at its own path nor one at its temporary file's", () => {
    const store = new ThreadStore(dataDir, "/p", 4242);
    stored(store, "Kept");
    const target = victim();
    const index = join(store.dir, "index.json");
    rmSync(index, { force: true });
    symlinkSync(target.path, index);
    symlinkSync(target.path, `${index}.4242.tmp`);
    expect(new ThreadStore(dataDir, "/p", 4242).list().threads.map((t) => t.title)).toEqual(["Kept"]);
    expect(readFileSync(target.path, "utf8")).toBe(target.bytes);
    expect(lstatSync(index).isFile()).toBe(true);
  });

  it("a FIFO named like a transcript is listed as unreadable instead of blocking the host", () => {
    const store = new ThreadStore(dataDir, "/p");
    stored(store, "Kept");
    const fifo = join(store.dir, `${newId()}.jsonl`);
    execFileSync("mkfifo", [fifo]);
    const list = new ThreadStore(dataDir, "/p").list();
    expect(list.threads.map((t) => t.title)).toEqual(["Kept"]);
    expect(list.unreadable).toEqual([{ path: fifo, error: expect.stringMatching(/^a FIFO \(pipe\)/) }]);
  });
});

describe("the index is a cache: no entry is trusted", () => {
  /** Writes index.json with the real file's size and mtime, so the entry would be taken as current. */
  function poison(store: ThreadStore, id: string, entry: (base: Record<string, unknown>) => unknown) {
    store.list();
    const index = join(store.dir, "index.json");
    const parsed = JSON.parse(readFileSync(index, "utf8"));
    const name = `${id}.jsonl`;
    parsed.files[name] = entry(parsed.files[name]);
    writeFileSync(index, JSON.stringify(parsed));
  }

  const cases: [string, (base: Record<string, unknown>) => unknown][] = [
    ["an entry whose summary lacks its fields", (b) => ({ ...b, summary: {} })],
    ["an entry that is not an object", () => 7],
    ["a title that is an object", (b) => ({ ...b, summary: { ...(b["summary"] as object), title: { x: 1 } } })],
    ["an id that would leave the folder", (b) => ({ ...b, summary: { ...(b["summary"] as object), id: "../../../etc/x" } })],
    ["branches that are not a list", (b) => ({ ...b, summary: { ...(b["summary"] as object), branches: "x" } })],
    ["a message count that is not a number", (b) => ({ ...b, summary: { ...(b["summary"] as object), messages: "2" } })],
  ];
  it.each(cases)("%s is scanned again; the other threads keep their entries", (_what, entry) => {
    const store = new ThreadStore(dataDir, "/p");
    const a = stored(store, "Alpha");
    stored(store, "Beta");
    poison(store, a.id, entry);
    const list = new ThreadStore(dataDir, "/p").list();
    expect(list.unreadable).toEqual([]);
    expect(list.threads.map((t) => [t.id.length, t.title, t.messages, Array.isArray(t.branches)])).toEqual([
      [36, "Alpha", 2, true],
      [36, "Beta", 2, true],
    ]);
    expect(list.threads[0]!.id).toBe(a.id);
  });

  it.each(["null", "[]", '{"v":1,"files":null}', '{"v":1,"files":[1,2]}', "not json"])("an index of %s lists every thread", (text) => {
    const store = new ThreadStore(dataDir, "/p");
    stored(store, "Alpha");
    store.list();
    writeFileSync(join(store.dir, "index.json"), text);
    expect(new ThreadStore(dataDir, "/p").list().threads.map((t) => t.title)).toEqual(["Alpha"]);
  });

  it("a transcript whose header names another thread than its file is unreadable, not listed under a wrong id", () => {
    const store = new ThreadStore(dataDir, "/p");
    const a = stored(store, "Alpha");
    const copy = join(store.dir, `${newId()}.jsonl`);
    writeFileSync(copy, readFileSync(a.path));
    const list = new ThreadStore(dataDir, "/p").list();
    expect(list.threads.map((t) => t.id)).toEqual([a.id]);
    expect(list.unreadable).toEqual([{ path: copy, error: `its header names thread ${a.id}, not the one its file name says` }]);
  });
});

describe("records that do not fit", () => {
  it("records of the wrong types are skipped and reported by line; the rest loads and can be sent", () => {
    const store = new ThreadStore(dataDir, "/p");
    const { id, path } = stored(store);
    appendFileSync(
      path,
      [
        '{"t":"block","b":{"type":"text","text":5}}',
        '{"t":"truncate","n":0.5}',
        `{"t":"append","m":{"role":"user","content":[{"type":"tool_result","tool_use_id":"x","content":${"[".repeat(6000)}${"]".repeat(6000)}}]}}`,
        '{"t":"append","m":{"role":"user","content":[{"type":"text","text":"after the bad lines"}]}}',
        "",
      ].join("\n"),
    );
    const loaded = new ThreadStore(dataDir, "/p").load(id);
    expect(loaded.problems).toEqual([
      { line: 4, error: "block record: text block without a string text" },
      { line: 5, error: "truncate record: n is not a whole number ≥ 0" },
      { line: 6, error: "nested more than 80 levels deep" },
    ]);
    expect(loaded.history.messages().map((m) => m.content[0])).toEqual([
      { type: "text", text: "T question" },
      { type: "text", text: "T answer" },
      { type: "text", text: "after the bad lines" },
    ]);
    expect(() => JSON.stringify(loaded.history.messages())).not.toThrow();
  });

  it("a header whose num is not a number makes its transcript unreadable, said so in the list", () => {
    const store = new ThreadStore(dataDir, "/p");
    const { path } = stored(store);
    const [header, ...rest] = readFileSync(path, "utf8").split("\n");
    writeFileSync(path, [JSON.stringify({ ...JSON.parse(header!), num: "x" }), ...rest].join("\n"));
    const list = new ThreadStore(dataDir, "/p").list();
    expect(list.threads).toEqual([]);
    expect(list.unreadable).toEqual([{ path, error: "header record: num is not a whole number ≥ 0" }]);
  });

  it("a fork whose parent's transcript is missing says so, naming the file", () => {
    const store = new ThreadStore(dataDir, "/p");
    const parent = stored(store);
    const forkId = newId();
    store
      .create({
        id: forkId,
        num: 2,
        title: "F",
        model: "m",
        runner: { kind: "api" },
        parent: { relation: "fork", id: parent.id, records: 2, atMessage: 1, messages: 2 },
      })
      .close();
    unlinkSync(parent.path);
    expect(() => new ThreadStore(dataDir, "/p").load(forkId)).toThrow(`tine: F: its parent transcript ${parent.path} is missing`);
  });
});

describe("thread numbers", () => {
  it("two instances on one project never give two threads the same number, even before either is written", () => {
    const one = new ThreadStore(dataDir, "/p", 101);
    const two = new ThreadStore(dataDir, "/p", 102);
    // Both know no thread: each asks for at least 1.
    expect(one.claimNum(1)).toBe(1);
    expect(two.claimNum(1)).toBe(2);
    expect(one.claimNum(2)).toBe(3);
    expect(statSync(join(one.dir, "nums")).mode & 0o777).toBe(0o700);
  });
});
