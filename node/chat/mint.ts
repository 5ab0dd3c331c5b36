/**
 * A new thread's identity, made in one place (`Chat.mint`) for every kind of thread (a new one, a
 * fork, a hand-off, a compaction, a promote's branch): its id, a UUID (unique across processes and
 * machines, it names the thread's file), and its number in the list: above every one in use or
 * ever given here (a deleted or ended thread's number is never given again), and claimed from the
 * host (unique across the Neovims sharing the project).
 */

import type { ThreadId } from "../core/ids.ts";
import { randomUuid } from "../util/uuid.ts";

export type NewThread = { readonly id: ThreadId; readonly num: number };

export class ThreadMint {
  /** The highest number given. */
  private highest = 0;

  constructor(
    /** The highest number of the threads known here (live or stored). */
    private readonly inUse: () => number,
    /** A number of at least `atLeast` no other Neovim on the project has taken (ChatEvents.claimNum). */
    private readonly claim: (atLeast: number) => number,
  ) {}

  next(): NewThread {
    this.highest = this.claim(Math.max(this.inUse(), this.highest) + 1);
    return { id: randomUuid(), num: this.highest };
  }
}
