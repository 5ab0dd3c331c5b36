/**
 * When a fork the user asks for is made, and where: the one rule, pure (the fork flow, flow.ts,
 * carries the request it gives on its way).
 */
import type { ForkClone } from "../chat/msgs.ts";
import type { SnapshotId } from "../core/code-marks.ts";
import type { ForkRequest } from "./request.ts";

export type ForkPlace = {
  /** `--wait`: the fork waits for its source to be at rest. */
  readonly wait: boolean;
  /** In a worktree of its own (asked for, or given by `fork_worktree`); else in its source's folder. */
  readonly worktree: boolean;
  /** Its tools run in the sandbox (always in a worktree of its own). */
  readonly unattended: boolean;
  /** The snapshot its worktree is made from (a message's, `restore_code`); null: its source's files when it is made. */
  readonly base: SnapshotId | null;
  /** Its source's program keeps its own conversation and is mid-turn now (a Claude Code session at work). */
  readonly sourceMidTurn: boolean;
};

export function planFork(fork: ForkClone, place: ForkPlace): ForkRequest {
  const { wait, base, unattended } = place;
  if (!place.worktree && !unattended) return wait ? { when: "at-rest", fork, worktree: false } : { when: "now", fork };
  // A program mid-turn is copied whole, with the files as its turn left them: the fork waits for the turn's end.
  if (place.sourceMidTurn) return { when: "turn-end", fork, base, unattended };
  // One that waits gets its worktree when due, from the files as its source's turn left them; one from a message's files gets it now.
  if (wait)
    return base === null
      ? { when: "at-rest", fork, worktree: true, unattended }
      : { when: "worktree-made", fork, base, next: "at-rest", unattended };
  return { when: "worktree-made", fork, base, next: "now", unattended };
}
