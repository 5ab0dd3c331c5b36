/**
 * What runs a thread: tine's own agent on the Messages API, or another program (the Claude Code
 * CLI in a terminal). The chat, the store, the view and the list ask a runner what they need — its
 * traits, its surface, its label and status — and never which kind it is.
 *
 * A runner is a small core every kind has (`RunnerCore`: how it is stored, what it is like, where
 * it shows, its status, the transcript tine holds of it, close and clone) and one optional
 * capability, `conversation`: the conversation tine drives (send, abort, retry, answer, rewind,
 * its model, a summary). A kind whose program keeps its conversation and draws it itself (Claude
 * Code in a terminal) has none, its history is empty, and a send before its program runs (a
 * fork's prompt) goes to its terminal surface (`input`): callers ask `runner.conversation` (or
 * `drive`, which says where it is driven instead) rather than call members that would throw. A
 * kind whose conversation lives in another program yet is drawn by tine as a transcript (an ACP
 * agent, which streams its messages) has a `transcript` surface, a history and open message
 * holding what it streamed, and a conversation whose members speak to that program.
 *
 * Each kind is one module (`RunnerKind`) in its own folder (providers/api-kind.ts,
 * claude-code/kind.ts): how its runners start and reopen, its label and traits, the messages its
 * program keeps, what of a stored header it runs without. The registry (runner-registry.ts) looks
 * a spec's module up by its `kind`, with no case per kind; the host lists the modules, one line
 * each (host/runners.ts), so the chat constructs no runner itself. What a kind stores, and the
 * check of it read back, are one case of `RunnerSpec` and one entry of the table in
 * core/runner-spec.ts (the store reads headers, and lies below every kind's folder); how the user
 * starts one is its case of `RunnerStart` below.
 */

import type { AgentMsg, AgentStatus, CloneOptions, OpenMessage } from "../core/agent.ts";
import type { AgentCommand } from "../core/agent-commands.ts";
import type { History } from "../core/history.ts";
import type { ModelChoice } from "../core/model-choice.ts";
import type { RequestKey, UserBlock } from "../core/native.ts";
import type { RunnerSpec, RunnerSpecOf, SpecKind } from "../core/runner-spec.ts";
import type { SideRequest } from "../core/side-request.ts";
import type { ReportedUsage } from "../usage/reported.ts";
/** How a new thread is to be run, as the `new-thread` message says it. */
export type RunnerStart =
  /** `history`: a conversation to start from (an import, benchmarks). */
  | { readonly kind: "api"; readonly history?: History }
  /** `resume`: an existing session continued (an export); otherwise a new session. */
  | { readonly kind: "claude-code"; readonly args: readonly string[]; readonly resume?: string }
  /**
   * `sessionId`: the session just made for it on the agent's running process (acp/threads.ts);
   * `offer`: that session's answer (the settings it offers), opaque here: its kind reads it.
   */
  | { readonly kind: "acp"; readonly agent: string; readonly sessionId: string; readonly offer?: unknown };

/** A thread's status as the list and the view show it. `busy`: written by another Neovim. */
export type ThreadStatus = "idle" | "streaming" | "waiting" | "error" | "busy" | "running" | "exited";

export type RunnerTraits = {
  /** tine's fork lifecycle (idle clocks, wrap-up prompts, reports) speaks to this runner. */
  readonly forkLifecycle: boolean;
  /**
   * Where its conversation stays when a fork it runs ends (`its own Claude Code session`), or null:
   * tine holds it, so a promote moves it into the parent and a report sends its summary. A fork
   * whose program keeps its own ends by its code only (fork-exits.ts): in a worktree of its own it
   * can be promoted (its code merged) or discarded, never reported; elsewhere it ends in its program.
   */
  readonly ownConversation: string | null;
  /** Stored as soon as it is made, before its first message (its conversation lives elsewhere). */
  readonly storedAtOnce: boolean;
  /**
   * Its tools run through tine (the thread's Environment), so a sandbox confines them and an
   * unattended fork of it can be made; false: its program runs its own (Claude Code).
   */
  readonly toolsThroughTine: boolean;
};

