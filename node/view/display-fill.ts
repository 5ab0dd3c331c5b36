/**
 * The pace at which a display that opened at its thread's end is filled in: a step of about
 * `budget` bytes at a time, each made once Neovim has applied the one before, so Neovim handles
 * keys, timers and other threads' writes between steps. Renders of the thread go between steps
 * as they come (both are edits of what the buffer holds then). Also which lines Neovim means
 * meanwhile: a step on its way shifts every line down.
 */
import type { Thread } from "../chat/thread.ts";
import type { ViewUpdate } from "../nvim/bridge.ts";
import { appendAll } from "../util/arrays.ts";
import type { ThreadView } from "./thread-view.ts";

export class DisplayFill {
  private running = false;
  /** Lines the step on its way puts at the top of the buffer, not applied in Neovim yet. */
  private unapplied = 0;
  private stepApplied: Promise<void> = Promise.resolve();

  constructor(
    private readonly view: ThreadView,
    /** Writes an update to the display; resolves once Neovim has applied it. */
    private readonly apply: (update: ViewUpdate) => Promise<void>,
    /** The thread as it is now; null once its display is gone (the fill stops). */
    private readonly thread: () => Thread | null,
    private readonly budget: number,
  ) {}

  /**
   * Writes a render's update (`thread`: as just synced). When the display shows only its end and
   * no fill runs (it just opened, or a history rewrite took lines out), the next step goes with
   * it (the first screen) and the fill goes on. Resolves once Neovim has applied the update.
   */
  write(update: ViewUpdate, thread: Thread): Promise<void> | undefined {
    const step = this.running ? null : this.view.fill(thread, this.budget);
    if (step) {
      appendAll(update.edits, step.edits);
      if (step.marks) update.marks = step.marks;
    }
    if (!update.edits.length && !update.marks && update.busySince === undefined) return;
    if (!step) return this.apply(update);
    const applied = this.send(update);
    if (this.view.filling) {
      this.running = true;
      // A write that failed is logged by `apply` (the next step is made all the same); a bug in a
      // step is an unhandled rejection, which the host reports.
      void this.run(applied).finally(() => {
        this.running = false;
      });
    }
    return applied;
  }

  /** The buffer line the host's view has for `line` as Neovim numbered it when it asked. */
  line(line: number): number {
    return line + this.unapplied;
  }

  /** Resolves once the step on its way is applied: a line given then is Neovim's as it gets it. */
  settled(): Promise<void> {
    return this.stepApplied;
  }

  private async run(applied: Promise<void>): Promise<void> {
    await applied;
    for (;;) {
      // Answers waiting for the step just applied (`settled`) go out before the next is made.
      await new Promise((resolve) => setImmediate(resolve));
      const thread = this.thread();
      const step = thread && this.view.fill(thread, this.budget);
      if (!step) return;
      await this.send(step);
    }
  }

  private send(update: ViewUpdate): Promise<void> {
    this.unapplied = 0;
    for (const [start, end, lines] of update.edits) if (start === 0 && end === 0) this.unapplied += lines.length;
    this.stepApplied = this.apply(update).then(() => {
      this.unapplied = 0;
    });
    return this.stepApplied;
  }
}
