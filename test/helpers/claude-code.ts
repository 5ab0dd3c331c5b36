/**
 * Runs the real Claude Code CLI (npm @anthropic-ai/claude-code, pinned) against the HTTP mock,
 * with a throwaway config dir and the environment `../shared/claude-code.md` gives, so it makes no
 * other connection. No test fakes the CLI: without it they fail, saying why.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./neovim.ts";

export const CLAUDE_BIN = join(ROOT, "node_modules/.bin/claude");

export function requireClaude(): string {
  if (!existsSync(CLAUDE_BIN)) {
    throw new Error(`the Claude Code CLI is not installed at ${CLAUDE_BIN}: \`npm ci\` installs the pinned @anthropic-ai/claude-code`);
  }
  return CLAUDE_BIN;
}

/** The environment for the CLI: a private config dir, the mock, no other traffic. */
export function claudeEnv(configDir: string, mockUrl: string, cwd: string): Record<string, string> {
  mkdirSync(configDir, { recursive: true });
  // Seeded so an interactive start shows no first-run dialogs.
  writeFileSync(
    join(configDir, ".claude.json"),
    JSON.stringify({
      hasCompletedOnboarding: true,
      customApiKeyResponses: { approved: ["test-key"], rejected: [] },
      projects: { [cwd]: { hasTrustDialogAccepted: true } },
    }),
  );
  return {
    CLAUDE_CONFIG_DIR: configDir,
    ANTHROPIC_BASE_URL: mockUrl,
    ANTHROPIC_API_KEY: "test-key",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    CLAUDE_CODE_MAX_RETRIES: "0",
    CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL: "1",
    IS_SANDBOX: "1",
  };
}

/** `claude -p …` in `cwd`; resolves with its output, rejects with its stderr. */
export function runClaude(args: string[], cwd: string, env: Record<string, string>): Promise<string> {
  const bin = requireClaude();
  return new Promise((resolve, reject) => {
    execFile(
      bin,
      args,
      { cwd, env: { PATH: process.env["PATH"] ?? "", HOME: env["CLAUDE_CONFIG_DIR"]!, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`claude ${args.join(" ")} failed: ${error.message}\n${stderr}`));
        else resolve(stdout);
      },
    );
  });
}
