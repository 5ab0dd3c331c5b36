/**
 * The `Session` the integration tests speak through: what a test can do in, and ask of, a real
 * headless Neovim running tine, each verb a few lines. neovim.ts starts the Neovim and hands its
 * parts to newSession.
 */
import type { ChildProcess } from "node:child_process";
import type { NeovimClient } from "neovim";
import type { NativeMessage } from "../../node/core/native.ts";
import type { ThreadInfo } from "../../node/nvim/lua-shapes.ts";
import type { MockAnthropic } from "../mock-anthropic/server.ts";

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
  /** Polls `check` (each poll is an RPC round trip) until it holds; fails with `what` after `timeoutMs` (10 s). */
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

/** The verbs on a started Neovim: `proc` is its process, `exited` resolves once it has exited. */
export function newSession(nvim: NeovimClient, mock: MockAnthropic, cwd: string, proc: ChildProcess, exited: Promise<void>): Session {
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
    // 10 s: a real agent's first turn (OpenCode loading its provider, Claude Code starting) took
    // up to 4 s on a loaded 2-core machine. Only a failing wait waits this long.
    async until(what, check, timeoutMs = 10_000) {
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
  return session;
}
