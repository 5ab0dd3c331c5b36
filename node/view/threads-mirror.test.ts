/**
 * The list Lua keeps for threads(): nothing is sent before Lua first asks; after that only the
 * entries of threads noted (and their ancestors) that differ from what was sent, the order when
 * threads came or went, the live threads on the tick; each send numbered after the one before.
 * Its walk up to the ancestors ends even over parents that loop.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { RootMsg } from "../chat/msgs.ts";
import type { ThreadId } from "../core/ids.ts";
import type { ThreadInfo } from "../nvim/lua-shapes.ts";
import { entriesTouched, type MirroredThreads, type MirrorSource, ThreadsMirror } from "./threads-mirror.ts";

const info = (id: string, status: string, parent: string | null = null): ThreadInfo => ({
  id,
  num: 1,
  parent_id: parent,
  title: id,
  status,
  stop_reason: null,
  messages: 0,
  updated: null,
  bufnr: null,
  input_bufnr: null,
  changed_files: [],
  usage: null,
  model: null,
  cwd: null,
  unattended: false,
  fanout: null,
});

/** Threads by id, in order; counts the entries made. */
function threads(initial: ThreadInfo[]) {
  const now = new Map(initial.map((t) => [t.id, t]));
  const made: string[] = [];
  const source: MirrorSource = {
    order: () => [...now.keys()],
    info: (id) => {
      made.push(id);
      return now.get(id) ?? null;
    },
    parentOf: (id) => now.get(id)?.parent_id ?? undefined,
    live: () => now.keys(),
  };
  return { now, made, source };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("ThreadsMirror", () => {
  it("sends what changed once asked: the noted threads and their ancestors, the order when it changed", () => {
    vi.useFakeTimers();
    const t = threads([info("root", "idle"), info("a", "idle", "root"), info("b", "idle")]);
    const pushed: MirroredThreads[] = [];
    const mirror = new ThreadsMirror(t.source, (m) => pushed.push(m), 5000);

    mirror.note(["a"], true);
    mirror.passed();
    expect(pushed).toEqual([]);

    expect(mirror.now()).toEqual({ seq: 1, set: [...t.now.values()], order: ["root", "a", "b"] });
    t.made.length = 0;

    // A pass after streamed deltas only makes no entry at all.
    mirror.passed();
    expect(t.made).toEqual([]);

    // A fork's entry changed: it and its parent are made again; only what differs goes.
    t.now.set("a", info("a", "streaming", "root"));
    mirror.note(["a"], false);
    mirror.passed();
    expect(t.made.sort()).toEqual(["a", "root"]);
    expect(pushed).toEqual([{ seq: 2, set: [info("a", "streaming", "root")], order: null }]);

    // Noted, unchanged: nothing goes.
    mirror.note(["b"], false);
    expect(mirror.due()).toBeNull();

    // A thread came and one went: the order, and the new one's entry.
    t.now.delete("b");
    t.now.set("c", info("c", "idle"));
    mirror.note([], true);
    expect(mirror.due()).toEqual({ seq: 3, set: [info("c", "idle")], order: ["root", "a", "c"] });

    // The tick looks at the live threads (a store write's time changes with no message).
    t.now.set("c", { ...info("c", "idle"), updated: 5 });
    vi.advanceTimersByTime(5000);
    expect(pushed.at(-1)).toEqual({ seq: 4, set: [{ ...info("c", "idle"), updated: 5 }], order: null });

    mirror.close();
    t.now.set("c", info("c", "error"));
    vi.advanceTimersByTime(20_000);
    expect(pushed).toHaveLength(2);
  });

  it("a streamed delta touches no entry; another thread message its thread's; a tree change the tree; a rescan every one", () => {
    const id = "t1" as ThreadId;
    expect(entriesTouched({ type: "thread-msg", id, msg: { type: "agent", msg: { type: "stream-updated" } } })).toBeNull();
    expect(
      entriesTouched({
        type: "thread-msg",
        id,
        msg: { type: "agent", msg: { type: "status-changed", status: { type: "streaming", startedAt: 0, attempt: 0 } } },
      }),
    ).toBe(id);
    expect(entriesTouched({ type: "chat-msg", msg: { type: "select-thread", id } })).toBe("tree");
    expect(entriesTouched({ type: "chat-msg", msg: { type: "stored-found", threads: [] } })).toBe("all");
  });

  it("after a batch notes the entries its messages touched: none for deltas, a thread's own, the tree's with what moved, every one on a rescan", () => {
    const t = threads([info("a", "idle"), info("b", "idle"), info("c", "idle"), info("d", "idle")]);
    const mirror = new ThreadsMirror(t.source, () => {}, 5000);
    mirror.now();
    const noted = () => {
      t.made.length = 0;
      mirror.due();
      return [...t.made].sort();
    };
    const id = (s: string) => s as ThreadId;
    const delta: RootMsg = { type: "thread-msg", id: id("a"), msg: { type: "agent", msg: { type: "stream-updated" } } };
    const none = { threads: [], tree: false, moved: [] };
    mirror.batched([delta], { ...none, threads: [id("a")] }, () => []);
    expect(noted()).toEqual([]);
    mirror.batched([delta, { type: "thread-msg", id: id("b"), msg: { type: "abort" } }], { ...none, threads: [id("c")] }, () => []);
    expect(noted()).toEqual(["b"]);
    const select: RootMsg = { type: "chat-msg", msg: { type: "select-thread", id: id("a") } };
    mirror.batched(
      [select, { type: "thread-msg", id: id("b"), msg: { type: "abort" } }],
      { threads: [id("c")], tree: true, moved: [id("d")] },
      () => [],
    );
    expect(noted()).toEqual(["b", "c", "d"]);
    const rescan: RootMsg = { type: "chat-msg", msg: { type: "stored-found", threads: [] } };
    mirror.batched([select, rescan], none, () => [id("a"), id("d")]);
    expect(noted()).toEqual(["a", "d"]);
  });

  it("sends the order after a batch of deltas only that changed the tree (a fork that ended as its turn did)", () => {
    const t = threads([info("a", "idle"), info("b", "streaming", "a")]);
    const mirror = new ThreadsMirror(t.source, () => {}, 5000);
    mirror.now();
    t.now.delete("b");
    const delta: RootMsg = { type: "thread-msg", id: "b" as ThreadId, msg: { type: "agent", msg: { type: "stream-updated" } } };
    mirror.batched([delta], { threads: ["a" as ThreadId], tree: true, moved: ["b" as ThreadId] }, () => []);
    expect(mirror.due()?.order).toEqual(["a"]);
  });

  it("sends a noted thread's ancestors, each once, even when the parents it is given loop (itself, or through others)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.nat(9), { nil: null }), { minLength: 1, maxLength: 10 }),
        fc.array(fc.nat(9), { minLength: 1, maxLength: 4 }),
        (pointers, noted) => {
          const ids = pointers.map((_, i) => `t${i}`);
          const parent = (id: string) => {
            const p = pointers[Number(id.slice(1))];
            return p === null || p === undefined || p >= ids.length ? null : `t${p}`;
          };
          const t = threads(ids.map((id) => info(id, "idle", parent(id))));
          let asked = 0;
          const source: MirrorSource = {
            ...t.source,
            parentOf: (id) => {
              if (++asked > 1000) throw new Error("the walk up does not end");
              return t.source.parentOf(id);
            },
          };
          const mirror = new ThreadsMirror(source, () => {}, 5000);
          mirror.now();
          const changed = noted.map((n) => ids[n % ids.length]!);
          for (const id of ids) t.now.set(id, info(id, "streaming", parent(id)));
          mirror.note(changed, false);
          // Every thread met walking up from a noted one, itself included.
          const above = new Set<string>();
          for (let at: string | null = changed[0]!; at !== null && !above.has(at); at = parent(at)) above.add(at);
          const sent = mirror.due()!.set.map((i) => i.id);
          expect(new Set(sent).size).toBe(sent.length);
          for (const id of above) expect(sent).toContain(id);
        },
      ),
    );
  });
});
