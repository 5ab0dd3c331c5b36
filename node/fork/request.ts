/**
 * A fork on its way, as the fork flow (flow.ts) carries it: what the chat clones when it is taken
 * (`fork`), and when and where it is made. Each case is one step: a fork waits (for its source's
 * rest, or for its source's program to end its turn), has its worktree made, and is taken now.
 */
import type { ForkClone } from "../chat/msgs.ts";
import type { SnapshotId } from "../core/code-marks.ts";

export type ForkRequest =
  /** Taken at once, where it works already: its source's folder (shared), or its worktree (made). */
  | { readonly when: "now"; readonly fork: ForkClone }
  /**
   * `--wait`: taken once its source is at rest (its reply finished, its tools answered); with
   * `worktree`, in a worktree of its own made then, from the files as the source's turn left them.
   */
  | { readonly when: "at-rest"; readonly fork: ForkClone; readonly worktree: false }
  | { readonly when: "at-rest"; readonly fork: ForkClone; readonly worktree: true; readonly unattended: boolean }
  /**
   * In a worktree of its own while its source's program, which keeps its own conversation, is
   * mid-turn (a Claude Code session): once the turn ends its worktree is made (from `base`; null:
   * the files as the turn left them) and the conversation copied whole.
   */
  | { readonly when: "turn-end"; readonly fork: ForkClone; readonly base: SnapshotId | null; readonly unattended: boolean }
  /**
   * In a worktree of its own, made first (from `base`, a message's snapshot; null: its source's
   * files now); then taken, or (`next`: "at-rest") it waits for its source's rest.
   */
  | {
      readonly when: "worktree-made";
      readonly fork: ForkClone;
      readonly base: SnapshotId | null;
      readonly next: "now" | "at-rest";
      /** Its tools run in the sandbox, and nothing inside it waits for approval (worktree/workspaces.ts). */
      readonly unattended: boolean;
    }
  /**
   * In a worktree of its own made from `base` while it is taken now (one of a fan-out's): its
   * first request needs only its history; its tools wait for its files (Workspaces.forkMeanwhile).
   */
  | { readonly when: "worktree-meanwhile"; readonly fork: ForkClone; readonly base: SnapshotId; readonly unattended: boolean };

/**
 * A fork waiting for its source: listed under it, cancelled by asking for another fork of it (or
 * <C-c> on its line); at most one per source. One waiting for a turn's end stays so while its
 * worktree is made.
 */
export type WaitingFork = Extract<ForkRequest, { when: "at-rest" | "turn-end" }>;

/** What the user asks of a fork: `fork(id, prompt, opts)` (`:ForkThread`, the list's keys, `F`), `@fork`, `@bg`, `e`. */
export type ForkAsk = {
  readonly at_message?: number;
  readonly prefill?: string;
  /** `e` only (no option of `fork()`): the tool results the fork ends with wait for the edited text (ForkOpener). */
  readonly holdResults?: true;
  readonly wait?: boolean;
  readonly background?: boolean;
  readonly restore_code?: boolean;
  /** With restore_code: files changed since the thread's last turn are restored too. */
  readonly restore_overwrite?: boolean;
  readonly worktree?: boolean;
  /**
   * Its tools run in the sandbox, confined to a worktree of its own, and nothing inside it waits
   * for approval (true: refused, with why and the fix, where the sandbox cannot start); absent:
   * `fork_unattended` decides.
   */
  readonly unattended?: boolean;
};