/** Where a thread shows: a transcript tine renders, or a terminal the runner's own program draws. */
export type Surface =
  | { readonly type: "transcript" }
  | {
      readonly type: "terminal";
      /** What the terminal runs. */
      readonly argv: readonly string[];
      /** The folder it runs in. */
      readonly cwd: string;
      /** Typed into the program once it is ready (a fork's prompt). */
      readonly firstInput: string;
      /**
       * A send to the thread (a fork's prompt): kept to be typed once the program is ready; throws
       * once it runs (the user types in its terminal).
       */
      input(text: string): void;
      /** The program started in its terminal. */
      started(): void;
      /** The program's process ended. */
      exited(): void;
    };

/** What every runner has. */
export interface RunnerCore {
  readonly spec: RunnerSpec;
  readonly traits: RunnerTraits;
  readonly surface: Surface;
  /** Put before the title in the list (`[claude] `), or empty. */
  readonly label: string;
  /**
   * Lines its display shows above the messages (which agent runs it, a session that could not be
   * taken up), or absent: none.
   */
  banner?(): readonly string[];
  /**
   * What waits for the user's answer that the runner's program asked (an ACP agent's permission
   * requests), or absent: it asks none (tine's own approvals are the thread's tool runs).
   */
  readonly questions?: RunnerQuestions;
  /**
   * The settings its program offers for its conversation (an ACP agent's mode, model, effort),
   * which `:Tine model` lists and sets in its thread; absent: none (tine's own threads choose their
   * model through `conversation.chooseModel`).
   */
  readonly agentSettings?: AgentSettings;
  /**
   * The `/` commands its program takes as a message (an ACP agent's announced commands), which
   * completion offers at a message's start; absent: none.
   */
  agentCommands?(): readonly AgentCommand[];
  /**
   * What its program says of its own usage (an ACP agent's context and cost), or absent: tine counts
   * it from the history and its prices. The winbar and the list show it for any runner that has it.
   */
  reportedUsage?(): ReportedUsage;
  /**
   * Its program changes files with tools of its own (an ACP agent): its next prompt waits for
   * `recorded`, the snapshot the turn's changes are measured from (review, restore). Absent: tine
   * runs the tools and records before each batch, or records nothing (a terminal's).
   */
  recordBeforeTurn?(recorded: Promise<void>): void;
  /** Its status as its `status-changed` messages tell it (a terminal's: idle, or stopped once it exited). */
  readonly status: AgentStatus;
  /**
   * The conversation as tine holds, draws and stores it: finalized entries, shared with forks. Empty
   * for a runner whose program draws and keeps its own (Claude Code's terminal).
   */
  readonly history: History;
  /**
   * How many of `history`'s entries are final, when its last ones are a turn still streaming that
   * is drawn as entries and made again with each update (an ACP agent's); absent: all are. The
   * store writes such a tail now and then, as it does a block's streamed text (store/sync.ts).
   */
  readonly settledLength?: number;
  /** The message being streamed, or null when none is. */
  readonly open: OpenMessage | null;
  /** The conversation tine drives, or null: its program is driven where it shows (a terminal). */
  readonly conversation: Conversation | null;
  /** The thread's status; `toolsPending`: some of the last reply's tool calls are not answered. */
  threadStatus(toolsPending: boolean): ThreadStatus;
  /** Added after the status in the list (` (busy)`), or empty. */
  statusDetail(): string;
  /**
   * Resolves once its program is between turns, so that its files and conversation copied then are
   * whole (a fork into a worktree of its own waits for it); null when it is now, or when tine's
   * forks of it are taken in any state (tine's own agent closes a half-finished turn itself).
   */
  betweenTurns(): Promise<void> | null;
  /**
   * Its program is in a turn the thread's status does not show (a Claude Code session at work):
   * a promote waits for it as for a thread not at rest (its files are half-written).
   */
  midTurn(): boolean;
  /** The thread leaves this host (deleted, ended, replaced): what the runner holds is let go. */
  close(): void;
  /**
   * A new runner holding this one's conversation, in any state: finalized entries shared (not
   * copied), the open message's finalized blocks kept and the block in progress left out, each
   * unanswered tool_use given its known result or an error. The clone is at rest (`stopped`,
   * `end_turn`) and this runner is not touched: it keeps streaming and sends no extra request.
   */
  clone(dispatch: (msg: AgentMsg) => void, options?: CloneOptions): Runner;
  /**
   * Made ready before a fork of it is taken (awaited by the fork flow, outside the chat's loop),
   * handed back to `clone` as `CloneOptions.prepared`: a runner whose program forks its own
   * conversation (an ACP agent's session/fork) forks it here, so the fork's stored header names
   * its session from the start. `at`: the message asked for (undefined: the latest); `cwd`: the
   * fork's folder when not its source's (its worktree, made first). Absent: its clone needs nothing made first.
   */
  prepareFork?(at: number | undefined, cwd: string | null): Promise<PreparedFork>;
}

