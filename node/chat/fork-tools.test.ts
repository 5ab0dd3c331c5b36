import { describe, expect, it } from "vitest";
import { MAX_AGENT_IDLE_MINUTES } from "../tools/fork-specs.ts";
import { type ForkToolCall, parseForkTool } from "./fork-tools.ts";

/** enter_fork's call for `input` (it is never refused). */
function enterFork(input: unknown): ForkToolCall {
  const parsed = parseForkTool("enter_fork", input);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.call;
}

describe("enter_fork's input from the model", () => {
  it("an idle_timeout past a day is bounded to a day, and the model is told", () => {
    expect(enterFork({ topic: "t", idle_timeout: 1e6 })).toEqual({
      tool: "enter_fork",
      topic: "t",
      idleTimeoutMs: MAX_AGENT_IDLE_MINUTES * 60_000,
      note: " idle_timeout is at most 1440 minutes (a day): the fork's is 1440.",
    });
  });

  it("a sane idle_timeout is taken as it is; a wrong one is left out and said so", () => {
    expect(enterFork({ idle_timeout: 2.5 })).toEqual({ tool: "enter_fork", topic: "", idleTimeoutMs: 150_000, note: "" });
    for (const wrong of [-1, 0, Number.NaN, "10"]) {
      expect(enterFork({ idle_timeout: wrong })).toEqual({
        tool: "enter_fork",
        topic: "",
        note: expect.stringMatching(/^ idle_timeout must be a number of minutes above 0 \(got .*\): the fork has the user's default\.$/),
      });
    }
  });
});
