/**
 * Drives a real headless Neovim with tine on its runtimepath, the host built from this checkout,
 * and the SDK pointed at a fresh HTTP mock of the Messages API. One Neovim per test.
 *
 * Over 300 lines: it is the one `Session` the integration tests speak through, each verb a few
 * lines, so that tests repeat none of them.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { attach, type NeovimClient } from "neovim";
import { afterEach } from "vitest";

import type { NativeMessage } from "../../node/core/native.ts";
import { quietLogger } from "../../node/nvim/logger.ts";
import type { ThreadInfo } from "../../node/nvim/lua-shapes.ts";
import { MockAnthropic } from "../mock-anthropic/server.ts";
import { hostsFile, recordHosts, sessionEnded, TERMINAL_PIDS } from "./processes.ts";

export type { ThreadInfo } from "../../node/nvim/lua-shapes.ts";

export { alive, hostExited } from "./processes.ts";

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
  /** Replaces all of `buf`'s lines, as a user's typing would (an unsent draft in an input). */
  setLines(buf: number, lines: string[]): Promise<void>;
  /** The buffer of the current window. */
  currentBuf(): Promise<number>;
  /** Makes the first window that shows `buf` the current one. */
  focus(buf: number): Promise<void>;
  /** The names of all buffers, listed or not. */
  bufferNames(): Promise<string[]>;
  /** The names of the buffers in the current tab's windows (every tab's with `allTabs`), in window order. */
  windows(options?: { allTabs?: boolean }): Promise<string[]>;
  threads(): Promise<ThreadInfo[]>;
  /** A thread by id, or by its display number (`tine #N ...`). */
  thread(ref: ThreadRef): Promise<ThreadInfo>;
  /** `require('tine').open(id)`: shows the thread (loading a stored one) in the sidebar. */
  open(id: string): Promise<void>;
  /** The thread's messages as the host holds them. */
  messages(ref: ThreadRef): Promise<NativeMessage[]>;
  display(ref: ThreadRef): Promise<string>;
  /** In thread `ref`'s display window, puts the cursor on the first line starting with `text`, then types `keys` (if any). */
  onDisplayLine(ref: ThreadRef, text: string, keys?: string): Promise<void>;
  /** The spinner marks (namespace `tine.busy`) in `buf`: 1 while its thread works, 0 when it stops. */
  spinners(buf: number): Promise<number>;
  /** `:Tine threads` (`:Tine threads!` with `all`); returns the list's buffer, which then has the focus. */
  openList(all?: boolean): Promise<number>;
  /** The thread list's lines, as shown now ([] without a list buffer). */
  listLines(): Promise<string[]>;
  /** The thread list's lines joined with newlines. */
  listText(): Promise<string>;
  /** Waits until a line of the thread list contains `text`; returns its number (1-based). */
  listLine(text: string, timeoutMs?: number): Promise<number>;
  /** In the thread list, puts the cursor on `line` (a number, or the first line containing that text, waited for) and types `keys`. */
  onListLine(line: number | string, keys: string): Promise<void>;
  /** From now on every vim.ui.input is answered with `answer` (its prompt is kept for `asked`). */
  answerInput(answer: string): Promise<void>;
  /** From now on every vim.ui.select picks its `n`th item, 1-based (the items, formatted, are kept for `asked`). */
  pick(n: number): Promise<void>;
  /** From now on every vim.fn.confirm answers with choice `n`, 1-based. */
  answerConfirm(n: number): Promise<void>;
  /** What the stubs above were last asked: vim.ui.input's prompt, vim.ui.select's items as shown (null if never). */
  asked(): Promise<{ prompt: string | null; items: string[] | null }>;
  /** Polls `check` (each poll is an RPC round trip) until it holds; fails with `what` on timeout. */
  until(what: string, check: () => Promise<boolean>, timeoutMs?: number): Promise<void>;
  waitForDisplay(ref: ThreadRef, text: string | RegExp): Promise<string>;
  waitForStatus(ref: ThreadRef, status: string): Promise<void>;
  /** Waits until the host lists `count` threads. */
  waitForThreadCount(count: number, what?: string): Promise<void>;
  /** Waits until thread `id` is no longer listed (a fork that ended, a deleted thread). */
  waitForGone(id: string, what?: string): Promise<void>;
  /** Messages given to vim.notify, in order. */
  notifications(): Promise<{ msg: string; level: number }[]>;
  /** The last message given to vim.notify ("" if none). */
  lastNotification(): Promise<string>;
  /**
   * Waits for a notification matching `pattern` and returns it. The host's notices reach
   * vim.notify through vim.schedule, so they may land just after the command that caused them.
   */
  notified(pattern: RegExp): Promise<string>;
  /** The process id of the tine host. */
  hostPid(): Promise<number>;
  /** Runs `:checkhealth tine` and returns its report. */
  health(): Promise<string>;
  /** kill -9 of this Neovim (its host then sees its input end); resolves once it is gone. */
  killNeovim(): Promise<void>;
  /** Resolves once this Neovim has exited by itself (a quit); fails after `timeoutMs`. */
  waitForExit(timeoutMs?: number): Promise<void>;
  /** Whether this Neovim is still running. */
  running(): boolean;
};

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

