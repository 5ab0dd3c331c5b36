/**
 * The boundary between Lua and the host: every method the Lua side may request, by name, with
 * its arguments (checked here before any handler runs) and its result type. The shapes Lua
 * receives are defined here, once, or, those a room below rpc/ builds (a thread as threads()
 * shows it, a send's answer…), in node/nvim/lua-shapes.ts; lua/tine/types.lua mirrors them for
 * the user's editor.
 *
 * Over 300 lines: it is the one table of every method Lua may request (a few lines each) and
 * of the shapes it answers with; split, the boundary would have no single place.
 */

import type { AgentHealth } from "../acp/threads.ts";
import type { AgentSetting } from "../chat/runner.ts";
import type { MentionCompletion } from "../context/complete.ts";
import type { FoundFile } from "../context/instructions.ts";
import {
  type Arg,
  type ArgValues,
  arg,
  boolean,
  bufnr,
  commandOrFalse,
  idOrIds,
  index,
  listOf,
  number,
  oneOf,
  optional,
  options,
  snapshotId,
  string,
  table,
  threadRef,
} from "../core/checks.ts";
import type { ThreadId } from "../core/ids.ts";
import type { NativeMessage } from "../core/native.ts";
import type { ComparedFork } from "../fork/compare.ts";
import type { ElicitReply, ShownElicitation } from "../mcp/elicitations.ts";
import type { McpServerReport, McpToolReport } from "../mcp/registry.ts";
import type { Lineage, ListShown, MirroredThreads, SendResult, ThreadInfo } from "../nvim/lua-shapes.ts";
import type { ModelChoices } from "../providers/models.ts";
import type { ReviewedFile } from "../review/review-files.ts";
import type { HunkUndone } from "../review/reviews.ts";
import type { ListedHunk } from "../review/turn-hunks.ts";
import type { SandboxAvailability } from "../sandbox/bwrap.ts";
import type { UsageInfo } from "../usage/book.ts";
import type { TypedHelp } from "../view/input-help.ts";
import type { WorktreeReport } from "../worktree/health.ts";

// ---- what Lua receives ----

/** A thread's buffers, once made. */
export type ThreadBuffers = { id: ThreadId; display: number; input: number };

/**
 * A thread made active; `read_only_by`: the pid of the Neovim that writes it, when not this one;
 * `interrupted`: it was read from disk just now, cut off when tine stopped (the user is offered to go on).
 */
export type OpenedThread = ThreadBuffers & { read_only_by: number | null; interrupted?: boolean };

/** A message waiting in a thread's queue (`item`: its number there). */
export type QueuedAt = { item: number; text: string };

/** A thread written as a Claude Code session, and the `[claude]` thread that continues it. */
export type ExportedSession = ThreadBuffers & { session_id: string; path: string };

/** One of this project's Claude Code sessions (`:Tine import`). */
/** `label`: its last prompt, message count and short id, as the picker shows it. */
export type ClaudeSession = { id: string; path: string; modified: number; label: string };

/** What is at a display line: the message (0-based) and, when on one, its block; on a change list, the file (null: the list's summary). */
/** `role`: whose the message is ("user": a fork at it answers it again). */
export type MessageAt = { message: number; role: "user" | "assistant"; block: number | null; file?: string | null };

/** A file a turn changed, or a restore would change. */
export type ChangedFile = { path: string; status: "added" | "modified" | "deleted"; added: number | null; removed: number | null };

/** What a restore to a message would change; `changed_since`: files changed since the thread's last snapshot (left alone unless overwritten). */
export type RestorePlanInfo = { root: string; files: ChangedFile[]; changed_since: string[] };

/** How a restore (or its undo) went: the files written (or removed), those left alone, and those skipped (under a link out of the project, and such links). */
export type RestoreResult = { written: string[]; left: string[]; skipped: string[] };

/** What a graft did (`graft`): the file, the hunk (nil: the whole file), how many conflicts it left marked. */
export type GraftResult = { path: string; hunk?: number; conflicts: number };

/** A hunk of a fork's diff of a file (`graft_hunks`; hunk n is the n-th): its header (`@@ -3,2 +3,4 @@`), its lines added and removed. */
export type GraftHunk = { header: string; added: number; removed: number };

/** A changed file under the cursor (<CR> on a change list): its path and its text before the turn (null: it did not exist). */
export type FileBefore = { path: string; before: string | null };

