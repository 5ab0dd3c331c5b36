/**
 * Notices a stalled stream: silence longer than the idle limit. An event only notes its time (a
 * stream brings thousands of events); one timer, set when the watch starts, looks at that time
 * when it fires and waits out the rest of the limit, so timers are set once per limit of time, not
 * once per event.
 */
import { startTimer } from "../util/timer.ts";

export class StallWatch {
  private lastEvent: number;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    /** Silence longer than this (ms) is a stall. */
    private readonly idleMs: number,
    private readonly onStall: () => void,
  ) {
    this.lastEvent = Date.now();
    this.wait(this.idleMs);
  }

  /** An event arrived: the silence starts again from now. */
  touch(): void {
    this.lastEvent = Date.now();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private wait(ms: number): void {
    this.timer = startTimer(() => {
      const silent = Date.now() - this.lastEvent;
      // Fired early (events came meanwhile, or a limit beyond what a timer holds): the rest is waited out.
      if (silent >= this.idleMs) {
        this.timer = null;
        this.onStall();
      } else this.wait(this.idleMs - silent);
    }, ms);
    this.timer.unref?.();
  }
}