/** Removes a test's folder, once nothing the test started works there any more (its Neovims, their hosts and terminals). */
function removeFolder(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Project folders for the tests of one file, each removed after its test: call at the file's top. */
export function tempProjects(): () => string {
  let dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs) removeFolder(d);
    dirs = [];
  });
  return () => {
    const d = projectDir();
    dirs.push(d);
    return d;
  };
}

/** Runs `fn` with a fresh project folder (for sessions that share it), removed afterwards. */
export async function withProject(fn: (cwd: string) => Promise<void>): Promise<void> {
  const cwd = projectDir();
  try {
    await fn(cwd);
  } finally {
    removeFolder(cwd);
  }
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
  // auto_title off unless a test turns it on: its request would come after every first reply.
  const setup = JSON.stringify({ retry_delay_ms: 5, auto_title: false, ...options.setup });
  const hosts = hostsFile(cwd, randomUUID());
  const init = [
    `set rtp^=${ROOT}`,
    "set noswapfile shortmess+=I",
    "runtime plugin/tine.lua",
    `lua require("tine").setup(vim.json.decode([[${setup}]]))`,
    // Record notifications so tests can assert on what the user was told.
    `lua _G.tine_notes = {}; vim.notify = function(msg, level) table.insert(_G.tine_notes, { msg = msg, level = level or 2 }) end`,
    recordHosts(hosts),
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
      // `:Tine` shows a thread before the host has started (lua/tine/placeholder.lua): a command
      // is done, for a test, once the host has taken that thread over.
      await session.until("the host to take the first thread over", () => lua<boolean>("return not require('tine.placeholder').waiting()"));
    },
    lines: (buf) => lua<string[]>("return vim.api.nvim_buf_get_lines(..., 0, -1, false)", buf),
    async setLines(buf, lines) {
      await lua("local buf, lines = ...; vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)", buf, lines);
    },
    currentBuf: () => lua<number>("return vim.api.nvim_get_current_buf()"),
    async focus(buf) {
      await lua("vim.api.nvim_set_current_win(vim.fn.win_findbuf(...)[1])", buf);
    },
    bufferNames: () => lua<string[]>("return vim.tbl_map(vim.api.nvim_buf_get_name, vim.api.nvim_list_bufs())"),
    windows: (options = {}) =>
      lua<string[]>(
        `local wins = ... and vim.api.nvim_list_wins() or vim.api.nvim_tabpage_list_wins(0)
        return vim.tbl_map(function(w) return vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(w)) end, wins)`,
        options.allTabs ?? false,
      ),
    threads: () => lua<ThreadInfo[]>('return require("tine").threads()'),
    async thread(ref) {
      const t = (await session.threads()).find((t) => (typeof ref === "number" ? t.num === ref : t.id === ref));
      if (!t) throw new Error(`no thread ${ref}`);
      return t;
    },
    async open(id) {
      await lua("require('tine').open(...)", id);
    },
    messages: async (ref) => lua<NativeMessage[]>("return require('tine').messages(...)", (await session.thread(ref)).id),
    async display(ref) {
      const t = await session.thread(ref);
      // A thread whose buffers are still being made shows nothing yet.
      return t.bufnr == null ? "" : (await session.lines(t.bufnr)).join("\n");
    },
    async onDisplayLine(ref, text, keys) {
      const t = await session.thread(ref);
      const line = (await session.lines(t.bufnr!)).findIndex((l) => l.startsWith(text));
      if (line < 0) throw new Error(`no line of thread ${ref}'s display starts with ${text}`);
      await lua(
        "local buf, line = ...; vim.api.nvim_set_current_win(vim.fn.win_findbuf(buf)[1]); vim.api.nvim_win_set_cursor(0, { line + 1, 0 })",
        t.bufnr,
        line,
      );
      if (keys) await session.keys(keys);
    },
    spinners: (buf) =>
      lua<number>(`return #vim.api.nvim_buf_get_extmarks(..., vim.api.nvim_get_namespaces()["tine.busy"], 0, -1, {})`, buf),
    async openList(all = false) {
      // The list opens once the host answers (it is asked without waiting).
      const shown = await lua<number>("return require('tine.list').shown");
      await session.cmd(all ? "Tine threads!" : "Tine threads");
      await session.until("the thread list to open", async () => (await lua<number>("return require('tine.list').shown")) > shown);
      return session.currentBuf();
    },
    listLines: () =>
      lua<string[]>(`local buf = vim.fn.bufnr("tine://threads")
        return buf == -1 and {} or vim.api.nvim_buf_get_lines(buf, 0, -1, false)`),
    listText: async () => (await session.listLines()).join("\n"),
    async listLine(text, timeoutMs) {
      let lines: string[] = [];
      await session.until(
        `a list line with ${text}`,
        async () => {
          lines = await session.listLines();
          return lines.some((l) => l.includes(text));
        },
        timeoutMs,
      );
      return lines.findIndex((l) => l.includes(text)) + 1;
    },
    async onListLine(line, keys) {
      const at = typeof line === "number" ? line : await session.listLine(line);
      await lua(
        `local buf = vim.fn.bufnr("tine://threads")
        if vim.api.nvim_get_current_buf() ~= buf then vim.api.nvim_set_current_win(vim.fn.win_findbuf(buf)[1]) end
        vim.api.nvim_win_set_cursor(0, { ..., 0 })`,
        at,
      );
      await session.keys(keys);
    },
    async answerInput(answer) {
      await lua("local answer = ...; vim.ui.input = function(opts, cb) _G.tine_asked_prompt = (opts or {}).prompt; cb(answer) end", answer);
    },
    async pick(n) {
      await lua(
        `local n = ...
        vim.ui.select = function(items, opts, cb)
          _G.tine_asked_items = vim.tbl_map((opts or {}).format_item or tostring, items)
          cb(items[n])
        end`,
        n,
      );
    },
    async answerConfirm(n) {
      await lua("local n = ...; vim.fn.confirm = function() return n end", n);
    },
    asked: () => lua("return { prompt = _G.tine_asked_prompt or vim.NIL, items = _G.tine_asked_items or vim.NIL }"),
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
    async waitForThreadCount(count, what = `${count} threads`) {
      await session.until(what, async () => (await session.threads()).length === count);
    },
    async waitForGone(id, what = `thread ${id} to go`) {
      await session.until(what, async () => !(await session.threads()).some((t) => t.id === id));
    },
    notifications: () => lua("return _G.tine_notes"),
    lastNotification: async () => (await session.notifications()).at(-1)?.msg ?? "",
    async notified(pattern) {
      let found: string | undefined;
      await session.until(`a notification matching ${pattern}`, async () => {
        found = (await session.notifications()).find((n) => pattern.test(n.msg))?.msg;
        return found !== undefined;
      });
      return found!;
    },
    hostPid: () => lua<number>("return require('tine.host').pid()"),
    async health() {
      await session.cmd("checkhealth tine");
      return (await session.lines(0)).join("\n");
    },
    async killNeovim() {
      proc.kill("SIGKILL");
      await exited;
    },
    async waitForExit(timeoutMs = 5000) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("timed out waiting for Neovim to exit")), timeoutMs);
      });
      await Promise.race([exited, late]).finally(() => clearTimeout(timer));
    },
    running: () => proc.exitCode === null && proc.signalCode === null,
  };
  let failure: { error: unknown } | null = null;
  try {
    await fn(session);
    const violations = mock.violations();
    if (violations.length) throw new Error(`requests broke the Messages API's rules:\n${violations.join("\n")}`);
  } catch (error) {
    if (stderr) (error as Error).message += `\n--- nvim stderr:\n${stderr}`;
    failure = { error };
  }
  let terminals: number[] = [];
  if (proc.exitCode === null && proc.signalCode === null) {
    await nvim.lua('pcall(function() require("tine.host").stop() end)', []).catch(() => {});
    terminals = ((await nvim.lua(TERMINAL_PIDS, []).catch(() => [])) as number[]) ?? [];
  }
  proc.kill("SIGKILL");
  await mock.close();
  // What works in the project outlives Neovim: it is ended, or waited for, before the folder goes.
  const stuck = await sessionEnded(hosts, terminals);
  if (!options.cwd && !stuck) removeFolder(cwd);
  if (failure) throw failure.error;
  if (stuck) throw stuck;
}
