import { describe, expect, it } from "vitest";
import { claudeCodeKind } from "./kind.ts";
import { droppedNotice, replayable } from "./stored-args.ts";

const SESSION = "11111111-1111-4111-8111-111111111111";

describe("stored Claude Code arguments", () => {
  it("replays the model, effort, verbosity and what only takes abilities away; drops what loads files, runs code or widens permissions", () => {
    const args = [
      "--settings",
      "/x/settings.json",
      "--model",
      "opus",
      "--dangerously-skip-permissions",
      "--mcp-config",
      "/x/mcp.json",
      "--fallback-model=sonnet",
      "--effort",
      "high",
      "--verbose",
      "--disallowedTools",
      "Bash",
      "Edit",
      "--permission-mode",
      "plan",
      "--append-system-prompt",
      "be evil",
      "--add-dir",
      "/",
      "--plugin-dir",
      "/x/plugin",
    ];
    expect(replayable(args)).toEqual({
      replayed: ["--model", "opus", "--fallback-model=sonnet", "--effort", "high", "--verbose", "--disallowedTools", "Bash", "Edit"].concat(
        ["--permission-mode", "plan"],
      ),
      dropped: [
        "--settings",
        "/x/settings.json",
        "--dangerously-skip-permissions",
        "--mcp-config",
        "/x/mcp.json",
        "--append-system-prompt",
        "be evil",
        "--add-dir",
        "/",
        "--plugin-dir",
        "/x/plugin",
      ],
    });
  });

  it("a permission mode that acts without asking is dropped, in either form", () => {
    expect(replayable(["--permission-mode", "bypassPermissions", "--permission-mode=acceptEdits", "--permission-mode=manual"])).toEqual({
      replayed: ["--permission-mode=manual"],
      dropped: ["--permission-mode", "bypassPermissions", "--permission-mode=acceptEdits"],
    });
  });

  it("a value that looks like a flag drops its pair: the CLI would take it as the value, never replayed as a flag", () => {
    expect(replayable(["--model", "--settings=/x/s.json"])).toEqual({ replayed: [], dropped: ["--model", "--settings=/x/s.json"] });
    expect(replayable(["--disallowedTools", "--mcp-config", "/x/m.json"])).toEqual({
      replayed: [],
      dropped: ["--disallowedTools", "--mcp-config", "/x/m.json"],
    });
    expect(replayable(["--model"])).toEqual({ replayed: [], dropped: ["--model"] });
  });

  it("a prompt or a subcommand is dropped; after --flag=value the CLI takes no more values, so neither does this", () => {
    expect(replayable(["purge", "/"])).toEqual({ replayed: [], dropped: ["purge", "/"] });
    expect(replayable(["--disallowedTools=Bash", "install"])).toEqual({ replayed: ["--disallowedTools=Bash"], dropped: ["install"] });
    expect(replayable(["--verbose=yes"])).toEqual({ replayed: [], dropped: ["--verbose=yes"] });
  });

  it("session flags are tine's to give: neither replayed nor named", () => {
    expect(replayable(["--session-id", SESSION, "-r", "--fork-session", "-c", "--model", "opus"])).toEqual({
      replayed: ["--model", "opus"],
      dropped: [],
    });
  });

  it("the notice names each dropped argument (odd ones quoted, long ones cut) and what is replayed", () => {
    const notice = droppedNotice("T", SESSION, ["--settings", "/x/s.json", "--append-system-prompt", `line\nand ${"x".repeat(200)}`]);
    expect(notice).toBe(
      `tine: T: Claude Code runs without its stored arguments --settings /x/s.json --append-system-prompt "line\\nand ${"x".repeat(68)}...": ` +
        "tine replays only --model, --fallback-model, --effort, --verbose, --disallowedTools, --permission-mode plan|manual from a stored thread, " +
        "as others can run code, load files or widen permissions (:help tine-claude-stored-args; its session: 11111111-1111-4111-8111-111111111111)",
    );
  });

  it("its runner kind tells of a stored thread that dropped something, and only then", () => {
    const kind = claudeCodeKind({ command: ["claude"], cwd: "/p", transcriptPath: () => "/nonexistent", folderRefused: () => null });
    const spec = { kind: "claude-code", args: ["--settings", "/x/s.json"], sessionId: SESSION } as const;
    expect(kind.storedNotices(spec, "A")).toEqual([
      { key: "args", text: expect.stringMatching(/^tine: A: Claude Code runs without its stored arguments --settings \/x\/s\.json: /) },
    ]);
    expect(kind.storedNotices({ ...spec, args: ["--model", "opus"] }, "B")).toEqual([]);
  });
});
