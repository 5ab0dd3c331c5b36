/** The typed messages that drive every change, dispatched through the one loop (host/services.ts). */
import type { SendContext } from "../context/follow.ts";
import type { AgentMsg } from "../core/agent.ts";
import type { CodeMark, CodePurpose, ThreadMark } from "../core/code-marks.ts";
import type { CodeNote } from "../core/graft-note.ts";
import type { History } from "../core/history.ts";
import type { ThreadId } from "../core/ids.ts";
import type { ModelChoice } from "../core/model-choice.ts";
import type { RunnerSpec } from "../core/runner-spec.ts";
import type { SideRequest } from "../core/side-request.ts";
import type { ToolOutcome } from "../tools/run.ts";
import type { StoredUsage } from "../usage/stored.ts";
import type { Labels, LabelTarget } from "./labels.ts";
import type { RunnerStart } from "./runner.ts";
import type { Relation } from "./tree.ts";

export type ThreadMsg =
  /**
   * `auto`: sent by tine itself (a wrap-up or summary prompt), not typed by the user. `context`:
   * what the text's mentions and the files followed resolved to (context/expand.ts), made blocks
   * of the same user message when the send reaches the thread. While the agent works a send waits
   * in the thread's queue (send-queue.ts); `now` (`@now`): it goes with the next tool results
   * instead of at the end of the turn.
   */
  | { type: "send"; text: string; auto?: boolean; now?: boolean; context?: SendContext }
  /** A queued send cancelled, or taken back into the input to be edited. */
  | { type: "unqueue"; item: number }
  | { type: "queue-report"; report: { from: string; text: string } }
  | { type: "agent"; msg: AgentMsg }
  /** `always` (`A`): approved, and so is every later call of the same tool in this thread (and forks taken after). */
  /** `reason`: why the user denied it (`D`), told to the model with the denial. */
  | { type: "tool-decision"; toolUseId: string; approved: boolean; always?: boolean; reason?: string }
  | { type: "tool-done"; toolUseId: string; outcome: ToolOutcome }
  | { type: "abort" }
  /** After an error: send the failed turn again. */
  | { type: "retry" }
  /** Its history ends on a user message no reply answers (a fork taken at one): request the reply. */
  | { type: "answer" }
  /** Back to `history`, a prefix of the thread's (tool runs dropped). */
  | { type: "rewind"; history: History }
  | { type: "toggle-detail"; key: string }
  | { type: "rename"; title: string }
  /** A code snapshot asked for at `at` messages was taken (null: off, or it failed). */
  | { type: "code"; at: number; purpose: CodePurpose; mark: CodeMark | null }
  /** A changed file's diff, fetched for the change list under a reply (key: its detail key). */
  | { type: "file-diff"; key: string; lines: readonly string[] }
  /** The user labelled the thread (`target` null) or one of its messages; "" removes the label. */
  | { type: "label"; target: LabelTarget; text: string }
  /** The model was asked for the thread's title (node/providers/title.ts); `model-title` is its answer. */
  | { type: "title-asked" }
  | { type: "model-title"; title: string }
  /** A request it was billed for beside its history (its title's, a compaction's summary): counted in its usage. */
  | { type: "side-request"; request: SideRequest }
  /** `:Tine model`: its next requests name this model and thinking effort. */
  | { type: "choose-model"; choice: ModelChoice };

/** Where a thread's conversation came from, when not from tine (kept in its stored header). */
export type ThreadOrigin = { readonly kind: "claude-code"; readonly sessionId: string | null; readonly path: string };

/** A stored thread as read from its file: its history, and how it runs (with what only the file holds, its instructions). */
export type StoredSource = {
  readonly history: History;
  readonly runner: RunnerSpec;
  /** The code snapshots its messages were made on: a fork keeps those of the messages it shares. */
  readonly code: readonly ThreadMark[];
};

/**
 * A message waiting in the queue, as the store keeps it: its text, whether it goes with the next
 * tool results (`@now`), and what its mentions resolved to when it was sent, each item in the one
 * format it has in a request (context/blocks.ts), so that it is read back by the same reader.
 */
export type StoredQueued = { readonly text: string; readonly now?: boolean; readonly context?: readonly string[] };

