/**
 * The `mcp_timeout` of a server's calls, which stands still while the server's question
 * (elicitation) waits for the user: a form answered after lunch is not a server that hung, and a
 * background fork's question waits as an approval does. Each call's clock runs only while none of
 * its server's questions is open.
 */
import { startTimer } from "../util/timer.ts";

export type CallClock = {
  /** The call ended: its clock is dropped. */
  stop(): void;
};

type Running = { left: number; since: number; timer: NodeJS.Timeout | null; readonly fire: () => void };

export class CallClocks {
  private readonly running = new Set<Running>();
  private open = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** A clock of `ms` for one call; `onTimeout` once it has run out (never after `stop`). */
  start(ms: number, onTimeout: () => void): CallClock {
    const clock: Running = {
      left: ms,
      since: this.now(),
      timer: null,
      fire: () => {
        this.running.delete(clock);
        onTimeout();
      },
    };
    this.running.add(clock);
    if (this.open === 0) this.arm(clock);
    return {
      stop: () => {
        if (clock.timer) clearTimeout(clock.timer);
        this.running.delete(clock);
      },
    };
  }

  /** The server asked the user something: every clock of its calls stops. */
  questionOpened(): void {
    if (this.open++ > 0) return;
    const now = this.now();
    for (const clock of this.running) {
      if (clock.timer) clearTimeout(clock.timer);
      clock.timer = null;
      clock.left -= now - clock.since;
    }
  }

  /** A question was answered or withdrawn: once none is open, the clocks run on from where they stood. */
  questionClosed(): void {
    if (this.open === 0 || --this.open > 0) return;
    for (const clock of this.running) this.arm(clock);
  }

  private arm(clock: Running): void {
    clock.since = this.now();
    clock.timer = startTimer(clock.fire, clock.left);
  }
}
