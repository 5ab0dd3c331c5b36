/**
 * The store on a disk that refuses writes (a full tmpfs, a read-only one): a failed write leaves
 * no torn line, a thread stays pending and not saved (with why) until its writes go through, they
 * are tried again later as a whole, and a fork's end mark waits for what its end moved elsewhere.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { exchanges, replyTurn, type StoreWorld, storeWorld, userTurn } from "../../test/helpers/store-world.ts";
import { mountTmpfs, type Tmpfs, tmpfsRefused } from "../../test/helpers/tmpfs.ts";
import { History } from "../core/history.ts";
import { Persistence } from "./persistence.ts";
import { SAVE_RETRY_MS } from "./save-failures.ts";
import { ThreadStore } from "./store.ts";
import { STREAMED_TEXT_EVERY_MS, ThreadRecorder } from "./sync.ts";

/** Larger than a page: a full tmpfs cannot take it in the slack of a file's last page. */
const big = (tag: string) => `${tag} ${"x".repeat(20_000)}`;

let disk: Tmpfs;
let now = 0;
const clock = { now: () => now };
beforeEach(() => {
  if (tmpfsRefused) return;
  disk = mountTmpfs();
  now = 1_000_000;
});
afterEach(() => disk?.close());

const transcript = (w: StoreWorld, id: string) => readFileSync(join(w.store.dir, `${id}.jsonl`), "utf8");
const reload = (dir: string) => {
  const p = new Persistence(new ThreadStore(dir, "/project"), "m");
  return { scan: p.scan(), load: (id: string) => p.store.load(id) };
};

