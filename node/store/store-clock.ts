/**
 * When the store writes: after each batch of messages (what changed), and again when it next has
 * something due (a retry, streamed text held back). Says once when threads stop being saved,
 * and once when they are saved again.
 */
import type { Changes, Chat } from "../chat/chat.ts";
import type { Persistence } from "./persistence.ts";
import { describeNotices } from "./save-failures.ts";

export type StoreClockSinks = {
  notify: (level: "error" | "info", text: string) => void;
  /** The save-failure marks in the buffers changed. */
  redraw: () => void;
};

export class StoreClock {
  private wake: { at: number; timer: NodeJS.Timeout } | null = null;

  constructor(
    private readonly persistence: Persistence,
    private readonly chat: Chat,
    private readonly sinks: StoreClockSinks,
  ) {}

  /** Writes what changed (`wokenAt`: the timer's moment, when it woke the store). */
  sync(wokenAt: number | null, changes?: Changes): void {
    try {
      this.persistence.sync(this.chat, wokenAt, changes);
    } catch (error) {
      // Failed writes are the store's to handle; anything else is a bug the user should hear of.
      this.sinks.notify("error", `tine: could not store a thread: ${(error as Error).message}`);
    }
    const notices = this.persistence.takeNotices();
    if (notices.length) {
      for (const n of describeNotices(notices)) this.sinks.notify(n.level, n.text);
      this.sinks.redraw();
    }
    this.arm(this.persistence.nextWake());
  }

  private arm(next: number | null): void {
    if (this.wake?.at === next) return;
    if (this.wake) clearTimeout(this.wake.timer);
    this.wake = null;
    if (next === null) return;
    const timer = setTimeout(
      () => {
        this.wake = null;
        this.sync(Date.now());
      },
      Math.max(0, next - Date.now()),
    );
    timer.unref();
    this.wake = { at: next, timer };
  }
}
