/**
 * The hunks of one turn's edits, as a review lists them: the turn is a mark that ended a turn
 * which changed files (core/code-marks.ts), its diff runs from the turn's first snapshot to its
 * last, and its hunks are numbered per file from 1 in file order by the one rule graft numbers
 * them by (worktree/hunks.ts `diffHunks`, 3 lines of context), so the display, the API and an undo
 * all name the same hunk.
 */
import { type SnapshotId, type ThreadMark, validMarks } from "../core/code-marks.ts";
import type { CodeSnapshots } from "../snapshot/code.ts";
import type { ThreadCode } from "../worktree/code-actions.ts";
import { diffHunks, type HunkRange } from "../worktree/hunks.ts";
import type { HunkState, ReviewRecord } from "./review-record.ts";

/** A turn that changed files: its first snapshot (`from`), its last (`to`), and the message it shows under. */
export type ReviewTurn = { readonly from: SnapshotId; readonly to: SnapshotId; readonly message: number; readonly mark: ThreadMark };

/** A hunk as `require("tine").hunks` gives it: the header's numbers (1-based starts, as `@@ -a,b +c,d @@` says them) and its state. */
export type ListedHunk = {
  readonly path: string;
  readonly index: number;
  readonly old_start: number;
  readonly old_lines: number;
  readonly new_start: number;
  readonly new_lines: number;
  readonly state: HunkState;
};

/** The turns of a thread that changed files, first to last. */
export function turnsOf(thread: ThreadCode): ThreadMark[] {
  return validMarks(thread.code, thread.history)
    .filter((m) => m.at > 0 && m.turn && m.turn.files.length > 0)
    .sort((a, b) => a.at - b.at);
}

/**
 * The turn a review means: with `atMessage`, the turn message `atMessage` is part of (the first
 * that ended after it); without, the last turn, or with `path`, the last turn that changed it.
 */
export function reviewTurn(thread: ThreadCode, atMessage: number | null, path: string | null): ReviewTurn {
  const turns = turnsOf(thread);
  const touches = (m: ThreadMark) => path === null || m.turn!.files.some((f) => f.path === path);
  const mark = atMessage === null ? turns.filter(touches).at(-1) : turns.find((m) => m.at > atMessage);
  if (!mark) {
    const which = atMessage === null ? "" : ` ending at or after message ${atMessage}`;
    throw new Error(`tine: review: "${thread.title}" has no turn${which} that changed ${path ?? "files"}`);
  }
  return { from: mark.turn!.from, to: mark.id, message: mark.at - 1, mark };
}

/** A range's start as a diff's header says it: 1-based, or, for an empty range, the line before it. */
export const headerStart = (start: number, count: number) => (count === 0 ? start : start + 1);

/** Every hunk of the turn, file by file (in git's order), with its state in the review `record`. */
export async function turnHunks(snapshots: CodeSnapshots, turn: ReviewTurn, record: ReviewRecord): Promise<ListedHunk[]> {
  const [changes, diffs] = await Promise.all([snapshots.changes(turn.from, turn.to), snapshots.fileDiffs(turn.from, turn.to)]);
  const states = new Map(record.hunks.filter((h) => h.turn === turn.to).map((h) => [`${h.path}\0${h.index}`, h.state]));
  const out: ListedHunk[] = [];
  for (const [i, change] of changes.entries()) {
    for (const [n, hunk] of diffHunks(diffs[i] ?? []).entries()) {
      const r = hunk.range;
      out.push({
        path: change.path,
        index: n + 1,
        old_start: headerStart(r.oldStart, r.oldCount),
        old_lines: r.oldCount,
        new_start: headerStart(r.newStart, r.newCount),
        new_lines: r.newCount,
        state: states.get(`${change.path}\0${n + 1}`) ?? "pending",
      });
    }
  }
  return out;
}

/**
 * A hunk of a turn's diff of a file: where it sits, the lines it removed (without their `-`), what
 * an undo brings back, and the lines the turn changed (`changed`, what its notes name).
 */
export type TurnHunk = { readonly range: HunkRange; readonly removed: readonly string[]; readonly changed: ChangedLines };

/** The lines a hunk changed in the file as the turn left it: 1-based; `count` 0: lines removed after line `start`. */
export type ChangedLines = { readonly start: number; readonly count: number };

/**
 * The lines hunk `range` (body `lines`) changed in the file as the turn left it: its range without
 * the context lines git puts before and after the change (3 each), so a note says "line 5", not
 * "lines 2-8".
 */
export function changedLines(range: HunkRange, lines: readonly string[]): ChangedLines {
  const body = lines.filter((l) => !l.startsWith("\\")); // "\ No newline at end of file" is no line
  const isContext = (l: string) => !l.startsWith("+") && !l.startsWith("-");
  const lead = body.findIndex((l) => !isContext(l));
  if (lead === -1) return { start: headerStart(range.newStart, range.newCount), count: range.newCount };
  const last = body.findLastIndex((l) => !isContext(l));
  const count = body.slice(lead, last + 1).filter((l) => !l.startsWith("-")).length;
  // range.newStart is the line before the hunk's first (0 when it begins the file).
  return count === 0 ? { start: range.newStart + lead, count } : { start: range.newStart + lead + 1, count };
}

/** Hunk `index` (from 1) of `diff`, the turn's diff of `path`, refused clearly when it has no such hunk. */
export function turnHunk(diff: readonly string[], path: string, index: number): TurnHunk {
  const hunks = diffHunks(diff);
  const range = hunks[index - 1]?.range;
  if (index < 1 || !range) {
    const has = hunks.length === 0 ? "no hunk (a binary file)" : `${hunks.length} hunk${hunks.length === 1 ? "" : "s"}`;
    throw new Error(`tine: review: the turn's diff of ${path} has ${has}: there is no hunk ${index}`);
  }
  // Its lines run from its header (the index-th) to the next header.
  const starts = diff.flatMap((l, i) => (l.startsWith("@@") ? [i] : []));
  const lines = diff.slice(starts[index - 1]! + 1, starts[index] ?? diff.length);
  return { range, removed: lines.filter((l) => l.startsWith("-")).map((l) => l.slice(1)), changed: changedLines(range, lines) };
}

/** The range as it reads the other way: undoing a hunk makes its new lines the old ones again. */
export const reversed = (r: HunkRange): HunkRange => ({
  oldStart: r.newStart,
  oldCount: r.newCount,
  newStart: r.oldStart,
  newCount: r.oldCount,
});
