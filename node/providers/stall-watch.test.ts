/** The stall watch on a test clock: events keep a stream alive, silence past the limit ends it. */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { StallWatch } from "./stall-watch.ts";

beforeEach(() => void vi.useFakeTimers());
afterEach(() => void vi.useRealTimers());

describe("StallWatch", () => {
  it("events closer than the limit keep it quiet for any length of time; the limit of silence after the last stalls it, once", () => {
    const stalls: number[] = [];
    const t0 = Date.now();
    const watch = new StallWatch(1000, () => stalls.push(Date.now() - t0));
    for (let i = 0; i < 50; i++) {
      vi.advanceTimersByTime(900);
      watch.touch();
    }
    expect(stalls).toEqual([]);
    vi.advanceTimersByTime(999);
    expect(stalls).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(stalls).toEqual([50 * 900 + 1000]);
    vi.advanceTimersByTime(10_000);
    expect(stalls).toHaveLength(1);
  });

  it("stopped, it never stalls", () => {
    const onStall = vi.fn();
    new StallWatch(1000, onStall).stop();
    vi.advanceTimersByTime(5000);
    expect(onStall).not.toHaveBeenCalled();
  });
});
