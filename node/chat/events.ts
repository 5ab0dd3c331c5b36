/**
 * What the chat tells the host (the UI and the store follow threads through these), the clock and
 * the limits it is given: the chat's edges, so it never touches buffers, files or timers itself.
 */

import type { ThreadId } from "../core/ids.ts";
import type { NewThread } from "./mint.ts";
import type { ForkClone, ForkEnd } from "./msgs.ts";
import type { QueuedReport } from "./prompts.ts";
import type { Thread } from "./thread.ts";

/** What the UI and the store do when threads appear and go; the chat only says so. */
export type ChatEvents = {
  threadCreated(thread: Thread, how: CreatedHow): void;
  threadDeleted(id: ThreadId): void;
  /** A fork ended (it is still whole here, then goes); `into`: the thread that took its history. */
  forkEnded(fork: Thread, how: ForkEnd, into?: ThreadId): void;
  /** A promote moved the parent's old tail to `siblingId`: forks taken from it after `atMessage` follow. */
  branched(parentId: ThreadId, siblingId: ThreadId, atMessage: number): void;
  /**
   * The agent's enter_fork, due as its response ends: the fork flow (node/fork/), which decides
   * when and where every fork is made, gives the fork the chat takes now, in place.
   */
  agentFork(sourceId: ThreadId, ask: { readonly prompt: string; readonly idleTimeoutMs?: number }): ForkClone;
  /**
   * Thread `sourceId` came to rest: the fork that waited for that (the fork flow's) if it is to be
   * taken now, in place, before what the rest does to the source (a summary asked, a report); null
   * when none waited, or its worktree is made first (the flow forks once it is).
   */
  forkDueAtRest(sourceId: ThreadId): ForkClone | null;
  /** A thread of its own under `sourceId` (a hand-off), from the fork flow: its id and number; it works where its source works. */
  branch(sourceId: ThreadId): NewThread;
  /**
   * A fork in a worktree of its own is about to report: the host sums up what its code changed and
   * answers with `fork-code-summed`, so that the parent gets the finding and the code as one report.
   */
  sumUpCode?(forkId: ThreadId): void;
  /**
   * A fork in a worktree of its own is being promoted: the host merges its code into its parent's
   * folder first, then calls `promote` (which promotes it, its code merged); a merge that cannot be
   * done calls nothing (the fork stays as it was) and the user is told why.
   */
  mergeCode?(forkId: ThreadId, promote: () => void): void;
  /** A report for a parent that is stored and not loaded: it is written to the parent's log. */
  reportToStored(parentId: ThreadId, report: QueuedReport): void;
  /**
   * A thread number of at least `atLeast` that no other Neovim on the project has taken (the store
   * claims it); without, numbers are unique in this instance only.
   */
  claimNum?(atLeast: number): number;
  /** Gives back a number `claimNum` gave for a thread that never came to be. */
  releaseNum?(num: number): void;
  /** Something the user is told, as a notification (an error: a request of theirs did not happen). */
  tell?(text: string, error: boolean): void;
};

export type CreatedHow = {
  /** The thread it hangs under (as a fork or a hand-off, see the tree) and opens beside. */
  under?: ThreadId;
  prefill?: string;
  loaded?: boolean;
  /** No window: a background fork, or a branch made by a promote. */
  background?: boolean;
  /** A fork made later than asked (it waited for its source): it opens without taking the cursor. */
  later?: boolean;
};

/** What the agent may start on its own (from the user's options). */
export type ChatLimits = {
  /** Live forks the agent may have opened (enter_fork) from one thread: agent_fork_limit. */
  readonly agentForkLimit: number;
};

export type ChatClock = {
  now(): number;
  /** Idle time before a fork is asked to wrap up (and again before it reports and ends). */
  readonly forkIdleTimeoutMs: number;
};