/** What `:checkhealth tine` reports of code snapshots. */
export type SnapshotHealthInfo = { on: true; root: string; dir: string; bytes: number } | { on: false; why: string };

/** A fork taken at a message. */
export type ForkAt = { id: ThreadId; title: string };

/** What is on a line of the thread list. */
export type ListItem =
  | { type: "thread"; id: ThreadId }
  | { type: "waiting-fork"; sourceId: ThreadId }
  | { type: "ended-fork"; id: ThreadId }
  | null;

/**
 * The files two branches' latest snapshots differ in (`:Tine diff`): + lines only the first has,
 * − lines only the second has; `a`/`b` are the snapshots, for `branch_file`. Off: nothing is said.
 */
export type BranchCodeInfo =
  | { kind: "off" }
  | { kind: "missing"; why: string }
  | { kind: "files"; a: string; b: string; files: ChangedFile[] };

/** Two branches from their common ancestor (`:Tine diff`): one side per branch, after `common` shared messages, and their code. */
export type BranchDiff = { common: number; sides: { title: string; lines: string[] }[]; code: BranchCodeInfo };

/** One file as two snapshots hold it (null: that one holds none). */
export type FileInBoth = { a: string | null; b: string | null };

/** What `:checkhealth tine` reports of the store. */
export type StoreHealth = { persist: boolean; dir: string | null; threads: number; unreadable: string[]; problems: string[] };

// ---- the table ----

/** The identity on a method's result: it names the result's type in the table (the host makes the value; nothing checks it). */
export type Result<R> = (value: R) => R;
export const returns =
  <R>(): Result<R> =>
  (value) =>
    value;

/**
 * A method: its arguments, checked at the boundary, and its result type. `api`: the function of
 * `require("tine")` that makes the request, where its name differs; errors name that function.
 */
export type Method = { readonly args: readonly Arg<unknown>[]; readonly result: (value: never) => unknown; readonly api?: string };

const id = arg("id", string);

/** `fork(id, prompt, opts)`: where and how the fork is taken. */
const forkOptions = options({
  at_message: index,
  prefill: string,
  wait: boolean,
  background: boolean,
  restore_code: boolean,
  restore_overwrite: boolean,
  worktree: boolean,
  unattended: boolean,
});

/** `fanout(id, prompt, opts)`: how many forks, on which models, checked by what (node/fork/fanout.ts). */
const fanoutOptions = options({ n: number, models: listOf(string, "a list of model names"), check: commandOrFalse });

/** `restore(id, at_message, opts)`: `confirm` is the Lua side's (it asks first); `overwrite` writes files changed since too. */
const restoreOptions = options({ confirm: boolean, overwrite: boolean });

