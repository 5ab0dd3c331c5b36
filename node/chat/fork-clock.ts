/**
 * One timer for the forks' idle clocks, set for the next moment one can run out (the forks keep
 * their deadlines in order: see ForkLives.nextDeadline); when it fires and one is due, a
 * `clock-tick` is dispatched.
 */
import { startTimer } from "../util/timer.ts";
import type { Chat } from "./chat.ts";
import type { Dispatch } from "./msgs.ts";

export class ForkClock {
  private timer: { at: number; timer: NodeJS.Timeout } | null = null;

  constructor(
    private readonly chat: Pick<Chat, "forks">,
    private readonly dispatch: Dispatch,
  ) {}

  /**
   * Called after each batch of messages: sets the timer when the next deadline came before it (or
   * there was none). A deadline that moved later (a fork streaming is active on every delta) keeps
   * the timer: it fires early, finds nothing due, and is set again for the deadline then.
   */
  arm(): void {
    const next = this.chat.forks.nextDeadline();
    if (next === null) {
      this.stop();
      return;
    }
    if (this.timer && this.timer.at <= next) return;
    this.stop();
    // A deadline beyond what a timer holds fires early too.
    const timer = startTimer(() => {
      this.timer = null;
      const due = this.chat.forks.nextDeadline();
      if (due !== null && due <= Date.now()) this.dispatch({ type: "chat-msg", msg: { type: "clock-tick", now: Date.now() } });
      else this.arm();
    }, next - Date.now());
    timer.unref();
    this.timer = { at: next, timer };
  }

  private stop(): void {
    if (this.timer) clearTimeout(this.timer.timer);
    this.timer = null;
  }
}
