import { describe, expect, it } from "vitest";
import { baseCommand, forkCommand, resumeCommand, sessionIdOf, splitArgs, withSessionId } from "./command.ts";

describe("Claude Code commands", () => {
  it("splits a command line as a shell does, keeping quoted spaces", () => {
    expect(splitArgs(`claude --append-system-prompt "be brief, please" --model 'opus 5' a\\ b`)).toEqual([
      "claude",
      "--append-system-prompt",
      "be brief, please",
      "--model",
      "opus 5",
      "a b",
    ]);
    expect(() => splitArgs(`claude "open`)).toThrow(/unterminated/);
  });

  it("a fork drops --resume X, -c, --session-id Y and --fork-session (with their values) and resumes the source as a fork", () => {
    const argv = splitArgs(`claude --resume X -c --model "opus 5" --session-id Y --fork-session --append-system-prompt "two words"`);
    expect(forkCommand(argv, "SRC", "NEW")).toEqual([
      "claude",
      "--model",
      "opus 5",
      "--append-system-prompt",
      "two words",
      "--resume",
      "SRC",
      "--fork-session",
      "--session-id",
      "NEW",
    ]);
  });

  it("handles -r with and without a value, --flag=value, and leaves other flags alone", () => {
    expect(baseCommand(["claude", "-r", "--verbose"])).toEqual(["claude", "--verbose"]);
    expect(baseCommand(["claude", "-r", "abc", "--verbose"])).toEqual(["claude", "--verbose"]);
    expect(baseCommand(["claude", "--session-id=abc", "--resume=def", "-p", "hi"])).toEqual(["claude", "-p", "hi"]);
    expect(resumeCommand(["claude", "-c"], "ID")).toEqual(["claude", "--resume", "ID"]);
  });

  it("injects --session-id unless the command names one, and reads it back", () => {
    expect(withSessionId(["claude"], "NEW")).toEqual({ argv: ["claude", "--session-id", "NEW"], sessionId: "NEW" });
    expect(withSessionId(["claude", "--session-id", "MINE"], "NEW")).toEqual({
      argv: ["claude", "--session-id", "MINE"],
      sessionId: "MINE",
    });
    expect(sessionIdOf(["claude", "--session-id=Z"])).toBe("Z");
    expect(sessionIdOf(["claude", "-c"])).toBe(null);
  });
});
