/**
 * The thread list as Lua keeps a copy of it, so that `require('tine').threads()` (a statusline
 * calls it on every redraw) is answered in Neovim without waiting on a host busy with streams.
 * The first call asks the host (`now`: the whole list); from then on the host sends what changed:
 * the entries of the threads a chat message other than a streamed delta touched (and their
 * ancestors, whose subtree sums move with them), and the order when threads came or went. Sent at
 * the end of a drawing pass (in the same message as its buffer writes, so a display and threads()
 * never disagree), with the answer to any call, and on a slow tick for what changes with the
 * clock (a store write's time, a cache expiring). Work per change is the threads it touched, not
 * the threads open. Every entry and order carries the sequence number it was sent with: Lua keeps
 * the newest of each, so a push queued behind an answer never undoes it.
 */
import type { Changes } from "../chat/changes.ts";
import type { RootMsg } from "../chat/msgs.ts";
import type { ThreadId } from "../core/ids.ts";
import type { ThreadInfo } from "../nvim/lua-shapes.ts";

/** `order`: every thread's id, in the list's order, when it changed (always in a whole list); `set`: entries that changed. */
export type MirroredThreads = { seq: number; set: ThreadInfo[]; order: ThreadId[] | null };

export type MirrorClock = {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
};

const realClock: MirrorClock = {
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** What the mirror reads of the threads (view/thread-queries.ts). */
export type MirrorSource = {
  /** Every thread's id, in the list's order. */
  order(): ThreadId[];
  /** A thread's entry; null once it is gone. */
  info(id: ThreadId): ThreadInfo | null;
  parentOf(id: ThreadId): ThreadId | undefined;
  /** The live threads (the tick looks at these: a stored entry changes only with the chat). */
  live(): Iterable<ThreadId>;
};

export class ThreadsMirror {
  private seq = 0;
  /** Each entry as last sent (JSON). */
  private readonly sent = new Map<ThreadId, string>();
  private sentOrder = "";
  /** Threads whose entry may have changed since the last send; `reorder`: threads may have come or gone. */
  private readonly dirty = new Set<ThreadId>();
  private reorder = false;
  /** Lua asked once: changes are sent from then on. */
  private active = false;
  private tick: unknown = null;

  constructor(
    private readonly source: MirrorSource,
    private readonly push: (mirrored: MirroredThreads) => void,
    private readonly tickMs = 5000,
    private readonly clock: MirrorClock = realClock,
  ) {}

  /** The whole list now, for a call that waits for it; changes are sent from then on. */
  now(): MirroredThreads {
    const order = this.source.order();
    const set: ThreadInfo[] = [];
    this.sent.clear();
    for (const id of order) {
      const info = this.source.info(id);
      if (!info) continue;
      set.push(info);
      this.sent.set(id, JSON.stringify(info));
    }
    this.sentOrder = JSON.stringify(order);
    this.dirty.clear();
    this.reorder = false;
    this.seq++;
    if (!this.active) {
      this.active = true;
      this.armTick();
    }
    return { seq: this.seq, set, order };
  }

  /** These threads' entries may have changed (`reorder`: threads may have come or gone). */
  note(ids: Iterable<ThreadId>, reorder: boolean): void {
    if (!this.active) return;
    for (const id of ids) this.dirty.add(id);
    if (reorder) this.reorder = true;
  }

  /**
   * A batch of chat messages was applied (host/dispatch-loop.ts): the entries they may have changed
   * (`entriesTouched`) are noted; `every`: each thread's id, live or stored, for a batch that read
   * the store again.
   */
  batched(msgs: readonly RootMsg[], changes: Changes, every: () => Iterable<ThreadId>): void {
    const touched = new Set<ThreadId>();
    let tree = false;
    let all = false;
    for (const msg of msgs) {
      const entries = entriesTouched(msg);
      if (entries === "tree") tree = true;
      else if (entries === "all") all = true;
      else if (entries !== null) touched.add(entries);
    }
    if (all) this.note(every(), true);
    else if (tree) this.note([...touched, ...changes.threads, ...changes.moved], true);
    // A change to the tree is noted whatever the messages were: one applied with a streamed delta
    // (a fork that ends as its turn does) would otherwise leave Lua a thread the host no longer has.
    else if (touched.size || changes.tree) this.note([...touched, ...changes.moved], changes.tree);
  }

  /** A drawing pass ended: what changed goes with it. Nothing to do after streamed deltas only. */
  passed(): void {
    const taken = this.due();
    if (taken) this.push(taken);
  }

  /** What changed since the last send, for an answer or a pass; null when nothing did. */
  due(): MirroredThreads | null {
    if (!this.active || (this.dirty.size === 0 && !this.reorder)) return null;
    let order: ThreadId[] | null = null;
    if (this.reorder) {
      const now = this.source.order();
      const key = JSON.stringify(now);
      if (key !== this.sentOrder) {
        this.sentOrder = key;
        order = now;
        // A thread that came has an entry to send; one that went has none to keep.
        const present = new Set(now);
        for (const id of now) if (!this.sent.has(id)) this.dirty.add(id);
        for (const id of this.sent.keys()) if (!present.has(id)) this.sent.delete(id);
      }
      this.reorder = false;
    }
    // A thread's subtree sums count its forks: its ancestors' entries move with it. A walk stops at
    // a thread already taken (its own walk goes on from there), so each is walked once, and a
    // loop of parents, if the source ever gave one, ends too.
    for (const id of [...this.dirty])
      for (let p = this.source.parentOf(id); p !== undefined && !this.dirty.has(p); p = this.source.parentOf(p)) this.dirty.add(p);
    const set: ThreadInfo[] = [];
    for (const id of this.dirty) {
      const info = this.source.info(id);
      if (!info) continue;
      const key = JSON.stringify(info);
      if (this.sent.get(id) === key) continue;
      this.sent.set(id, key);
      set.push(info);
    }
    this.dirty.clear();
    if (!order && set.length === 0) return null;
    this.seq++;
    return { seq: this.seq, set, order };
  }

  /** The host is going away. */
  close(): void {
    if (this.tick !== null) this.clock.clearTimeout(this.tick);
    this.tick = null;
    this.active = false;
  }

  private armTick(): void {
    this.tick = this.clock.setTimeout(() => {
      this.note(this.source.live(), false);
      this.passed();
      if (this.active) this.armTick();
    }, this.tickMs);
  }
}

/**
 * Which entries a chat message may change: none for a streamed delta (its text streams; nothing
 * threads() shows moves with it), its thread's for another thread message, the threads it
 * touched for a change to the tree, and every one when the store was read again.
 */
export function entriesTouched(msg: RootMsg): ThreadId | "tree" | "all" | null {
  if (msg.type === "thread-msg") return msg.msg.type === "agent" && msg.msg.msg.type === "stream-updated" ? null : msg.id;
  return msg.msg.type === "stored-found" ? "all" : "tree";
}
