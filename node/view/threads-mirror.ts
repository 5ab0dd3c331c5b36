/**
 * The thread list as Lua keeps a copy of it, so that `require('tine').threads()` (a statusline
 * calls it on every redraw) is answered in Neovim without waiting on a host busy with streams.
 * The first call asks the host (`now`), which from then on pushes the list when it changes: at
 * the end of a drawing pass after any chat message but a streamed delta (a status, a title, a
 * fork, a turn's changed files), so once threads() says a reply came its display shows it; and on
 * a slow tick, for what changes with the clock or outside the chat (a store write's time, a cache
 * expiring); a thread's buffers, once made, are a change too (`mayChange`). A push goes only when the list differs from the last one sent, so
 * thirty forks streaming cost nothing here. Every list carries a sequence number: Lua keeps the
 * newest it has seen.
 */
import type { ThreadInfo } from "../rpc/methods.ts";

export type MirroredThreads = { seq: number; threads: ThreadInfo[] };

export type MirrorClock = {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
};

const realClock: MirrorClock = {
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export class ThreadsMirror {
  private seq = 0;
  private lastSent = "";
  /** A chat message other than a streamed delta came since the last list was made. */
  private stale = false;
  /** Lua asked once: pushes go from then on. */
  private active = false;
  private tick: unknown = null;

  constructor(
    private readonly list: () => ThreadInfo[],
    private readonly push: (mirrored: MirroredThreads) => void,
    private readonly tickMs = 1000,
    private readonly clock: MirrorClock = realClock,
  ) {}

  /** The list now, for a call that waits for it; pushes follow from then on. */
  now(): MirroredThreads {
    const threads = this.list();
    this.lastSent = JSON.stringify(threads);
    this.stale = false;
    this.seq++;
    if (!this.active) {
      this.active = true;
      this.armTick();
    }
    return { seq: this.seq, threads };
  }

  /** A chat message that may change an entry (anything but a streamed delta) is being handled. */
  mayChange(): void {
    this.stale = true;
  }

  /** A drawing pass ended (after any batch of chat messages): cheap when only text streamed. */
  passed(): void {
    if (this.active && this.stale) this.flush();
  }

  /** For an answer to any call: the list when it may have changed since the last one sent and did, else null. */
  due(): MirroredThreads | null {
    if (!this.active || !this.stale) return null;
    return this.take();
  }

  /** The host is going away. */
  close(): void {
    if (this.tick !== null) this.clock.clearTimeout(this.tick);
    this.tick = null;
    this.active = false;
  }

  private armTick(): void {
    this.tick = this.clock.setTimeout(() => {
      this.flush();
      if (this.active) this.armTick();
    }, this.tickMs);
  }

  private flush(): void {
    const taken = this.take();
    if (taken) this.push(taken);
  }

  /** The list, numbered, when it differs from the last one sent; null when it does not. */
  private take(): MirroredThreads | null {
    this.stale = false;
    const threads = this.list();
    const key = JSON.stringify(threads);
    if (key === this.lastSent) return null;
    this.lastSent = key;
    this.seq++;
    return { seq: this.seq, threads };
  }
}
