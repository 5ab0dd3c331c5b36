/**
 * Opening a long stored thread: its end is shown at once, read from the end of its file alone
 * (store/tail.ts), and the thread is read whole just after the answer to the open (the next turn
 * of the event loop, Neovim no longer waiting); its display then takes over the buffers and fills
 * in the rest (Buffers.showEnd, DisplayFill). Anything that needs the thread before that reads it
 * whole at once (`finish`). A thread whose end cannot be shown alone opens as before.
 */
import type { StoredThread } from "../chat/msgs.ts";
import type { ThreadId } from "../core/ids.ts";
import type { Tail } from "../store/tail.ts";
import { endLines } from "./end-preview.ts";

export type OpenFromEndDeps = {
  /** What the list knows of a stored thread (not loaded), or undefined. */
  stored(id: ThreadId): StoredThread | undefined;
  /** Its last messages, read from its end alone, or null (store/tail.ts). */
  tail(id: ThreadId, minBytes: number): Tail | null;
  /** The pid of another Neovim's host writing it, or null. */
  lockedBy(id: ThreadId): number | null;
  /** Makes its buffers and shows `lines` in its display (Buffers.showEnd). */
  showEnd(id: ThreadId, num: number, title: string, lines: string[]): Promise<{ display: number; input: number }>;
  /** About how many bytes the first screen and each fill step write (display_fill_step). */
  readonly fillStep: number;
  /** Reads the thread whole and makes it the active thread. */
  open(id: ThreadId): void;
  notifyError(text: string): void;
};

export class OpenFromEnd {
  /** Threads whose end is shown, not read whole yet. */
  private readonly pending = new Set<ThreadId>();

  constructor(private readonly deps: OpenFromEndDeps) {}

  /** Shows stored thread `id`'s end in its buffers, and reads it whole next; null when it is to be read whole now. */
  async showEnd(id: ThreadId): Promise<{ display: number; input: number; read_only_by: number | null } | null> {
    const deps = this.deps;
    const stored = deps.stored(id);
    if (!stored || this.pending.has(id)) return null;
    const tail = deps.tail(id, deps.fillStep);
    if (!tail) return null;
    this.pending.add(id);
    const lines = endLines(tail.entries, Math.max(0, stored.messages - tail.entries.length), deps.fillStep);
    try {
      const bufs = await deps.showEnd(id, stored.num, stored.title, lines);
      return { ...bufs, read_only_by: deps.lockedBy(id) };
    } finally {
      setImmediate(() => this.finish(id));
    }
  }

  /** Reads thread `id` whole now if its end is all that is shown yet. */
  finish(id: ThreadId): void {
    if (!this.pending.delete(id)) return;
    try {
      this.deps.open(id);
    } catch (error) {
      this.deps.notifyError(`tine: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
