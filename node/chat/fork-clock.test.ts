/** The fork clock on a test clock: one timer for a fork that streams, a tick once its idle period runs out. */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ForkClock } from "./fork-clock.ts";
import { ForkLives } from "./forks.ts";
import type { RootMsg } from "./msgs.ts";

beforeEach(() => void vi.useFakeTimers());
afterEach(() => void vi.useRealTimers());

describe("ForkClock", () => {
  it("a fork active on every delta sets the timer once, and the tick comes when its idle period after the last delta runs out", () => {
    const T = 600_000;
    const forks = new ForkLives();
    const ticks: number[] = [];
    const clock = new ForkClock({ forks }, (msg: RootMsg) => {
      if (msg.type === "chat-msg" && msg.msg.type === "clock-tick") ticks.push(msg.msg.now);
    });
    const t0 = Date.now();
    forks.update({ type: "started", id: "f", parentId: "p", background: false, idleTimeoutMs: T, openedBy: "user", now: t0 });
    // Counted by a wrapper of the fake setTimeout, put back before the fake clock goes: a vi.spyOn
    // of the global would put the fake back after it, for the test files that share this process.
    const fakeSetTimeout = globalThis.setTimeout;
    let timersSet = 0;
    globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => {
      timersSet++;
      return fakeSetTimeout(...args);
    }) as typeof setTimeout;
    try {
      clock.arm();
      // 2,000 deltas 500 ms apart: 1,000 s of streaming, past the idle period.
      for (let i = 0; i < 2000; i++) {
        vi.advanceTimersByTime(500);
        forks.update({ type: "activity", id: "f", by: "agent", now: Date.now() });
        clock.arm();
      }
      const last = Date.now();
      expect(ticks).toEqual([]);
      // Once when armed, and once per idle period the stream outlasted (it fired early, nothing was due).
      expect(timersSet).toBeLessThanOrEqual(3);
      vi.advanceTimersByTime(T - 1);
      expect(ticks).toEqual([]);
      vi.advanceTimersByTime(1);
      expect(ticks).toEqual([last + T]);
    } finally {
      globalThis.setTimeout = fakeSetTimeout;
    }
  });
});
