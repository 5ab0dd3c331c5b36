/**
 * Code marks: which code snapshot each of a thread's messages was made on, as the chat keeps them,
 * the store writes them and the views and worktrees read them; and the recorder contract a thread
 * asks for snapshots through. Taking, comparing and restoring snapshots is node/snapshot/.
 */
import type { History } from "./history.ts";
import type { ThreadId } from "./ids.ts";
import type { Entry } from "./native.ts";

/** A snapshot: the sha of its commit in the private repository. */
export type SnapshotId = string;

/** One file that differs between two snapshots; `added`/`removed` are null for a binary file. */
export type FileChange = {
  readonly path: string;
  readonly status: "added" | "modified" | "deleted";
  readonly added: number | null;
  readonly removed: number | null;
};

/**
 * A snapshot a thread's messages were made on: the files once the thread held its first `at`
 * messages (taken before a batch of tools ran, and when a turn ended). Message k was made on the
 * first mark with `at > k` (no tool ran between k and that mark).
 */
export type CodeMark = {
  readonly at: number;
  readonly id: SnapshotId;
  /** Files left out of it, as too big. */
  readonly skipped: readonly string[];
  /** At a turn's end: the turn's changes, from its first snapshot `from`. */
  readonly turn?: { readonly from: SnapshotId; readonly files: readonly FileChange[] };
};

/** A thread's marks, each with the entry it was taken after: a mark counts only while that entry is still in the history. */
export type ThreadMark = CodeMark & { readonly entry: Entry | null };

/** The marks of `marks` that still describe `history` (a rewind or clean-up drops the others). */
export function validMarks(marks: readonly ThreadMark[], history: History): ThreadMark[] {
  return marks.filter((m) => m.at <= history.length && (m.at === 0 ? m.entry === null : history.at(m.at - 1) === m.entry));
}

/** The snapshot message `k` of `history` was made on, or null when no tool ran after it (the files are as it left them). */
export function markAt(marks: readonly ThreadMark[], history: History, k: number): ThreadMark | null {
  let best: ThreadMark | null = null;
  for (const m of validMarks(marks, history)) if (m.at > k && (!best || m.at < best.at)) best = m;
  return best;
}

/** The thread's last snapshot: the files as its last turn left them (null: no tool of it ran). */
export function latestMark(marks: readonly ThreadMark[], history: History): ThreadMark | null {
  return validMarks(marks, history).reduce<ThreadMark | null>((a, m) => (!a || m.at >= a.at ? m : a), null);
}

/** Why a thread asks for a snapshot: before a batch of its tools runs, or as a turn that ran tools ends. */
export type CodePurpose = "tools" | "turn-end";

/**
 * Takes snapshots for threads, off the dispatch loop: each answer reaches the thread as its `code`
 * message (with no mark when snapshots are off or the snapshot failed), in the order asked.
 */
export type CodeRecorder = {
  /** Thread `thread` is about to send: its folder's first snapshot starts in the background (CodeSnapshots.prime). */
  prime(thread: ThreadId): void;
  /** A snapshot for thread `thread`, made on its first `at` messages; `since`: the turn's first snapshot, whose changes it lists. */
  record(thread: string, at: number, since: SnapshotId | null, purpose: CodePurpose): void;
  /**
   * Resolves once every snapshot asked for until now has reached its thread (taken, or failed):
   * the marks a code operation reads then hold the last snapshot of every turn that has ended.
   */
  settled(): Promise<void>;
};
