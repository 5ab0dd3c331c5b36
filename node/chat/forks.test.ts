import { describe, expect, it } from "vitest";
import { ForkLives } from "./forks.ts";

const MIN = 60_000;
/** A fork started at t=0 with a 10-minute idle timeout; time is given in minutes. */
function lives(background = false) {
  const f = new ForkLives();
  f.update({ type: "started", id: "f", parentId: "p", background, idleTimeoutMs: 10 * MIN, now: 0 });
  return { f, at: (minutes: number) => minutes * MIN };
}

describe("fork idle time-out (fake clock)", () => {
  it("runs out after the idle period: one wrap-up prompt, sent once", () => {
    const { f, at } = lives();
    expect(f.nextDeadline()).toBe(at(10));
    expect(f.update({ type: "tick", now: at(9.9) })).toEqual([]);
    expect(f.update({ type: "tick", now: at(10) })).toEqual([{ type: "wrap-up", id: "f" }]);
    expect(f.update({ type: "tick", now: at(10.5) })).toEqual([]);
    expect(f.get("f")!.promptedAt).toBe(at(10));
  });

  it("is reset by the user's activity and by the agent's", () => {
    const { f, at } = lives();
    f.update({ type: "activity", id: "f", by: "user", now: at(8) });
    expect(f.update({ type: "tick", now: at(10) })).toEqual([]);
    f.update({ type: "activity", id: "f", by: "agent", now: at(17) });
    expect(f.update({ type: "tick", now: at(18) })).toEqual([]);
    expect(f.nextDeadline()).toBe(at(27));
    expect(f.update({ type: "tick", now: at(27) })).toEqual([{ type: "wrap-up", id: "f" }]);
  });

  it("after the prompt, the agent's activity does not clear it: the second period ends in a report", () => {
    const { f, at } = lives();
    f.update({ type: "tick", now: at(10) });
    f.update({ type: "activity", id: "f", by: "agent", now: at(11) });
    f.update({ type: "activity", id: "f", by: "agent", now: at(19) });
    expect(f.update({ type: "tick", now: at(19.9) })).toEqual([]);
    expect(f.update({ type: "tick", now: at(20) })).toEqual([{ type: "ask-summary", id: "f" }]);
    // It reports when the summary's turn ends.
    expect(f.update({ type: "turn-ended", id: "f", now: at(20.2) })).toEqual([{ type: "report", id: "f" }]);
  });

  it("the user's activity clears the prompted state and starts a fresh period", () => {
    const { f, at } = lives();
    f.update({ type: "tick", now: at(10) });
    f.update({ type: "activity", id: "f", by: "user", now: at(15) });
    expect(f.get("f")!.promptedAt).toBe(null);
    expect(f.update({ type: "tick", now: at(20) })).toEqual([]);
    expect(f.update({ type: "tick", now: at(25) })).toEqual([{ type: "wrap-up", id: "f" }]);
  });

  it("an ended fork's clock is gone", () => {
    const { f, at } = lives();
    f.update({ type: "ended", id: "f" });
    expect(f.nextDeadline()).toBe(null);
    expect(f.update({ type: "tick", now: at(100) })).toEqual([]);
  });

  it("a background fork reports when its turn ends; opened, it becomes an ordinary fork", () => {
    const bg = lives(true);
    expect(bg.f.update({ type: "turn-ended", id: "f", now: 1 })).toEqual([{ type: "report", id: "f" }]);
    const opened = lives(true);
    opened.f.update({ type: "opened", id: "f" });
    expect(opened.f.update({ type: "turn-ended", id: "f", now: 1 })).toEqual([]);
    expect(opened.f.nextDeadline()).toBe(opened.at(10));
  });
});
