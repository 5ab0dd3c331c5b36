import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CallClocks } from "./call-clocks.ts";

describe("CallClocks", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("a call runs out after its time", () => {
    const clocks = new CallClocks();
    const out = vi.fn();
    clocks.start(1000, out);
    vi.advanceTimersByTime(999);
    expect(out).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(out).toHaveBeenCalledOnce();
  });

  it("stands still while a question is open, and runs on from where it stood", () => {
    const clocks = new CallClocks();
    const out = vi.fn();
    clocks.start(1000, out);
    vi.advanceTimersByTime(600);
    clocks.questionOpened();
    vi.advanceTimersByTime(60_000);
    expect(out).not.toHaveBeenCalled();
    clocks.questionClosed();
    vi.advanceTimersByTime(399);
    expect(out).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(out).toHaveBeenCalledOnce();
  });

  it("two questions open: the clocks run again only once both are closed; a call started meanwhile waits too", () => {
    const clocks = new CallClocks();
    const first = vi.fn();
    const second = vi.fn();
    clocks.start(100, first);
    clocks.questionOpened();
    clocks.questionOpened();
    clocks.start(100, second);
    clocks.questionClosed();
    vi.advanceTimersByTime(10_000);
    expect(first).not.toHaveBeenCalled();
    expect(second).not.toHaveBeenCalled();
    clocks.questionClosed();
    vi.advanceTimersByTime(100);
    expect(first).toHaveBeenCalledOnce();
    expect(second).toHaveBeenCalledOnce();
    // A close too many is ignored: nothing runs twice.
    clocks.questionClosed();
    vi.advanceTimersByTime(1000);
    expect(first).toHaveBeenCalledOnce();
  });

  it("a stopped clock never runs out, even after a question", () => {
    const clocks = new CallClocks();
    const out = vi.fn();
    const clock = clocks.start(100, out);
    clocks.questionOpened();
    clock.stop();
    clocks.questionClosed();
    vi.advanceTimersByTime(1000);
    expect(out).not.toHaveBeenCalled();
  });
});