/** What `prepareFork` made: where the fork is taken (the message it ends at), and what its clone is made from. */
export type PreparedFork = {
  readonly atMessage: number;
  /** The runner's own (its clone checks it): opaque to the chat and the fork flow. */
  readonly made: unknown;
};

/** A runner's program's questions to the user (an agent's permission requests), answered only by the user. */
export interface RunnerQuestions {
  /** Those waiting now, oldest first. */
  pending(): readonly RunnerQuestion[];
  /**
   * Answers the oldest waiting question about tool call `toolId` (or the oldest of all, null) with
   * its option of `kind`; false: none such waits. `reason`: why the user said no (`D`), for its
   * program to be told as it can take it.
   */
  answer(toolId: string | null, kind: QuestionAnswer, reason?: string): boolean;
}

/** The settings a runner's program offers; what the user chose of them is its spec's `settings`. */
export interface AgentSettings {
  /** What its program offers now, each with its current value (its session taken up first when it is not live). */
  offered(): Promise<readonly AgentSetting[]>;
  /**
   * Sets setting `id` to `value`, one its program offered: resolves once the program took it
   * (kept with the thread from then on), rejects saying why not (nothing is kept).
   */
  choose(id: string, value: string): Promise<void>;
}

/** One setting as its program offered it (its words, one line each). `current`: its value now, or null when not said. */
export type AgentSetting = {
  readonly id: string;
  readonly name: string;
  /** What it is about (`mode`, `model`, `thought_level`, …), or null. */
  readonly category: string | null;
  readonly current: string | null;
  readonly options: readonly { readonly value: string; readonly name: string; readonly description: string | null }[];
};

/** How the user answers: once, always, or no. */
export type QuestionAnswer = "allow_once" | "allow_always" | "reject_once";

/** One question: the tool call it is about, what it asks and the options offered (as the program named them). */
export type RunnerQuestion = {
  readonly toolId: string;
  readonly title: string;
  readonly options: readonly { readonly kind: string; readonly name: string }[];
};

/** The conversation tine drives: its turns, its model and summaries of it. */
export interface Conversation {
  /** Adds a user turn (joining a trailing user message) and requests a response. */
  send(blocks: UserBlock[]): void;
  /** Aborts the stream or pending tool turn; the history is closed (tine's agent: `closeTurn`). */
  abort(): void;
  /** After an error: sends the failed turn (the history's last, a user message) again. */
  retry(): void;
  /** Requests the reply to the history's last message, a user message none answers yet (a fork taken at one). */
  answer(): void;
  /** Back to `history` (a prefix of the runner's): any stream is dropped, it stops at rest. */
  rewind(history: History): void;
  /** After an error: replaces the failed turn's text with `blocks` and sends; returns the old text. */
  replaceFailed(blocks: UserBlock[]): string;
  /** What its next request would be (model, cached prefix), or null when tine makes none (another program's). */
  nextRequest(): RequestKey | null;
  /** The model its next request names; null when its program chooses its own. */
  readonly modelName: string | null;
  /** Its next requests use `choice`; throws for a conversation whose program chooses its own model. */
  chooseModel(choice: ModelChoice): void;
  /**
   * One request of its own that never joins the history: its first `upTo` messages, then `prompt`;
   * resolves to the reply's text (compaction's summary) and what the request used (null: nothing
   * billed). Rejects for a conversation that cannot.
   */
  summarize(upTo: number, prompt: string): Promise<{ text: string; request: SideRequest | null }>;
}

