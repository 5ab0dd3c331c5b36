import { describe, expect, it } from "vitest";
import { baseCommand, forkCommand, resumeCommand, sessionIdOf, splitArgs, withSessionId } from "./command.ts";

const MINE = "33333333-3333-4333-8333-333333333333";

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
    expect(withSessionId(["claude", "--session-id", MINE], "NEW")).toEqual({
      argv: ["claude", "--session-id", MINE],
      sessionId: MINE,
    });
    expect(sessionIdOf(["claude", `--session-id=${MINE}`])).toBe(MINE);
    expect(sessionIdOf(["claude", "-c"])).toBe(null);
  });

  it("refuses a --session-id that is not a UUID, as the CLI does (it would name a file outside the CLI's folder)", () => {
    expect(() => withSessionId(["claude", "--session-id", "../../x"], "NEW")).toThrow(
      'tine: --session-id "../../x" is not a UUID (Claude Code takes only UUIDs)',
    );
    expect(() => sessionIdOf(["claude", "--session-id=../x"])).toThrow(/not a UUID/);
    expect(() => sessionIdOf(["claude", "--session-id"])).toThrow(/"" is not a UUID/);
  });
});