/** A thread known from disk and not loaded: what the list shows of it. */
export type StoredThread = {
  readonly id: ThreadId;
  readonly num: number;
  readonly title: string;
  readonly parentId: ThreadId | null;
  readonly atMessage: number;
  /** How it hangs under `parentId`. */
  readonly relation: Relation;
  readonly created: number;
  readonly updated: number;
  readonly messages: number;
  /** Lines of its transcript that could not be read. */
  readonly problems: number;
  /** How it runs when opened (its instructions, which only its file holds, come with `load-thread`). */
  readonly runner: RunnerSpec;
  /** The pid of another Neovim's host holding it open for writing (its lock), or null. */
  readonly busyBy: number | null;
  /** The user's label on it (`L`), or null. */
  readonly label: string | null;
  /** tine stopped (a quit, a restart) while it worked, and nothing was sent to it since: opening it from the list offers to go on. */
  readonly interrupted: boolean;
  /** How many messages wait in its queue, unsent: opened, they come back held (tine stopped before they were sent). */
  readonly queued: number;
  /** The git worktree of its own it works in, as its transcript keeps it (null: none of its own). */
  readonly worktree: { readonly path: string; readonly base: string; readonly unattended?: true } | null;
  /** What its own requests used, as the store's scan keeps it (the list shows it without loading the thread); none: unknown. */
  readonly usage?: StoredUsage;
  /** Its transcript's parent pointer led back to it (store/project-tree.ts): cut, so it is a root, and the list says why. */
  readonly looped?: true;
};

/**
 * Who opened a fork: the user (`background`: it runs without a window and reports back when its
 * turn ends; `prefill`: text put in its input, a quoted selection or a message to edit), or the
 * agent (enter_fork: what it may start on its own is limited, forks.ts; `idleTimeoutMs`: the fork's
 * own idle time-out, when it set one).
 */
export type ForkOpener =
  | {
      readonly by: "user";
      readonly background: boolean;
      readonly prefill?: string;
      /**
       * `e` on a message sent with tool results: the fork ends with those results, unsent, and the
       * edited text (its input's) goes in the same message with them when the user sends it.
       */
      readonly holdResults?: true;
    }
  | { readonly by: "agent"; readonly idleTimeoutMs?: number }
  /**
   * One fork of a fan-out (node/fork/fanout.ts, group `group`): it runs without a window, on
   * `model` when given, and when its turn ends it waits, done, for the user's choice (no report,
   * no idle clock).
   */
  | {
      readonly by: "fan-out";
      readonly group: string;
      /** Its place among its siblings (from 1): its title ends with it. */
      readonly place: { readonly index: number; readonly of: number };
      readonly model?: ModelChoice;
    };

/**
 * A fork the chat takes now (`fork-thread`): its source's runner cloned into thread `newId`. When
 * it is made, and in which folder, the fork flow decided before (node/fork/).
 */
export type ForkClone = {
  readonly sourceId: ThreadId;
  readonly newId: ThreadId;
  readonly num: number;
  /** Sent as the clone's next user turn; empty: the clone opens ready for input. */
  readonly prompt: string;
  /** What the prompt's mentions resolved to, sent with it. */
  readonly context?: SendContext;
  /** Fork the history up to and including this message (without: all of it). */
  readonly atMessage?: number;
  /** The source when it is stored and not loaded: the fork is cloned from its history, run as it ran. */
  readonly storedSource?: StoredSource;
  readonly opener: ForkOpener;
  /** What its source's runner made ready for it (`prepareFork`), given back to its `clone`. */
  readonly prepared?: unknown;
  /**
   * It waited for its source (`--wait`): made later than it was asked for, when the user may be at
   * work elsewhere. It opens beside its source without taking the cursor, or the active thread.
   */
  readonly waited?: true;
};

/** How a fork ended: its file stays, marked so (`:Tine threads!` shows and restores it). */
export type ForkEnd = "discarded" | "reported" | "promoted";

