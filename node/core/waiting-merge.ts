/** A conflicted merge of a promoted worktree fork, as the thread it went into shows it (worktree/pending-merges.ts keeps them; view/ draws them). */
import type { ThreadId } from "./ids.ts";

/** A merge that waits, as a display names it: the fork's title, the thread it went into, its conflicted files. */
export type WaitingMerge = {
  /** The fork's worktree, where its copies of the files stay meanwhile. */
  readonly worktree: string;
  readonly fork: string;
  readonly parent: ThreadId;
  /** The folder merged into (the parent's), and the files there left with conflicts (relative to it). */
  readonly into: string;
  readonly files: readonly string[];
};
