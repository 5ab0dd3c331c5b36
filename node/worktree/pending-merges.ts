/**
 * The conflicted merges of promoted worktree forks that wait to be accepted (`:Tine merge done`),
 * as the thread they were promoted into shows them: a line in its display until the merge is
 * accepted, after a restart too. The worktrees' markers on disk are the record (worktree.ts
 * `setPendingMerge`); this keeps what they say in memory, read again whenever it changes here,
 * so that drawing a display reads no file.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ThreadId } from "../core/ids.ts";
import type { WaitingMerge } from "../core/waiting-merge.ts";
import { type PendingMerge, setPendingMerge, worktreesIn } from "./worktree.ts";

export class PendingMerges {
  private waiting: readonly WaitingMerge[] = [];

  constructor(
    /** This project's worktree folder. */
    private readonly folder: () => string,
    /** What is waiting changed: the displays are drawn again. */
    private readonly changed: () => void,
  ) {}

  /** Every merge waiting, in the order their worktrees are found. */
  all(): readonly WaitingMerge[] {
    return this.waiting;
  }

  /** The merges waiting to go into thread `id`, in the order their worktrees are found. */
  into(id: ThreadId): readonly WaitingMerge[] {
    return this.waiting.filter((m) => m.parent === id);
  }

  /** Reads what the worktrees' markers say (at start, after the merges a stopped tine left are recovered). */
  reload(): void {
    this.waiting = worktreesIn(this.folder()).flatMap((w) => {
      const m = w.merge;
      // A marker is a file: one of another shape is shown nowhere. One written before it named the
      // thread (an older tine) is accepted as before (`:Tine merge done`), and shown nowhere either.
      const shown =
        m &&
        typeof m.parent === "string" &&
        typeof m.fork === "string" &&
        typeof m.into === "string" &&
        Array.isArray(m.files) &&
        m.files.every((f) => typeof f === "string");
      return shown ? [{ worktree: w.path, fork: m.fork!, parent: m.parent!, into: m.into, files: m.files }] : [];
    });
    this.changed();
  }

  /** The merge of the fork in `worktree` left conflicts: noted in its marker, so a restart finds it. */
  noted(worktree: string, merge: PendingMerge): void {
    setPendingMerge(worktree, merge);
    this.reload();
  }

  /** The merge of the fork in `worktree` is accepted (its worktree goes next). */
  accepted(worktree: string): void {
    setPendingMerge(worktree, null);
    this.reload();
  }
}

/**
 * The conflicts of the merges still waiting, as the quickfix list shows them after a restart (the
 * promote filled it; that list went with Neovim): each file at its first conflict marker. `folder`:
 * the folder a merge went into, when it is this project's or one of its worktrees (a marker is a
 * file: nothing elsewhere is read); null leaves that merge out.
 */
export function waitingQuickfix(
  waiting: readonly WaitingMerge[],
  folder: (into: string) => string | null,
): { filename: string; lnum: number; text: string }[] {
  return waiting.flatMap((m) => {
    const root = folder(m.into);
    if (root === null) return [];
    return m.files.map((f) => {
      const filename = join(root, f);
      return { filename, lnum: firstMarker(filename), text: `conflict: the merge of "${m.fork}" waits (:Tine merge done)` };
    });
  });
}

/** The line (1-based) of a file's first conflict marker; 1 when it has none, or cannot be read. */
function firstMarker(path: string): number {
  try {
    const at = readFileSync(path, "utf8")
      .split("\n")
      .findIndex((l) => l.startsWith("<<<<<<< "));
    return at < 0 ? 1 : at + 1;
  } catch {
    return 1;
  }
}
