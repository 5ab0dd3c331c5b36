/**
 * The shapes Lua receives that rooms below rpc/ build, so those rooms import them from here and
 * not from the boundary tables above them: a thread as the list and `threads()` show it, where a
 * fork branched, the list as drawn, what a send answers (answers to Lua's requests,
 * rpc/methods.ts, which defines the others); a buffer's edits and marks, how a fork opens, and
 * the threads pushed for `threads()` (arguments of the host's calls, lua-api.ts).
 * lua/tine/types.lua mirrors them.
 */
import type { Relation } from "../chat/tree.ts";
import type { ThreadId } from "../core/ids.ts";
import type { UsageInfo } from "../usage/book.ts";

// ---- answers to Lua's requests (rpc/methods.ts) ----

/** One thread of this project, live or stored (`require("tine").threads()`). */
export type ThreadInfo = {
  id: ThreadId;
  /** The short number in buffer names (`tine #3 …`). */
  num: number;
  parent_id: ThreadId | null;
  title: string;
  /** The thread's status (idle, streaming, waiting, error, busy, running, exited), or "stored" ("interrupted": stored, cut off when tine stopped). */
  status: string;
  stop_reason: string | null;
  messages: number;
  /** When it last changed (ms since the epoch); null before it is first stored. */
  updated: number | null;
  /** Its display and input buffers; null while it has none (stored, a background fork). */
  bufnr: number | null;
  input_bufnr: number | null;
  /** Paths (from the project's top folder) its turns changed, as their change lists show them; [] for a stored thread. */
  changed_files: string[];
  /** Its own requests' usage (node/usage/book.ts); null for a stored thread not opened, or one tine makes no requests for. */
  usage: UsageInfo | null;
  /** The model its next request names (its own from `:Tine model`, else setup's); null for a stored thread or one whose program chooses (Claude Code). */
  model: string | null;
  /** The folder its tools work in (the project's, or a worktree fork's worktree); null for a stored thread. */
  cwd: string | null;
  /** Its tools run in the sandbox, and nothing inside it waits for approval (an unattended fork, or a fork sharing its worktree). */
  unattended: boolean;
  /** One of a fan-out's forks: its place in it and its check's verdict (`⑂×3 2/3 check ✓`, as the list shows it); else null. */
  fanout: string | null;
};

/**
 * Where a fork branched from its parent; `parent_gone`: the parent was deleted (or ended) since;
 * `relation`: a fork, or a thread of its own made from its source (a hand-off, a compaction).
 */
export type Lineage = { parent_id: ThreadId; at_message: number; parent_gone: boolean; relation: Relation };

/** The list as drawn: its buffer, the line (0-based) the cursor goes to (null: leave it), and the filter shown. */
export type ListShown = { bufnr: number; line: number | null; filter: string };

/**
 * After a send: the failed turn's text a new message replaced ("" when none), for the input; or,
 * with `outside`, nothing was sent: those files, named alone, lead outside the project (`target`:
 * where), and the send waits for the user's yes (asked in Neovim, then sent again with `approved`).
 */
export type SendResult = { replaced: string; outside?: { path: string; target: string }[] };

// ---- arguments of the host's calls in Lua (lua-api.ts) ----

/** [start, end, replacement] in buffer lines, 0-based, end exclusive. */
export type Edit = [number, number, string[]];

/** A line's virtual text. */
export type Mark = { line: number; text: string };

export type ForkOpen = "split" | "vsplit" | "tab" | "replace";

/** `order`: every thread's id, in the list's order, when it changed (always in a whole list); `set`: entries that changed. */
export type MirroredThreads = { seq: number; set: ThreadInfo[]; order: ThreadId[] | null };