/** A thread's runner: the core, with its conversation when tine drives one. */
export type Runner = RunnerCore;

/** `runner`'s conversation, to `what` it (`retry it`); throws saying where it is driven instead when tine drives none. */
export function drive(runner: RunnerCore, what: string): Conversation {
  if (runner.conversation) return runner.conversation;
  const where = runner.traits.ownConversation ?? "its own program";
  throw new Error(`tine: this thread's conversation is ${where}: ${what} there`);
}

/** The model `runner`'s next request names; null when tine makes none or its program chooses its own. */
export function modelNameOf(runner: RunnerCore): string | null {
  return runner.conversation?.modelName ?? null;
}

/** What `runner`'s next request would be, or null when tine makes none. */
export function nextRequestOf(runner: RunnerCore): RequestKey | null {
  return runner.conversation?.nextRequest() ?? null;
}

/** Whether tine shows `runner`'s usage: its requests are tine's, or its program reports its own (an ACP agent). */
export function showsUsage(runner: RunnerCore): boolean {
  return nextRequestOf(runner) !== null || runner.reportedUsage !== undefined;
}

/**
 * One kind of runner, in a module of its own folder. `K` is its stored spec's `kind`
 * (core/runner-spec.ts holds what that spec is and how it is checked).
 */
export interface RunnerKind<K extends SpecKind = SpecKind> {
  readonly kind: K;
  /** The runner of a new thread the user asked for. */
  start(start: RunnerStartOf<K>, dispatch: (msg: AgentMsg) => void): Runner;
  /** The runner of a stored thread opened again (see `Runners.reopen`). */
  reopen(spec: RunnerSpecOf<K>, history: History, dispatch: (msg: AgentMsg) => void, failed?: string): Runner;
  /** The list's label for a stored thread of this kind (`[claude] `), or empty. */
  label(spec: RunnerSpecOf<K>): string;
  /** What a runner of `spec` is like. */
  traits(spec: RunnerSpecOf<K>): RunnerTraits;
  /** Messages in the conversation its program keeps itself, or null when tine holds it. */
  ownMessages(spec: RunnerSpecOf<K>): number | null;
  /** What of stored thread `title`'s spec its runner runs without (see `Runners.storedNotices`). */
  storedNotices(spec: RunnerSpecOf<K>, title: string): readonly StoredNotice[];
}

/** What the user is told of a stored spec, once per thread and `key` (a field of the spec its runner runs without). */
export type StoredNotice = { readonly key: string; readonly text: string };

/** The start of a new thread of kind `K`. */
export type RunnerStartOf<K extends SpecKind> = Extract<RunnerStart, { readonly kind: K }>;

/** Makes runners; the host injects the one registry that knows every kind. */
export interface Runners {
  /** The runner of a new thread. */
  start(start: RunnerStart, dispatch: (msg: AgentMsg) => void): Runner;
  /**
   * The runner of a stored thread opened again (or of a new thread holding `history` run like it);
   * `failed`: its last request had failed with this error, its turn left to send again (`R`).
   */
  reopen(spec: RunnerSpec, history: History, dispatch: (msg: AgentMsg) => void, failed?: string): Runner;
  /** The list's label for a stored thread run by `spec` (no runner is made for it). */
  label(spec: RunnerSpec): string;
  /** What a runner of `spec` is like (a stored thread forked without being opened has none yet). */
  traits(spec: RunnerSpec): RunnerTraits;
  /** Messages in the conversation a runner of `spec` keeps itself (a Claude Code session's), or null when tine holds it. */
  ownMessages(spec: RunnerSpec): number | null;
  /**
   * What a runner of stored thread `title`'s `spec` runs without (a header is a file: arguments or a
   * folder it names that could run something), told once per thread when it is opened or forked
   * without being opened.
   */
  storedNotices(spec: RunnerSpec, title: string): readonly StoredNotice[];
}
