/**
 * One timer for the forks' idle clocks, set for the next moment one can run out (the forks keep
 * their deadlines in order: see Forks.nextDeadline); when it fires, a `clock-tick` is dispatched.
 */
import { startTimer } from "../util/timer.ts";
import type { Chat } from "./chat.ts";
import type { Dispatch } from "./msgs.ts";

export class ForkClock {
  private timer: { at: number; timer: NodeJS.Timeout } | null = null;

  constructor(
    private readonly chat: Chat,
    private readonly dispatch: Dispatch,
  ) {}

  /** Called after each batch of messages: moves the timer when the next deadline moved. */
  arm(): void {
    const next = this.chat.forks.nextDeadline();
    if (this.timer?.at === next) return;
    if (this.timer) clearTimeout(this.timer.timer);
    this.timer = null;
    if (next === null) return;
    // A deadline beyond what a timer holds fires early: the tick finds nothing due and re-arms.
    const timer = startTimer(() => {
      this.timer = null;
      this.dispatch({ type: "chat-msg", msg: { type: "clock-tick", now: Date.now() } });
    }, next - Date.now());
    timer.unref();
    this.timer = { at: next, timer };
  }
}
