/**
 * Drives a real headless Neovim with tine on its runtimepath, the host built from this checkout,
 * and the SDK pointed at a fresh HTTP mock of the Messages API. One Neovim per test.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { attach, type NeovimClient } from "neovim";
import { quietLogger } from "../../node/nvim/logger.ts";
import type { ThreadInfo } from "../../node/rpc/methods.ts";
import { MockAnthropic } from "../mock-anthropic/server.ts";

export const ROOT = resolve(import.meta.dirname, "../..");

export type NvimBinary = { bin: string; version: string };

/** The Neovims under test, as scripts/test.mjs found them. */
export function nvims(): NvimBinary[] {
  const raw = process.env["TINE_TEST_NVIMS"];
  if (raw) return JSON.parse(raw) as NvimBinary[];
  const bin = process.env["TINE_TEST_NVIM"];
  if (!bin) throw new Error("run integration tests through `npm test` (or set TINE_TEST_NVIM)");
  return [{ bin, version: bin }];
}

export type Session = {
  nvim: NeovimClient;
  mock: MockAnthropic;
  /** The working directory Neovim (and the tools) run in. */
  cwd: string;
  lua<T = unknown>(code: string, ...args: unknown[]): Promise<T>;
  /** Types keys as a user would (mappings apply), and waits until Neovim has handled them. */
  keys(keys: string): Promise<void>;
  cmd(command: string): Promise<void>;
  lines(buf: number): Promise<string[]>;
  threads(): Promise<ThreadInfo[]>;
  /** A thread by id, or by its display number (`tine://N/...`). */
  thread(ref: ThreadRef): Promise<ThreadInfo>;
  /** The thread's messages as the host holds them. */
  messages(ref: ThreadRef): Promise<any[]>;
  display(ref: ThreadRef): Promise<string>;
  /** Polls `check` (each poll is an RPC round trip) until it holds; fails with `what` on timeout. */
  until(what: string, check: () => Promise<boolean>, timeoutMs?: number): Promise<void>;
  waitForDisplay(ref: ThreadRef, text: string | RegExp): Promise<string>;
  waitForStatus(ref: ThreadRef, status: string): Promise<void>;
  /** Messages given to vim.notify, in order. */
  notifications(): Promise<{ msg: string; level: number }[]>;
  /** kill -9 of this Neovim (its host then sees its input end); resolves once it is gone. */
  killNeovim(): Promise<void>;
};

export type { ThreadInfo };

/** A thread id, or a display number. */
export type ThreadRef = string | number;

export type SessionOptions = {
  env?: Record<string, string | undefined>;
  setup?: Record<string, unknown>;
  rplugin?: boolean;
  /** A project folder to reuse (a later session of the same project); the caller removes it. */
  cwd?: string;
};

/** A project folder (with its XDG data inside) for sessions that share it; remove it when done. */
export function projectDir(): string {
  const cwd = mkdtempSync(join(tmpdir(), "tine-test-"));
  writeFileSync(join(cwd, "hello.txt"), "hello from a fixture\n");
  return cwd;
}

