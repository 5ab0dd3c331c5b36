/**
 * What the display shows of a thread's code snapshots: the change list under each reply that
 * ended a turn which changed files, with the details the user expanded. Derived from the thread's
 * marks, once per change of its marks or history.
 */
import type { Thread } from "../chat/thread.ts";
import { type ThreadMark, validMarks } from "../core/code-marks.ts";
import type { History } from "../core/history.ts";
import type { ChangeList } from "./change-list.ts";

/** The detail key of a change list (its files shown), and of one file's diff. */
export const changeListKey = (message: number) => `${message}:files`;
export const fileDiffKey = (message: number, path: string) => `${message}:file:${path}`;

const memo = new WeakMap<Thread, { code: readonly ThreadMark[]; history: History; byMessage: Map<number, ThreadMark> }>();

/** The marks that ended a turn with changes, by the message (the turn's last) they show under. */
export function turnChanges(thread: Thread): ReadonlyMap<number, ThreadMark> {
  const history = thread.runner.history;
  const seen = memo.get(thread);
  if (seen && seen.code === thread.code && seen.history === history) return seen.byMessage;
  const byMessage = new Map<number, ThreadMark>();
  for (const m of validMarks(thread.code, history))
    if (m.at > 0 && m.turn && (m.turn.files.length || m.skipped.length)) byMessage.set(m.at - 1, m);
  memo.set(thread, { code: thread.code, history, byMessage });
  return byMessage;
}

/** The change list under message `index`, as the user left it expanded, or undefined. */
export function changeListAt(thread: Thread, index: number): ChangeList | undefined {
  const mark = turnChanges(thread).get(index);
  if (!mark?.turn) return undefined;
  const diffs = new Map<string, readonly string[]>();
  for (const f of mark.turn.files) {
    const key = fileDiffKey(index, f.path);
    const lines = thread.expanded.has(key) ? thread.fileDiffs.get(key) : undefined;
    if (lines) diffs.set(f.path, lines);
  }
  return { files: mark.turn.files, skipped: mark.skipped, open: thread.expanded.has(changeListKey(index)), diffs };
}

/** Every path the thread's turns changed, in the order first changed. */
export function changedFiles(thread: Thread): string[] {
  const paths = new Set<string>();
  for (const mark of [...turnChanges(thread).values()].sort((a, b) => a.at - b.at))
    for (const f of mark.turn?.files ?? []) paths.add(f.path);
  return [...paths];
}
