import { describe, expect, it } from "vitest";
import { type ForkAbilities, type ForkPoint, forksAtMessage, forkWay } from "./fork-way.ts";

const CLAUDE: ForkAbilities = { fork: true, atMessage: true, sourceLive: true };
const TIP_ONLY: ForkAbilities = { fork: true, atMessage: false, sourceLive: true };
const NO_FORK: ForkAbilities = { fork: false, atMessage: false, sourceLive: true };
const at = (point: Partial<ForkPoint>): ForkPoint => ({ messageId: "msg_1", afterReply: true, latest: false, ...point });

describe("forkWay: the best fork the agent allows", () => {
  it("rung 1: a native fork at the point's message where the agent takes a fork point", () => {
    expect(forkWay(CLAUDE, at({}))).toEqual({ way: "at-message", messageId: "msg_1" });
    expect(forkWay(CLAUDE, at({ latest: true }))).toEqual({ way: "at-message", messageId: "msg_1" });
  });

  it("rung 2: a fork of the whole session when the point is its latest message (or no id names it)", () => {
    expect(forkWay(TIP_ONLY, at({ latest: true }))).toEqual({ way: "whole-session" });
    expect(forkWay(CLAUDE, at({ messageId: null, latest: true }))).toEqual({ way: "whole-session" });
  });

  it("rung 3: seeded, saying why, for an earlier point of a tip-only agent, an agent that cannot fork, or a session gone", () => {
    expect(forkWay(TIP_ONLY, at({}))).toEqual({ way: "seeded", why: "the agent forks only at its latest message" });
    expect(forkWay(CLAUDE, at({ messageId: null }))).toEqual({
      way: "seeded",
      why: "the agent gave no id for the reply at the fork point",
    });
    expect(forkWay(NO_FORK, at({ latest: true }))).toEqual({ way: "seeded", why: "the agent cannot fork sessions" });
    expect(forkWay({ ...CLAUDE, sourceLive: false }, at({ latest: true }))).toEqual({
      way: "seeded",
      why: "its session can no longer be taken up",
    });
  });

  it("a point before any reply: a new session, whatever the agent can", () => {
    for (const can of [CLAUDE, TIP_ONLY, NO_FORK, { ...CLAUDE, sourceLive: false }])
      expect(forkWay(can, at({ afterReply: false, messageId: null }))).toEqual({ way: "new-session" });
  });

  it("a fork point is sent only to agents known to take it, and only when they fork", () => {
    expect(forksAtMessage({ fork: true, id: "@agentclientprotocol/claude-agent-acp" })).toBe(true);
    expect(forksAtMessage({ fork: false, id: "@agentclientprotocol/claude-agent-acp" })).toBe(false);
    expect(forksAtMessage({ fork: true, id: "opencode" })).toBe(false);
    expect(forksAtMessage({ fork: true, id: null })).toBe(false);
  });
});
