import { afterEach, describe, expect, it } from "vitest";
import { MAX_TIMER_MS, startTimer, timerDelay } from "./timer.ts";

const warnings: Error[] = [];
const onWarning = (w: Error) => void warnings.push(w);

afterEach(() => {
  process.off("warning", onWarning);
  warnings.length = 0;
});

describe("timers with configured or model-given delays", () => {
  it("a delay is clamped to what setTimeout holds; NaN and negatives are 0", () => {
    expect(timerDelay(3e9)).toBe(MAX_TIMER_MS);
    expect(timerDelay(Number.POSITIVE_INFINITY)).toBe(MAX_TIMER_MS);
    expect(timerDelay(1500)).toBe(1500);
    expect(timerDelay(-5)).toBe(0);
    expect(timerDelay(Number.NaN)).toBe(0);
  });

  it("a timer of 3e9 ms neither fires at once nor warns (setTimeout alone fires after 1 ms)", async () => {
    process.on("warning", onWarning);
    let fired = false;
    const timer = startTimer(() => (fired = true), 3e9);
    // A timer set after it, due in 20 ms, fires first: the long one was not turned into 1 ms.
    await new Promise<void>((resolve) => startTimer(resolve, 20));
    clearTimeout(timer);
    expect(fired).toBe(false);
    expect(warnings.map((w) => w.name)).not.toContain("TimeoutOverflowWarning");
  });
});