export type ChatMsg =
  /**
   * Every kind of thread starts here; `runner` says what runs it. No `title`: named from its first
   * message. `parentId`: linked under that thread in the tree (an export continued elsewhere).
   */
  | {
      type: "new-thread";
      newId: ThreadId;
      num: number;
      runner: RunnerStart;
      title?: string;
      /** Without `title`: the title until the first message names it (default `Thread N`). */
      placeholder?: string;
      origin?: ThreadOrigin;
      parentId?: ThreadId;
    }
  | ({ type: "fork-thread" } & ForkClone)
  | { type: "select-thread"; id: ThreadId }
  /**
   * What waits in the fork flow (node/fork/) for `sourceId` changed: the list shows a fork waiting
   * under its source. `waits`: the user asked for a fork that waits (activity in the source); `over`:
   * it waits no more (made, or cancelled).
   */
  | { type: "fork-waiting"; sourceId: ThreadId; change: "waits" | "over" }
  /** Threads found on disk (at start, or after another instance wrote). */
  | { type: "stored-found"; threads: readonly StoredThread[] }
  /**
   * A stored thread opened: it becomes live with this history. `readOnlyBy`: another writer's pid.
   * For a thread open read-only here whose writer is gone: it is taken over with this history.
   */
  | {
      type: "load-thread";
      id: ThreadId;
      title: string;
      history: History;
      /** How it runs, as its file says (the list's `StoredThread.runner` lacks its instructions). */
      runner: RunnerSpec;
      readOnlyBy: number | null;
      reports: readonly { from: string; text: string }[];
      /** Forks' changes grafted into its files, waiting for its next message (none when left out). */
      grafts?: readonly CodeNote[];
      /** Messages the user had queued when the thread was last written (they come back held). */
      queue: readonly StoredQueued[];
      /** The snapshots its messages were made on (none in transcripts written before them). */
      code?: readonly ThreadMark[];
      labels: Labels;
      /** Requests it was billed for beside its entries (usage/side.ts); none when left out. */
      side?: readonly SideRequest[];
      /** Its last request had failed with this error: it comes back failed, its turn to send again. */
      failed?: string;
    }
  | { type: "rename-stored"; id: ThreadId; title: string }
  /** A stored thread labelled (`L` in the list); null: its label removed. */
  | { type: "label-stored"; id: ThreadId; label: string | null }
  | { type: "fork-discard"; id: ThreadId }
  /**
   * The parent takes the fork's history; its own tail becomes `siblingId`, a fork at the fork point.
   * `codeMerged`: the fork's code is in its parent's folder already (a fork in a worktree of its own).
   */
  | { type: "fork-promote"; id: ThreadId; siblingId: ThreadId; siblingNum: number; codeMerged?: boolean }
  /** With text: that is the summary. Without: the fork is asked for one, and reports after. */
  | { type: "fork-report"; id: ThreadId; text?: string }
  /** What a reporting fork's code changed in its worktree (the host's `sumUpCode`; "": nothing to say): its report goes with it. */
  | { type: "fork-code-summed"; id: ThreadId; summary: string }
  /** A fork's change was grafted into thread `id`'s files (worktree/graft.ts), or a hunk of its turn undone or commented on (review/): noted in its display, told with its next message. */
  | { type: "code-noted"; id: ThreadId; note: CodeNote }
  /** `:Tine restore undo` took the graft or undo `note` back: not told with its next message. */
  | { type: "code-note-undone"; id: ThreadId; note: CodeNote }
  /** A background fork opened in a window becomes an interactive one. */
  | { type: "fork-opened"; id: ThreadId }
  | { type: "clock-tick"; now: number }
  /** `@handoff <goal>`: the agent is asked to call fork_thread; the thread then returns to how it was. */
  | { type: "handoff"; id: ThreadId; goal: string }
  /**
   * A compaction's summary came (compact/): thread `newId` opens under `sourceId` with `history`
   * (the summary of the source's first `summarized` messages, then the rest as they were), run
   * as the source runs (its instructions and model). The source is not touched.
   */
  | { type: "compacted"; sourceId: ThreadId; newId: ThreadId; num: number; history: History; summarized: number }
  | { type: "delete-thread"; id: ThreadId };

export type RootMsg = { type: "chat-msg"; msg: ChatMsg } | { type: "thread-msg"; id: ThreadId; msg: ThreadMsg };

export type Dispatch = (msg: RootMsg) => void;
