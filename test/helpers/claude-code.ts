/**
 * Runs the real Claude Code CLI (npm @anthropic-ai/claude-code, pinned) against the HTTP mock,
 * with a throwaway config dir and the environment `../shared/claude-code.md` gives, so it makes no
 * other connection. No test fakes the CLI: without it they fail, saying why.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import { ROOT, type Session } from "./neovim.ts";

export const CLAUDE_BIN = join(ROOT, "node_modules/.bin/claude");

export function requireClaude(): string {
  if (!existsSync(CLAUDE_BIN)) {
    throw new Error(`the Claude Code CLI is not installed at ${CLAUDE_BIN}: \`npm ci\` installs the pinned @anthropic-ai/claude-code`);
  }
  return CLAUDE_BIN;
}

/** What the CLI needs to make no connection but the mock's, and to fail at once instead of retrying. */
export const cliEnv = {
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  CLAUDE_CODE_MAX_RETRIES: "0",
  CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL: "1",
};

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
    ...cliEnv,
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

/** Waits until the CLI in terminal buffer `buf` shows its input box (as tine's prompt typer sees it). */
export async function waitForCliPrompt(s: Session, buf: number): Promise<void> {
  await s.until(
    "the CLI's input box",
    () =>
      s.lua<boolean>(
        `return require("tine.terminal").input_box_shown(table.concat(vim.api.nvim_buf_get_lines(..., 0, -1, false), "\\n"))`,
        buf,
      ),
    30_000,
  );
}

/**
 * Types `text` into the CLI in terminal buffer `buf`, and <CR> once the CLI shows it: sent together
 * (or while the CLI is busy) the CLI takes both as a paste and submits nothing. Text not shown
 * after 10 s was lost (keys sent while it was drawing): typed again. Not sooner: a busy CLI that
 * shows the first copy late would take both.
 */
export async function typeInTerminal(s: Session, buf: number, text: string): Promise<void> {
  const send = (keys: string) => s.lua("local buf, keys = ...; vim.fn.chansend(vim.b[buf].tine_job, keys)", buf, keys);
  const head = text.slice(0, 20);
  // How often the text shows (a resumed conversation may hold it already): once more means typed.
  const count = () =>
    s.lua<number>(
      `local buf, head = ...
      local text, n, at = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\\n"), 0, 1
      while true do
        local found = text:find(head, at, true)
        if not found then return n end
        n, at = n + 1, found + 1
      end`,
      buf,
      head,
    );
  const before = await count();
  await send(text);
  let sentAt = Date.now();
  await s.until(
    `the CLI to show "${head}"`,
    async () => {
      const shown = (await count()) > before;
      if (!shown && Date.now() - sentAt > 10_000) {
        await send(text);
        sentAt = Date.now();
      }
      return shown;
    },
    30_000,
  );
  await send("\r");
}

/** Stops every CLI tine runs in a terminal. */
export async function stopTerminals(s: Session): Promise<void> {
  await s.lua("for _, b in ipairs(vim.api.nvim_list_bufs()) do if vim.b[b].tine_job then vim.fn.jobstop(vim.b[b].tine_job) end end");
}

/** Everything a request's messages say, as text: string contents whole, each block's text ("" for a block without). */
export function saidIn(body: Anthropic.Messages.MessageCreateParams | Anthropic.Beta.Messages.MessageCreateParams): string[] {
  return body.messages.flatMap((m) => {
    if (m.content === undefined) throw new Error(`a ${m.role} message without content`);
    return typeof m.content === "string" ? [m.content] : m.content.map((b) => ("text" in b && typeof b.text === "string" ? b.text : ""));
  });
}
