/**
 * The code snapshots of a thread's turns (see snapshot/code.ts): when they are asked for (before a
 * batch of tools, when a turn that ran tools ends), which entry of the history each was asked
 * after, and the marks kept once they are taken. A turn's change list starts at its first snapshot.
 */

import { type CodeMark, type CodePurpose, type CodeRecorder, type SnapshotId, type ThreadMark, validMarks } from "../core/code-marks.ts";
import type { History } from "../core/history.ts";
import type { ThreadId } from "../core/ids.ts";
import type { Entry } from "../core/native.ts";

const askedKey = (purpose: CodePurpose, at: number) => `${purpose}@${at}`;

export class TurnCode {
  /** The code snapshots its messages were made on; forks share their source's. Replaced, never mutated. */
  marks: readonly ThreadMark[] = [];
  /** The current turn's first snapshot (its change list starts there), or null before its first tool. */
  private turnStart: SnapshotId | null = null;
  /**
   * Snapshots asked for and not yet answered: the entry each was asked after, by purpose and
   * message count (a turn's end and the next turn's start of an ACP agent are asked at the same count).
   */
  private readonly asked = new Map<string, Entry | null>();
  /** Who waits for a snapshot asked for (recordedBeforeTurn), by the same key. */
  private readonly awaited = new Map<string, () => void>();

  constructor(
    private readonly id: ThreadId,
    private readonly recorder: CodeRecorder,
    /** The thread's history now (its runner may be replaced). */
    private readonly history: () => History,
  ) {}

  /** A turn starts (a send, an answer): the project's first snapshot starts now, in the background, so its tools find it made. */
  turnStarts(): void {
    this.turnStart = null;
    this.recorder.prime(this.id);
  }

  /** The history was rewound: the turn that was going on is gone. */
  rewound(): void {
    this.turnStart = null;
  }

  /** A turn ended: one that ran tools records what it changed since its first snapshot. */
  turnEnded(): void {
    if (this.turnStart === null) return;
    this.take("turn-end", this.turnStart);
    this.turnStart = null;
  }

  /** The files are recorded before a batch of tools can change them; asked for at the history's length now. */
  beforeTools(): void {
    this.take("tools", null);
  }

  /**
   * A turn of a program that runs its own tools (an ACP agent's) starts: the files are recorded
   * as before a batch of tine's tools, and the turn's prompt waits for the returned promise, so
   * nothing the agent writes can come before it. Resolves once answered, taken or not.
   */
  recordedBeforeTurn(): Promise<void> {
    const answered = new Promise<void>((resolve) => this.awaited.set(askedKey("tools", this.history().length), resolve));
    this.take("tools", null);
    return answered;
  }

  /** A snapshot asked for at `at` messages was taken: kept with the entry it followed. */
  taken(at: number, purpose: CodePurpose, mark: CodeMark | null): void {
    const key = askedKey(purpose, at);
    this.awaited.get(key)?.();
    this.awaited.delete(key);
    const entry = this.asked.get(key);
    this.asked.delete(key);
    const kept = mark && entry !== undefined ? { ...mark, entry } : null;
    // A snapshot of a turn rolled back meanwhile (a rewind) describes no message left: dropped, never stored.
    if (kept && validMarks([kept], this.history()).length) {
      this.marks = [...this.marks, kept];
      if (purpose === "tools") this.turnStart ??= kept.id;
    }
  }

  private take(purpose: CodePurpose, since: SnapshotId | null): void {
    const history = this.history();
    const at = history.length;
    this.asked.set(askedKey(purpose, at), at > 0 ? history.at(at - 1) : null);
    this.recorder.record(this.id, at, since, purpose);
  }
}