describe.skipIf(tmpfsRefused !== null)(`on a disk that refuses writes${tmpfsRefused ? ` (skipped: ${tmpfsRefused})` : ""}`, () => {
  it("a write the full disk cannot take is cut back to the last whole record; once space is back the next write follows it whole", () => {
    const store = new ThreadStore(disk.dir, "/project");
    const id = "00000000-0000-4000-8000-000000000001";
    const start = { history: History.empty, open: [], streamed: "", results: new Map(), title: "T", reports: [] };
    const rec = new ThreadRecorder(store.create({ id, num: 1, title: "T", model: "m", runner: { kind: "api" }, parent: null }), start);
    const first = History.of([userTurn("q1"), replyTurn("a1")]);
    rec.sync({ ...start, history: first });
    const path = join(store.dir, `${id}.jsonl`);
    const before = readFileSync(path, "utf8");
    disk.fill();
    const second = first.push(userTurn("q2"), replyTurn(big("the long reply")));
    expect(() => rec.sync({ ...start, history: second })).toThrow(/ENOSPC/);
    expect(readFileSync(path, "utf8")).toBe(before);
    disk.free();
    const third = second.push(userTurn("q3"));
    rec.sync({ ...start, history: third });
    rec.close();
    const loaded = new ThreadStore(disk.dir, "/project").load(id);
    expect(loaded.problems).toEqual([]);
    expect(loaded.history.messages()).toEqual(third.messages());
  });

  it("a thread made while the disk is full is pending and not saved, with why; once space is back it is written whole, told once each way", () => {
    disk.fill();
    const w = storeWorld(disk.dir, clock);
    const id = w.root(exchanges("made on a full disk", 1));
    expect(w.persistence.notSaved(id)).toBe(`no space left on ${disk.dir}`);
    expect(w.persistence.takeNotices()).toEqual([{ type: "failing", title: "Thread 1", why: `no space left on ${disk.dir}` }]);
    // It works on in memory; its writes wait for the retry, and nobody is told again.
    now += SAVE_RETRY_MS / 2;
    w.say(id, [userTurn(big("more"))]);
    expect(w.persistence.takeNotices()).toEqual([]);
    expect(w.persistence.nextWake()).toBe(1_000_000 + SAVE_RETRY_MS);
    now += SAVE_RETRY_MS;
    w.persistence.sync(w.chat, now);
    expect(w.persistence.takeNotices()).toEqual([]);
    expect(w.persistence.notSaved(id)).toBeDefined();
    disk.free();
    now += SAVE_RETRY_MS;
    w.persistence.sync(w.chat, now);
    expect(w.persistence.notSaved(id)).toBeUndefined();
    expect(w.persistence.takeNotices()).toEqual([{ type: "saved", title: "Thread 1" }]);
    expect(w.persistence.nextWake()).toBeNull();
    const again = reload(disk.dir);
    expect(again.scan.unreadable).toEqual([]);
    expect(again.load(id).history.messages()).toEqual(w.messages(id));
  });

  it("a read-only data dir is said to be read-only; a stored thread opened there loads, not saved, and is saved once it is writable", () => {
    const first = storeWorld(disk.dir, clock);
    const id = first.root(exchanges("stored", 1));
    first.persistence.close();
    disk.readOnly(true);
    const w = storeWorld(disk.dir, clock);
    const fresh = w.root(exchanges("new", 1));
    expect(w.persistence.notSaved(fresh)).toBe(`${disk.dir} is read-only`);
    w.rescan();
    w.open(id);
    expect(w.messages(id)).toEqual(first.messages(id));
    expect(w.persistence.notSaved(id)).toBe(`${disk.dir} is read-only`);
    w.say(id, exchanges("read-only", 1));
    disk.readOnly(false);
    now += SAVE_RETRY_MS;
    w.persistence.sync(w.chat, now);
    expect([w.persistence.notSaved(id), w.persistence.notSaved(fresh)]).toEqual([undefined, undefined]);
    const again = reload(disk.dir);
    expect(again.load(id).history.messages()).toEqual(w.messages(id));
    expect(again.load(fresh).history.messages()).toEqual(w.messages(fresh));
  });

  it("streamed text the full disk refuses waits for the retry: the store is not woken again before it", () => {
    const w = storeWorld(disk.dir, clock);
    const id = w.root(exchanges("root", 1));
    w.say(id, [userTurn("go on")]);
    w.streaming(id, big("arriving"));
    const due = w.persistence.nextWake()!;
    expect(due).toBe(now + STREAMED_TEXT_EVERY_MS);
    disk.fill();
    now = due;
    w.persistence.sync(w.chat, now);
    expect(w.persistence.notSaved(id)).toBe(`no space left on ${disk.dir}`);
    expect(w.persistence.nextWake()).toBe(now + SAVE_RETRY_MS);
    disk.free();
    now += SAVE_RETRY_MS;
    w.persistence.sync(w.chat, now);
    expect(w.persistence.notSaved(id)).toBeUndefined();
    expect(reload(disk.dir).load(id).raw.streamed).toBe(big("arriving"));
  });

  it("a report on a full disk, from a fork not saved either: the fork's own retry is kept and never lies in the past", () => {
    const w = storeWorld(disk.dir, clock);
    const root = w.root(exchanges("root", 1));
    const fork = w.fork(root);
    disk.fill();
    w.say(fork, [userTurn("fork q"), replyTurn(big("fork answer"))]);
    expect(w.persistence.notSaved(fork)).toBeDefined();
    now += SAVE_RETRY_MS / 2;
    w.dispatch({ type: "chat-msg", msg: { type: "fork-report", id: fork, text: big("the finding") } });
    expect(w.persistence.notSaved(root)).toBeDefined();
    // The fork's retry comes first; the parent's is still ahead, so the fork's end mark waits for it.
    now += SAVE_RETRY_MS / 2;
    expect(w.persistence.nextWake()).toBe(now);
    w.persistence.sync(w.chat, now);
    expect(w.persistence.nextWake()).toBeGreaterThan(now);
    expect(w.persistence.takeNotices().map((n) => n.type)).toEqual(["failing", "failing"]);
    disk.free();
    for (let i = 0; i < 2; i++) {
      now = w.persistence.nextWake()!;
      w.persistence.sync(w.chat, now);
    }
    expect(w.persistence.nextWake()).toBeNull();
    expect(transcript(w, fork)).toContain('"t":"ended","how":"reported"');
    expect(
      reload(disk.dir)
        .load(root)
        .raw.reports.map((r) => r.text),
    ).toEqual([big("the finding")]);
    expect(w.persistence.takeNotices().map((n) => n.type)).toEqual(["saved", "saved"]);
  });

  it("a promote on a full disk: the fork is marked ended only after the parent's new history is written", () => {
    const w = storeWorld(disk.dir, clock);
    const root = w.root(exchanges("root", 2));
    const fork = w.fork(root, 1);
    w.say(fork, [userTurn("fork q"), replyTurn(big("fork answer"))]);
    const forkHistory = w.messages(fork);
    disk.fill();
    w.dispatch({ type: "chat-msg", msg: { type: "fork-promote", id: fork, siblingId: w.newId(), siblingNum: 9 } });
    expect(w.messages(root)).toEqual(forkHistory);
    expect(w.persistence.notSaved(root)).toBe(`no space left on ${disk.dir}`);
    expect(transcript(w, fork)).not.toContain('"t":"ended"');
    expect(w.persistence.nextWake()).toBe(now + SAVE_RETRY_MS);
    // As the disk is now: the fork is still in the tree, whole.
    expect(reload(disk.dir).scan.threads.map((t) => t.id)).toContain(fork);
    disk.free();
    now += SAVE_RETRY_MS;
    w.persistence.sync(w.chat, now);
    expect(transcript(w, fork)).toContain('"t":"ended","how":"promoted"');
    const again = reload(disk.dir);
    expect(again.scan.threads.map((t) => t.id)).not.toContain(fork);
    expect(again.load(root).history.messages()).toEqual(forkHistory);
  });
});
