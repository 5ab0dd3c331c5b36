import { describe, expect, it } from "vitest";
import { actorOf, ForkLives } from "./forks.ts";

const MIN = 60_000;
/** A fork started at t=0 with a 10-minute idle timeout; time is given in minutes. */
function lives(background = false) {
  const f = new ForkLives();
  f.update({ type: "started", id: "f", parentId: "p", background, idleTimeoutMs: 10 * MIN, openedBy: "user", now: 0 });
  return { f, at: (minutes: number) => minutes * MIN };
}

describe("fork idle time-out (fake clock)", () => {
  it("runs out after the idle period: one wrap-up prompt, sent once", () => {
    const { f, at } = lives();
    expect(f.nextDeadline()).toBe(at(10));
    expect(f.update({ type: "tick", now: at(9.9) })).toEqual([]);
    expect(f.update({ type: "tick", now: at(10) })).toEqual([{ type: "wrap-up", id: "f" }]);
    f.update({ type: "wrap-up-sent", id: "f", now: at(10) });
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
    f.update({ type: "wrap-up-sent", id: "f", now: at(10) });
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
    f.update({ type: "wrap-up-sent", id: "f", now: at(10) });
    f.update({ type: "activity", id: "f", by: "user", now: at(15) });
    expect(f.get("f")!.promptedAt).toBe(null);
    expect(f.update({ type: "tick", now: at(20) })).toEqual([]);
    expect(f.update({ type: "tick", now: at(25) })).toEqual([{ type: "wrap-up", id: "f" }]);
  });

  it("a wrap-up that could not be sent (the fork waits on an approval) does not count: no second period, it is tried again a period later", () => {
    const { f, at } = lives();
    expect(f.update({ type: "tick", now: at(10) })).toEqual([{ type: "wrap-up", id: "f" }]);
    // Not sent (no wrap-up-sent): the fork is not prompted, and no tick spins on a past deadline.
    expect(f.get("f")!.promptedAt).toBe(null);
    expect(f.nextDeadline()).toBe(at(20));
    expect(f.update({ type: "tick", now: at(20) })).toEqual([{ type: "wrap-up", id: "f" }]);
    expect(f.update({ type: "tick", now: at(30) })).toEqual([{ type: "wrap-up", id: "f" }]);
  });

  it("the user's activity calls off a report the idle clock started, not one the user asked for", () => {
    const idle = lives();
    idle.f.update({ type: "tick", now: idle.at(10) });
    idle.f.update({ type: "wrap-up-sent", id: "f", now: idle.at(10) });
    expect(idle.f.update({ type: "tick", now: idle.at(20) })).toEqual([{ type: "ask-summary", id: "f" }]);
    // The user approves a tool in the fork while it writes its summary: it stays.
    idle.f.update({ type: "activity", id: "f", by: "user", now: idle.at(20.5) });
    expect(idle.f.update({ type: "turn-ended", id: "f", now: idle.at(21) })).toEqual([]);
    expect(idle.f.nextDeadline()).toBe(idle.at(30.5));

    const asked = lives();
    asked.f.update({ type: "report-requested", id: "f", now: asked.at(1) });
    asked.f.update({ type: "activity", id: "f", by: "user", now: asked.at(1.5) });
    expect(asked.f.update({ type: "turn-ended", id: "f", now: asked.at(2) })).toEqual([{ type: "report", id: "f" }]);
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

describe("who is active in a fork", () => {
  it("approving, denying, aborting, retrying, a toggled detail, a rename and a send are the user's; the stream and a tool's end the agent's; tine's own prompts nobody's", () => {
    expect(actorOf({ type: "tool-decision", toolUseId: "t", approved: true })).toBe("user");
    expect(actorOf({ type: "tool-decision", toolUseId: "t", approved: false })).toBe("user");
    expect(actorOf({ type: "abort" })).toBe("user");
    expect(actorOf({ type: "retry" })).toBe("user");
    expect(actorOf({ type: "toggle-detail", key: "1:0" })).toBe("user");
    expect(actorOf({ type: "rename", title: "x" })).toBe("user");
    expect(actorOf({ type: "send", text: "go on" })).toBe("user");
    expect(actorOf({ type: "agent", msg: { type: "stream-updated" } })).toBe("agent");
    expect(actorOf({ type: "tool-done", toolUseId: "t", outcome: { text: "", isError: false } })).toBe("agent");
    expect(actorOf({ type: "send", text: "[tine] wrap up", auto: true })).toBe(null);
    expect(actorOf({ type: "queue-report", report: { from: "a", text: "b" } })).toBe(null);
  });
});

describe("forks the agent opened", () => {
  it("count toward their parent's limit until the user sends in them", () => {
    const f = new ForkLives();
    const start = (id: string, openedBy: "user" | "agent") =>
      f.update({ type: "started", id, parentId: "p", background: false, idleTimeoutMs: MIN, openedBy, now: 0 });
    start("a", "agent");
    start("b", "agent");
    start("u", "user");
    expect(f.agentOpenedOf("p")).toBe(2);
    expect(f.agentOpenedOf("a")).toBe(0);
    expect(f.agentForkBar("p", 2)).toEqual({ type: "limit", open: 2, limit: 2 });
    expect(f.agentForkBar("p", 3)).toBe(null);
    expect(f.agentForkBar("a", 3)).toEqual({ type: "agent-opened" });
    expect(f.agentForkBar("u", 3)).toBe(null);
    f.update({ type: "user-sent", id: "a", now: 1 });
    expect(f.get("a")!.agentOpened).toBe(false);
    expect(f.agentForkBar("a", 3)).toBe(null);
    expect(f.agentOpenedOf("p")).toBe(1);
    f.update({ type: "ended", id: "b" });
    expect(f.agentOpenedOf("p")).toBe(0);
  });
});

describe("the next deadline", () => {
  it("is the earliest of every live fork's, through many changes, without ever walking them (checked against a walk)", () => {
    const lives = new ForkLives();
    const T = 600_000;
    let now = 0;
    const walk = () => {
      let next: number | null = null;
      for (const f of lives.all()) {
        if (f.reportWhenDone) continue;
        const at = (f.promptedAt ?? f.lastActivity) + f.idleTimeoutMs;
        if (next === null || at < next) next = at;
      }
      return next;
    };
    for (let i = 0; i < 40; i++)
      lives.update({ type: "started", id: `f${i}`, parentId: "p", background: i % 7 === 0, idleTimeoutMs: T + i, openedBy: "user", now });
    for (let step = 0; step < 5000; step++) {
      now += 37;
      const id = `f${(step * 13) % 40}`;
      if (step % 997 === 0) lives.update({ type: "ended", id });
      else if (step % 101 === 0) lives.update({ type: "report-requested", id, now });
      else if (step % 89 === 0) lives.update({ type: "opened", id });
      else lives.update({ type: "activity", id, by: step % 3 ? "agent" : "user", now });
      expect(lives.nextDeadline()).toBe(walk());
    }
  });
});
