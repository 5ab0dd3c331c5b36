import type { ThreadId } from "../core/ids.ts";
/**
 * When the streamed text of some live thread is next due to be written (sync.ts writes a block
 * still streaming only now and then; the host wakes the store then). The earliest time is kept as
 * threads start waiting, so the wake asked after every streamed delta does not walk every thread
 * streaming; it is found again by that walk only when a thread stopped waiting or the store was woken.
 */

export class StreamedWake {
  /** Threads whose streamed text waits to be written: the only recorders a wake-up can be due for. */
  private readonly waiting = new Set<ThreadId>();
  /** The earliest time the streamed text of `waiting` is due (null: none); undefined: to be found again by a walk. */
  private due: number | null | undefined = null;

  /** Thread `id` was just synced: its streamed text is now due at `dueAt` (null: none waits). */
  noted(id: ThreadId, dueAt: number | null): void {
    if (dueAt !== null) {
      this.waiting.add(id);
      if (this.due !== undefined && (this.due === null || dueAt < this.due)) this.due = dueAt;
    } else if (this.waiting.delete(id)) this.due = undefined;
  }

  /** What is due may have changed outside the syncs noted (the store was woken, a fork's anchor, a failure). */
  stale(): void {
    this.due = undefined;
  }

  /** When the first streamed text waiting is due, or null; `dueOf`: a waiting thread's due time now (null: it waits for nothing, or not for this). */
  next(dueOf: (id: ThreadId) => number | null): number | null {
    if (this.due === undefined) {
      let next: number | null = null;
      for (const id of this.waiting) {
        const due = dueOf(id);
        if (due !== null && (next === null || due < next)) next = due;
      }
      this.due = next;
    }
    return this.due;
  }
}
