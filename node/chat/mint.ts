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

/** How many identities given last are remembered for `release` (more than a fan-out makes). */
const RECENT = 64;

export class ThreadMint {
  /** The highest number given. */
  private highest = 0;
  /** The identities given last, latest at the end: only the latest's number can be given back (a fan-out's, last first). */
  private readonly recent: NewThread[] = [];

  constructor(
    /** The highest number of the threads known here (live or stored). */
    private readonly inUse: () => number,
    /** A number of at least `atLeast` no other Neovim on the project has taken (ChatEvents.claimNum). */
    private readonly claim: (atLeast: number) => number,
    /** Gives a claimed number back (ChatEvents.releaseNum). */
    private readonly unclaim: (num: number) => void,
  ) {}

  next(): NewThread {
    this.highest = this.claim(Math.max(this.inUse(), this.highest) + 1);
    const made = { id: randomUuid(), num: this.highest };
    this.recent.push(made);
    if (this.recent.length > RECENT) this.recent.shift();
    return made;
  }

  /**
   * `made` never became a thread: its number is given again, unless a later one was given since
   * (numbers go up in the order threads are made; that one stays skipped).
   */
  release(made: NewThread): void {
    if (made.id !== this.recent.at(-1)?.id) return;
    this.recent.pop();
    this.unclaim(made.num);
    this.highest = made.num - 1;
  }
}
