/** The registry runs only what the user configured: a stored header never names the program. */

import { describe, expect, it } from "vitest";
import { headerLine } from "../../test/helpers/stored-header.ts";
import { History } from "../core/history.ts";
import { decode } from "../store/records.ts";
import { runnerRegistry } from "./runners.ts";

const registry = runnerRegistry({
  api: {
    config: {
      model: "m",
      maxTokens: 1,
      thinking: null,
      effort: null,
      webSearch: false,
      system: "",
      tools: [],
      thinkingBudgets: { low: 1024, medium: 2048, high: 4096 },
    },
    connection: { client: null, streamRetries: 0, retryDelayMs: 0 },
    instructions: () => null,
  },
  claudeCode: {
    command: ["/opt/claude", "--verbose"],
    cwd: "/nonexistent",
    worktrees: "/nonexistent/worktrees",
    transcriptPath: () => "/nonexistent",
  },
});

const surfaceOf = (header: Record<string, unknown>) => {
  const d = decode(headerLine(header));
  if (!d.ok || d.record.t !== "header") throw new Error(d.ok ? "not a header" : d.error);
  const surface = registry.reopen(d.record.runner, History.empty, () => {}).surface;
  if (surface.type !== "terminal") throw new Error("not a terminal");
  return surface;
};
const argvOf = (header: Record<string, unknown>) => surfaceOf(header).argv;

describe("runner registry", () => {
  it("a stored Claude Code thread written by an old version runs the configured command, never the stored program", () => {
    const argv = argvOf({ claude: { command: ["sh", "script"], sessionId: "11111111-1111-4111-8111-111111111111" } });
    expect(argv.slice(0, 2)).toEqual(["/opt/claude", "--verbose"]);
    expect(argv).not.toContain("sh");
    expect(argv.slice(-2)).toEqual(["--resume", "11111111-1111-4111-8111-111111111111"]);
  });

  it("a stored Claude Code thread resumes with the configured command and the user's arguments", () => {
    const argv = argvOf({ runner: { kind: "claude-code", args: ["--model", "opus"], sessionId: "22222222-2222-4222-8222-222222222222" } });
    expect(argv).toEqual(["/opt/claude", "--verbose", "--model", "opus", "--resume", "22222222-2222-4222-8222-222222222222"]);
  });

  it("a stored Claude Code thread forked into a worktree resumes there; without a folder, or in one tine did not make, in the project's", () => {
    const sessionId = "33333333-3333-4333-8333-333333333333";
    const worktree = "/nonexistent/worktrees/3-abc";
    expect(surfaceOf({ runner: { kind: "claude-code", args: [], sessionId, cwd: worktree } }).cwd).toBe(worktree);
    for (const cwd of ["/wt/3-abc", "/nonexistent/worktrees/3-abc/sub", "/nonexistent/worktrees/../evil", "/"])
      expect(surfaceOf({ runner: { kind: "claude-code", args: [], sessionId, cwd } }).cwd).toBe("/nonexistent");
    expect(surfaceOf({ runner: { kind: "claude-code", args: [], sessionId } }).cwd).toBe("/nonexistent");
    expect(decode(headerLine({ runner: { kind: "claude-code", args: [], sessionId, cwd: "wt" } }))).toMatchObject({ ok: false });
  });

  it("a stored Claude Code thread replays only arguments that cannot run anything: its runs and its forks get none of the others", () => {
    const sessionId = "44444444-4444-4444-8444-444444444444";
    const args = ["--settings", "/x/s.json", "--dangerously-skip-permissions", "--model", "opus", "--mcp-config", "/x/m.json"];
    const d = decode(headerLine({ runner: { kind: "claude-code", args, sessionId } }));
    if (!d.ok || d.record.t !== "header") throw new Error(d.ok ? "not a header" : d.error);
    const runner = registry.reopen(d.record.runner, History.empty, () => {});
    const argvOf = (r: typeof runner) => (r.surface.type === "terminal" ? r.surface.argv : []);
    expect(argvOf(runner)).toEqual(["/opt/claude", "--verbose", "--model", "opus", "--resume", sessionId]);
    // What a fork of it stores and runs: the replayed arguments only.
    expect(runner.spec).toMatchObject({ args: ["--model", "opus"] });
    const fork = runner.clone(() => {});
    expect(argvOf(fork).slice(0, 4)).toEqual(["/opt/claude", "--verbose", "--model", "opus"]);
    expect(argvOf(fork)).not.toContain("--settings");
    expect(fork.spec).toMatchObject({ args: ["--model", "opus"] });
  });
});
