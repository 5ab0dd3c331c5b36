/**
 * The boundary between the host and Lua, the other way round from node/rpc/methods.ts: every
 * function of lua/tine/host_api.lua the host calls, by name, with its arguments and what it
 * answers. `NvimBridge.call` takes its names, arguments and results from here, so a wrong name or
 * argument fails `tsc`; what Neovim answers is checked here (`LUA_RESULTS`) before a caller reads it.
 * node/nvim/lua-api.test.ts keeps this table and host_api.lua's functions the same list.
 */
import { bufnr, type Check, record, say } from "../core/checks.ts";
import type { ThreadId } from "../core/ids.ts";
import type { WinbarPart } from "../usage/winbar.ts";
import type { Edit, ForkOpen, Mark, MirroredThreads } from "./lua-shapes.ts";

/** A thread's two buffers (a terminal thread's one buffer is both). */
export type ThreadBufnrs = { display: number; input: number };

/** A buffer's edits as `apply` makes them: marks and the spinner left as they are when null; `since: false` stops it. */
export type ApplyPayload = { edits: Edit[]; marks: Mark[] | null; busy: { since: number | false } | null };

export type QuickfixItem = { filename: string; lnum: number; text: string };

/** Each function's arguments (in Lua's order) and what the host reads of its answer. */
export type LuaApi = {
  apply: { args: [buf: number, payload: ApplyPayload]; result: undefined };
  notify: { args: [message: string, level: "info" | "error"]; result: undefined };
  /** A remote MCP server's sign-in page, shown through the user's opener (lua/tine/mcp.lua). */
  open_url: { args: [server: string, url: string]; result: undefined };
  offer_compact: { args: [id: ThreadId, text: string]; result: undefined };
  create_thread_buffers: { args: [id: ThreadId, num: number, title: string, draft: string[]]; result: ThreadBufnrs };
  create_terminal_thread: {
    args: [id: ThreadId, num: number, title: string, argv: readonly string[], prompt: string, cwd: string];
    result: ThreadBufnrs;
  };
  set_pending: { args: [display: number, input: number, pending: boolean, title: string, tell: boolean]; result: undefined };
  set_failed: { args: [input: number, failed: boolean]; result: undefined };
  /** An MCP server's question waits for thread `id`'s user (lua/tine/elicit.lua). */
  elicitation_waiting: { args: [id: string, title: string]; result: undefined };
  file_written: { args: [path: string, by: string]; result: undefined };
  set_quickfix: { args: [title: string, items: readonly QuickfixItem[]]; result: undefined };
  set_title: { args: [display: number, num: number, title: string]; result: undefined };
  set_winbar: { args: [display: number, parts: readonly WinbarPart[]]; result: undefined };
  close_thread_buffers: { args: [display: number, input: number]; result: undefined };
  /** -1 for a parent buffer: the fork has no parent shown. */
  fork_ended: { args: [id: ThreadId, display: number, input: number, parentDisplay: number, parentInput: number]; result: undefined };
  /**
   * -1 for the source display: the fork's source is not shown. `take_cursor` false: a fork made
   * later than asked, which leaves the cursor where the user is (and says it opened).
   */
  open_fork: {
    args: [display: number, input: number, sourceDisplay: number, mode: ForkOpen, opened: { prefill: string; take_cursor: boolean }];
    result: undefined;
  };
  set_working: { args: [working: string[]]; result: undefined };
  threads_pushed: { args: [mirrored: MirroredThreads]; result: undefined };
  /** A file changed in a fan-out fork's worktree while it was at rest: a :Tine compare view showing it asks again. */
  fork_files_changed: { args: [id: string]; result: undefined };
  list_buffer: { args: []; result: number };
  /** A hunk of file `path` (absolute) was reviewed or made pending again: its signs are drawn again. */
  review_changed: { args: [path: string]; result: undefined };
};

export type LuaFn = keyof LuaApi;

/**
 * host_api.lua's functions the host does not call by name: `batch` runs the table's calls together
 * (bridge.ts `together`); `stop_spinners` is Lua's own, when the host is gone (buffers.lua).
 */
export const HOST_API_BESIDES = ["batch", "stop_spinners"] as const;

/** An answer the host does not read (most functions answer `true`, `apply` nil). */
const ignored = (): undefined => undefined;

/** A check of an answer: its value, or an error naming the function. */
function checked<T>(check: Check<T>): (value: unknown, fn: string) => T {
  return (value, fn) => {
    const result = check(value, `the answer of ${fn}`);
    if (result.ok) return result.value;
    throw new Error(`${fn}: ${say(result.problem)}`);
  };
}

const threadBufnrs = checked(record({ display: bufnr, input: bufnr }));

/** How each function's answer is read (and, for the names, the table at run time). */
export const LUA_RESULTS: { readonly [F in LuaFn]: (value: unknown, fn: F) => LuaApi[F]["result"] } = {
  apply: ignored,
  notify: ignored,
  open_url: ignored,
  offer_compact: ignored,
  create_thread_buffers: threadBufnrs,
  create_terminal_thread: threadBufnrs,
  set_pending: ignored,
  set_failed: ignored,
  elicitation_waiting: ignored,
  file_written: ignored,
  set_quickfix: ignored,
  set_title: ignored,
  set_winbar: ignored,
  close_thread_buffers: ignored,
  fork_ended: ignored,
  open_fork: ignored,
  set_working: ignored,
  threads_pushed: ignored,
  fork_files_changed: ignored,
  list_buffer: checked(bufnr),
  review_changed: ignored,
};