export async function withNeovim(binary: NvimBinary, fn: (s: Session) => Promise<void>, options: SessionOptions = {}): Promise<void> {
  const mock = await MockAnthropic.start();
  const cwd = options.cwd ?? projectDir();
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({
    ...process.env,
    ANTHROPIC_API_KEY: "test-key",
    ANTHROPIC_BASE_URL: mock.url,
    XDG_STATE_HOME: join(cwd, ".state"),
    XDG_CONFIG_HOME: join(cwd, ".config"),
    XDG_DATA_HOME: join(cwd, ".data"),
    // Claude Code's sessions too: no test reads or writes the user's own.
    CLAUDE_CONFIG_DIR: join(cwd, ".claude-config"),
    ...options.env,
  }))
    if (v !== undefined) env[k] = v;
  delete env["NVIM"];
  delete env["NVIM_LISTEN_ADDRESS"];
  const setup = JSON.stringify({ retry_delay_ms: 5, ...options.setup });
  const init = [
    `set rtp^=${ROOT}`,
    "set noswapfile shortmess+=I",
    "runtime plugin/tine.lua",
    `lua require("tine").setup(vim.json.decode([[${setup}]]))`,
    // Record notifications so tests can assert on what the user was told.
    `lua _G.tine_notes = {}; vim.notify = function(msg, level) table.insert(_G.tine_notes, { msg = msg, level = level or 2 }) end`,
  ];
  if (options.rplugin) {
    // The classic path: register the plugin with the node remote-plugin host, as a user would.
    const host = [`let g:node_host_prog = '${ROOT}/node_modules/neovim/bin/cli.js'`, `set rtp^=${ROOT}`, "runtime plugin/rplugin.vim"];
    const r = spawnSync(
      binary.bin,
      ["--headless", "-u", "NONE", "-i", "NONE", ...host.flatMap((c) => ["--cmd", c]), "+UpdateRemotePlugins", "+qa"],
      { cwd, env, encoding: "utf8", timeout: 30_000 },
    );
    if (r.status !== 0) throw new Error(`:UpdateRemotePlugins failed: ${r.stderr}`);
    init.unshift(...host, "let g:tine_rplugin = 1");
  }
  const proc: ChildProcess = spawn(
    binary.bin,
    ["--embed", "--headless", "-u", "NONE", "-i", "NONE", "-n", ...init.flatMap((c) => ["--cmd", c])],
    {
      cwd,
      env,
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  let stderr = "";
  proc.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  // Writing to a Neovim that was killed must not fail the run.
  proc.stdin!.on("error", () => {});
  const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  const nvim = attach({ proc, options: { logger: quietLogger } });
  const lua = <T>(code: string, ...args: unknown[]) => nvim.lua(code, args as never) as Promise<T>;
  const session: Session = {
    nvim,
    mock,
    cwd,
    lua,
    async keys(keys) {
      await lua(`vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(..., true, false, true), "mx", false)`, keys);
    },
    async cmd(command) {
      await nvim.command(command);
    },
    lines: (buf) => lua<string[]>("return vim.api.nvim_buf_get_lines(..., 0, -1, false)", buf),
    threads: () => lua<ThreadInfo[]>('return require("tine").threads()'),
    async thread(ref) {
      const t = (await session.threads()).find((t) => (typeof ref === "number" ? t.num === ref : t.id === ref));
      if (!t) throw new Error(`no thread ${ref}`);
      return t;
    },
    messages: async (ref) => lua<any[]>("return require('tine').messages(...)", (await session.thread(ref)).id),
    async display(ref) {
      const t = await session.thread(ref);
      // A thread whose buffers are still being made shows nothing yet.
      return t.bufnr == null ? "" : (await session.lines(t.bufnr)).join("\n");
    },
    async until(what, check, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (await check()) return;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    async waitForDisplay(id, text) {
      let last = "";
      try {
        await session.until(`display of thread ${id} to show ${String(text)}`, async () => {
          // The thread may not exist yet (a fork about to be taken).
          last = await session.display(id).catch(() => "");
          return typeof text === "string" ? last.includes(text) : text.test(last);
        });
      } catch (e) {
        throw new Error(`${(e as Error).message}\n--- display was:\n${last}`);
      }
      return last;
    },
    async waitForStatus(ref, status) {
      await session.until(`thread ${ref} to be ${status}`, async () => (await session.thread(ref).catch(() => null))?.status === status);
    },
    notifications: () => lua("return _G.tine_notes"),
    async killNeovim() {
      proc.kill("SIGKILL");
      await exited;
    },
  };
  try {
    await fn(session);
    const violations = mock.violations();
    if (violations.length) throw new Error(`requests broke the Messages API's rules:\n${violations.join("\n")}`);
  } catch (error) {
    if (stderr) (error as Error).message += `\n--- nvim stderr:\n${stderr}`;
    throw error;
  } finally {
    if (proc.exitCode === null && proc.signalCode === null) {
      await nvim.lua('pcall(function() require("tine.host").stop() end)', []).catch(() => {});
    }
    proc.kill("SIGKILL");
    await mock.close();
    // A process the test started may still be writing there for a moment (a CLI in a terminal).
    if (!options.cwd) rmSync(cwd, { recursive: true, force: true, maxRetries: 10 });
  }
}
