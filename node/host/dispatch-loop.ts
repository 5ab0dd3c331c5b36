/**
 * The one dispatch loop every service shares: each message is applied to the chat in turn (one
 * dispatched while a batch drains joins it, at the end), and after each batch every subscriber
 * is told what the batch was and what it changed. What reacts to a batch registers itself
 * (services.ts), in the order it runs; the loop knows none of them.
 */
import type { Changes } from "../chat/changes.ts";
import type { Dispatch, RootMsg } from "../chat/msgs.ts";

/** A batch drained: its messages, in the order they were applied, and what they changed in the chat. */
export type Batch = { readonly msgs: readonly RootMsg[]; readonly changes: Changes };

/** What the loop drives: the chat's update, and what a batch changed (taken once per batch). */
export type LoopTarget = {
  update(msg: RootMsg): void;
  takeChanges(): Changes;
};

export class DispatchLoop {
  private readonly queue: RootMsg[] = [];
  private draining = false;
  private readonly subscribers: ((batch: Batch) => void)[] = [];

  constructor(
    private readonly target: LoopTarget,
    /** A message the chat could not apply (a bug): the user is told, and the batch goes on. */
    private readonly failed: (error: unknown) => void,
  ) {}

  /**
   * `after` runs after every batch, after the subscribers registered before it. A message it
   * dispatches starts a batch of its own at once, whose subscribers all run before the ones
   * after `after` see this batch.
   */
  afterEachBatch(after: (batch: Batch) => void): void {
    this.subscribers.push(after);
  }

  readonly dispatch: Dispatch = (msg) => {
    this.queue.push(msg);
    if (this.draining) return;
    this.draining = true;
    const msgs: RootMsg[] = [];
    try {
      while (this.queue.length) {
        const next = this.queue.shift()!;
        msgs.push(next);
        try {
          this.target.update(next);
        } catch (error) {
          this.failed(error);
        }
      }
    } finally {
      this.draining = false;
    }
    // Only what this batch changed is written and drawn.
    const batch: Batch = { msgs, changes: this.target.takeChanges() };
    for (const after of this.subscribers) after(batch);
  };
}
