/**
 * What runs a thread: tine's own agent on the Messages API, or another program (the Claude Code
 * CLI in a terminal). The chat, the store, the view and the list ask a runner what they need — its
 * traits, its surface, its label and status — and never which kind it is. Runners are made by one
 * injected registry (`Runners`), so the chat constructs none itself; a new kind of runner is a new
 * implementation of `Runner` and a case in the registry, nothing else.
 */
import type { Agent, AgentMsg, CloneOptions } from "../core/agent.ts";
import type { History } from "../core/history.ts";
import type { ModelChoice } from "../core/model-choice.ts";
import type { RequestKey } from "../core/native.ts";
import type { RunnerSpec } from "../core/runner-spec.ts";
import type { SideRequest } from "../core/side-request.ts";

/** How a new thread is to be run, as the `new-thread` message says it. */
export type RunnerStart =
  /** `history`: a conversation to start from (an import, benchmarks). */
  | { readonly kind: "api"; readonly history?: History }
  /** `resume`: an existing session continued (an export); otherwise a new session. */
  | { readonly kind: "claude-code"; readonly args: readonly string[]; readonly resume?: string };

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
      /** The program started in its terminal. */
      started(): void;
      /** The program's process ended. */
      exited(): void;
    };

export interface Runner extends Agent {
  readonly spec: RunnerSpec;
  readonly traits: RunnerTraits;
  readonly surface: Surface;
  /** Put before the title in the list (`[claude] `), or empty. */
  readonly label: string;
  /** The thread's status; `toolsPending`: some of the last reply's tool calls are not answered. */
  threadStatus(toolsPending: boolean): ThreadStatus;
  /** Added after the status in the list (` (busy)`), or empty. */
  statusDetail(): string;
  /** What its next request would be (model, cached prefix), or null when tine makes none (another program's). */
  nextRequest(): RequestKey | null;
  /** The model its next request names; null when its program chooses its own (Claude Code). */
  readonly modelName: string | null;
  /** Its next requests use `choice`; throws for a runner whose program chooses its own model. */
  chooseModel(choice: ModelChoice): void;
  /**
   * One request of its own that never joins the history: its first `upTo` messages, then `prompt`;
   * resolves to the reply's text (compaction's summary) and what the request used (null: nothing
   * billed). Rejects for a runner that cannot.
   */
  summarize(upTo: number, prompt: string): Promise<{ text: string; request: SideRequest | null }>;
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
  clone(dispatch: (msg: AgentMsg) => void, options?: CloneOptions): Runner;
}

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
}