export const METHODS = {
  /** The host starts: the merged options of lua/tine/config.lua (checked by parseConfig). */
  init: { args: [arg("config", table)], result: returns<true>() },
  ping: { args: [], result: returns<true>() },

  // -- threads --
  /** Lua keeps the list and the host pushes it from then on (view/threads-mirror.ts). */
  threads: { args: [], result: returns<MirroredThreads>() },
  /** Threads for `:Tine resume`, most recent first. */
  recent: { args: [], result: returns<ThreadInfo[]>() },
  /** The active thread's id. */
  current: { args: [], result: returns<ThreadId | null>() },
  messages: { args: [id], result: returns<NativeMessage[]>() },
  /** Its own requests' usage and cost (a stored thread is loaded to count it); null when tine makes none for it. */
  usage: { args: [id], result: returns<UsageInfo | null>() },
  lineage: { args: [id], result: returns<Lineage | null>() },
  new_thread: { args: [], result: returns<ThreadBuffers>() },
  /** The active thread's buffers (a first thread is made when there is none). */
  active_buffers: { args: [], result: returns<ThreadBuffers & { interrupted?: boolean }>() },
  /** Makes a thread the active one, loading it when it is stored. */
  select: { args: [id], result: returns<OpenedThread>() },
  open: { args: [id], result: returns<OpenedThread>() },
  rename: { args: [id, arg("title", string)], result: returns<true>() },
  delete: { args: [id], result: returns<true>() },
  /** A discarded or reported fork back in the tree. */
  restore: { args: [id], result: returns<true>() },
  /** `@compact`, `:Tine compact`, `C`: a new thread under `id` (its id) with a summary of it up to `at_message` (all of it without). */
  compact: { args: [id, arg("instructions", string), arg("at_message", optional(index))], result: returns<ThreadId>() },
  model_choices: { args: [id], result: returns<ModelChoices>() },
  /** `:Tine model` in a thread whose program offers settings (an ACP agent's): them, or null when it offers none. */
  agent_settings: { args: [id], result: returns<readonly AgentSetting[] | null>() },
  choose_agent_setting: { args: [id, arg("setting", string), arg("value", string)], result: returns<true>() },
  /** `:Tine model`: the thread's own model and thinking effort from its next request on. */
  choose_model: {
    args: [id, arg("model", string), arg("effort", oneOf("setup", "none", "low", "medium", "high"))],
    result: returns<true>(),
    api: "model",
  },

  // -- a turn --
  /** `approved`: the targets of files outside the project the user said yes to (SendResult.outside). */
  send: { args: [id, arg("text", string), arg("approved", optional(listOf(string, "a list of paths")))], result: returns<SendResult>() },
  retry: { args: [id], result: returns<true>() },
  abort: { args: [id], result: returns<true>() },
  /** A key on a display line: toggle a detail, or answer the tool call awaiting approval (`reason`: why it is denied, for the model). */
  line_action: {
    args: [id, arg("line", index), arg("action", oneOf("toggle", "approve", "approve_always", "deny")), arg("reason", optional(string))],
    result: returns<true>(),
  },
  /** The message queued while the agent works that a display line (0-based) shows: its number and text. */
  queued_at: { args: [id, arg("line", index)], result: returns<QueuedAt | null>() },
  /** What the key on a waiting merge's display line (0-based) sends for the user: the agent asked to resolve its conflicts; null on any other line. */
  resolve_merge_at: { args: [id, arg("line", index)], result: returns<string | null>() },
  /** A queued message cancelled, or taken back to be edited (refused once it was sent). */
  unqueue: { args: [id, arg("item", index)], result: returns<true>() },

  // -- forks --
  /** The new fork's id; null when the call cancelled a fork waiting on the same source instead. */
  fork: { args: [id, arg("prompt", string), arg("opts", forkOptions)], result: returns<ThreadId | null>() },
  /** One prompt to N forks at once, each in a worktree of its own: their ids. */
  fanout: { args: [id, arg("prompt", string), arg("opts", fanoutOptions)], result: returns<ThreadId[]>() },
  /** A fan-out's forks side by side: the forks given, or those of the fan-out one thread (its source or a fork) stands for. */
  compare: { args: [arg("ids", idOrIds)], result: returns<ComparedFork[]>() },
  cancel_waiting_fork: { args: [id], result: returns<boolean>() },
  fork_discard: { args: [id], result: returns<true>(), api: "discard" },
  /** The parent's id. */
  fork_promote: { args: [id], result: returns<ThreadId>(), api: "promote" },
  /** Without text, the fork is asked for its summary first. */
  fork_report: { args: [id, arg("text", optional(string))], result: returns<true>(), api: "report" },
  forks_at: { args: [id, arg("line", index)], result: returns<ForkAt[]>() },
  /** `e` on a message the user wrote: a fork at the message before it, that message's text in its input. */
  edit_message: { args: [id, arg("message", index)], result: returns<ThreadId>() },
  /** `L`: labels the thread (`message` nil) or one of its messages; "" removes the label. */
  label: { args: [id, arg("message", optional(index)), arg("text", string)], result: returns<true>() },
  /** The label `label` would replace ("" for none). */
  label_at: { args: [id, arg("message", optional(index))], result: returns<string>() },
  /** Branches by thread id or display number; `b` defaults to `a`'s parent. */
  diff: { args: [arg("a", threadRef), arg("b", optional(threadRef))], result: returns<BranchDiff>() },
  /** A file of `:Tine diff`'s list, as branch a's snapshot and branch b's hold it. */
  branch_file: { args: [arg("a", snapshotId), arg("b", snapshotId), arg("path", string)], result: returns<FileInBoth>() },

  // -- code snapshots --
  /** What restoring the files to message `at_message`'s snapshot would change (a safety snapshot is taken). */
  restore_plan: { args: [id, arg("at_message", index)], result: returns<RestorePlanInfo>() },
  /** Restores the files to message `at_message`'s snapshot; `overwrite`: files changed since are written too. */
  restore_code: { args: [id, arg("at_message", index), arg("opts", restoreOptions)], result: returns<RestoreResult>(), api: "restore" },
  /** Puts back the files the last restore wrote, as they were. */
  restore_undo: { args: [], result: returns<RestoreResult>() },
  /** The changed file at a display line of a change list, and its text before the turn. */
  file_before: { args: [id, arg("line", index)], result: returns<FileBefore | null>() },
  snapshot_health: { args: [], result: returns<SnapshotHealthInfo>() },
  /** The worktrees tine made for this project (`:checkhealth tine`): threads, changed files, size; none named: left over. */
  worktree_health: { args: [], result: returns<WorktreeReport>() },
  /** Whether an unattended fork's sandbox (bubblewrap) can start here; if not, why and what fixes it (`:checkhealth tine`). */
  sandbox_status: { args: [], result: returns<SandboxAvailability>() },
  /** Whether message `at_message`'s files differ from the thread's latest snapshot (a fork there may restore them). */
  code_differs: { args: [id, arg("at_message", index)], result: returns<boolean>() },
  /** `:Tine merge done[!]`: conflicted merges of worktree forks accepted, their worktrees removed (refused while markers are left, unless `force`); how many. */
  merge_done: { args: [arg("force", boolean)], result: returns<number>() },
  /** A live worktree fork's change to `path` (whole, or hunk `hunk` of its diff, from 1) brought into its parent's files, three-way; the fork goes on. */
  graft: { args: [arg("from_id", threadRef), arg("path", string), arg("hunk", optional(index))], result: returns<GraftResult>() },
  /** The hunks of fork `id`'s diff of `path` since its fork point, numbered as `graft` numbers them (the compare view lists them). */
  graft_hunks: { args: [id, arg("path", string)], result: returns<GraftHunk[]>() },
  /** The hunks of thread `id`'s turn at `at_message` (nil: its last turn that changed files), each with its review state (node/review/). */
  review_hunks: { args: [arg("id", threadRef), arg("at_message", optional(index))], result: returns<ListedHunk[]>(), api: "hunks" },
  /** Hunk `index` (from 1) of `path` in the turn (nil `at_message`: the last turn that changed `path`) marked reviewed. */
  keep_hunk: {
    args: [arg("id", threadRef), arg("path", string), arg("index", index), arg("at_message", optional(index))],
    result: returns<true>(),
  },
  /** That hunk only taken back in the working file, three-way against what changed since (conflicts marked, in the quickfix list). */
  reject_hunk: {
    args: [arg("id", threadRef), arg("path", string), arg("index", index), arg("at_message", optional(index))],
    result: returns<HunkUndone>(),
  },
  /** A comment on that hunk, told to the model with the thread's next message. */
  comment_hunk: {
    args: [arg("id", threadRef), arg("path", string), arg("index", index), arg("text", string), arg("at_message", optional(index))],
    result: returns<true>(),
  },

  /** File `path` of thread `id`'s turn (`:Tine review`); no `id`: the live threads' turns with hunks of it pending (the signs). */
  review_file: {
    args: [arg("path", string), arg("id", optional(threadRef)), arg("at_message", optional(index))],
    result: returns<ReviewedFile[]>(),
  },

  // -- buffers and lines --
  /** Another thread took the windows of thread `id`, whose input is blank: an empty thread goes. */
  thread_left: { args: [id], result: returns<true>() },
  /** The user deleted a thread's buffers (:bd, :bw); `draft`: the unsent input, kept for the next ones. */
  buffers_gone: { args: [id, arg("draft", listOf(string, "a list of lines"))], result: returns<true>() },
  thread_for_buffer: { args: [arg("buf", bufnr)], result: returns<ThreadId | null>() },
  locate: { args: [id, arg("line", index)], result: returns<MessageAt | null>() },
  /** The display line of a message, when the thread has a display. */
  locate_message: { args: [id, arg("message", index)], result: returns<number | null>() },
  display_text: { args: [id], result: returns<string[]>() },

  // -- the thread list --
  /** The list's buffer; `all`: every project's threads. */
  thread_list: { args: [arg("all", boolean)], result: returns<ListShown>() },
  /** `/` in the list: only threads whose title or label holds `text` (and their ancestors); "" shows all. */
  list_filter: { args: [arg("text", string)], result: returns<ListShown>() },
  /** `zc`, `zo`, `za` on a list line (0-based). */
  list_fold: { args: [arg("line", index), arg("how", oneOf("close", "open", "toggle"))], result: returns<ListShown>() },
  thread_at_list_line: { args: [arg("line", index)], result: returns<ThreadId | null>() },
  list_item: { args: [arg("line", index)], result: returns<ListItem>() },
  store_health: { args: [], result: returns<StoreHealth>() },
  /** The instruction files a thread starting now would read, as they are (`:checkhealth tine`). */
  instructions_health: { args: [], result: returns<FoundFile[]>() },

  // -- MCP servers --
  /** Every MCP server with its state (`:Tine mcp`, `:checkhealth tine`); none is started by asking. */
  mcp_servers: { args: [], result: returns<McpServerReport[]>() },
  /** The project's MCP files there but not read (mcp_project_files is off), each in a sentence saying how to use it. */
  mcp_unread: { args: [], result: returns<string[]>() },
  /** `:Tine mcp`: a server restarted or stopped, in the background (the host tells how a restart went); the server as it is now. */
  mcp_server: {
    args: [arg("name", string), arg("action", oneOf("restart", "stop", "sign-in", "sign-out"))],
    result: returns<McpServerReport>(),
  },
  /** `:Tine mcp`: a server's tools, started first when it is not running (asked without waiting: a start may take mcp_timeout). */
  mcp_tools: { args: [arg("name", string)], result: returns<McpToolReport[]>() },
  /** The oldest question an MCP server asks thread `id`'s user (lua/tine/elicit.lua shows it), or null. */
  elicitation_next: { args: [id], result: returns<ShownElicitation | null>() },
  /** The user's answer to question `key`: accepted (its `values` as entered, checked against the form), declined or cancelled. */
  elicitation_answer: {
    args: [id, arg("key", string), arg("action", oneOf("accept", "decline", "cancel")), arg("values", optional(table))],
    result: returns<ElicitReply>(),
  },

  // -- Claude Code --
  /** `args`: the text after `:Tine claude`, split as a shell would. */
  new_claude: { args: [arg("args", string)], result: returns<ThreadBuffers>(), api: "claude" },
  terminal_exited: { args: [id], result: returns<true>() },
  claude_sessions: { args: [], result: returns<ClaudeSession[]>() },
  /** A session by id or transcript path. */
  import_claude: { args: [arg("session", string)], result: returns<ThreadBuffers>() },
  export_claude: { args: [id], result: returns<ExportedSession>() },

  // -- ACP agents --
  /** `:Tine agent <name>`: a thread run by the ACP agent setup names `name`. */
  new_agent: { args: [arg("name", string)], result: returns<ThreadBuffers>(), api: "agent" },
  /** `:checkhealth tine`: each configured ACP agent started once, with what it answered to initialize. */
  agents_health: { args: [], result: returns<AgentHealth[]>() },

  // -- completion of mentions in an input (lua/tine/complete.lua) --
  /**
   * `before`: the line up to the cursor; `message_start`: it is the message's first line (its
   * `@`-commands are offered too, and after `/` the commands of the agent running the thread of
   * input buffer `buf`); null when nothing is being typed there that completes.
   */
  complete_mention: {
    args: [arg("before", string), arg("message_start", optional(boolean)), arg("buf", optional(bufnr))],
    result: returns<MentionCompletion | null>(),
  },
  /** Insert mode began in an input: the lists completion reads are made again if old. */
  complete_prepare: { args: [], result: returns<true>() },
  /** `g?` in an input: the @-commands and mentions, with what each does. */
  input_help: { args: [], result: returns<TypedHelp[]>() },
} as const satisfies Record<string, Method>;

export type Methods = typeof METHODS;
export type MethodName = keyof Methods;

/** A table's arguments, as the handlers receive them (checked). */
export type ArgsIn<T extends Record<string, Method>, M extends keyof T> = ArgValues<T[M]["args"]>;
/** A table's results, as Lua receives them. */
export type ResultIn<T extends Record<string, Method>, M extends keyof T> = T[M]["result"] extends Result<infer R> ? R : never;

export type ArgsOf<M extends MethodName> = ArgsIn<Methods, M>;
export type ResultOf<M extends MethodName> = ResultIn<Methods, M>;
