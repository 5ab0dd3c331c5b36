/**
 * What of a thread goes to disk (sync.ts's `Snapshot`), taken three ways: from a live thread at
 * each sync, from a transcript as it was read (a recorder opened on it continues from what the file
 * holds), and the base of a new file (empty, or a fork's source as written so far: the records from
 * there on say how the fork differs). When and where it is written is persistence.ts.
 */
import { storedQueued } from "../chat/send-queue.ts";
import type { Thread } from "../chat/thread.ts";
import type { ThreadMark } from "../core/code-marks.ts";
import { History } from "../core/history.ts";
import type { LogState } from "./replay.ts";
import type { Snapshot } from "./sync.ts";

const NOTHING_OPEN: readonly never[] = [];
const NO_REPORTS: readonly never[] = [];
const NO_MARKS: readonly never[] = [];
const NO_QUEUE: readonly never[] = [];

/** What of a live thread goes to disk now. */
export function snapshotOf(thread: Thread): Snapshot {
  const open = thread.runner.open;
  const inProgress = open?.inProgress;
  // Made anew on each read (an ACP runner's): read once per snapshot, which each streamed update takes.
  const spec = thread.runner.spec;
  return {
    history: thread.runner.history,
    settledLength: thread.runner.settledLength,
    open: open?.finalized ?? NOTHING_OPEN,
    streamed: inProgress?.type === "text" ? inProgress.text : "",
    results: thread.finishedResults(),
    started: thread.startedTools(),
    failed: thread.runner.status.type === "error" ? thread.runner.status.message : null,
    title: thread.title,
    model: spec.model ?? null,
    settings: spec.settings ?? null,
    reports: thread.reports,
    grafts: thread.grafts,
    queue: thread.queue.items.length ? thread.queue.items.map((i) => storedQueued(i.msg)) : NO_QUEUE,
    code: thread.code,
    labels: thread.labels,
    side: thread.side,
  };
}

/** What a stored thread's file holds, as read: where a recorder opened on it starts. */
export function writtenSnapshot(raw: LogState): Snapshot {
  return {
    history: raw.history,
    open: raw.open,
    streamed: raw.streamed,
    results: raw.results,
    started: raw.started,
    failed: raw.failed,
    title: raw.title,
    model: raw.model,
    settings: raw.settings,
    reports: raw.reports,
    grafts: raw.grafts,
    queue: raw.queue,
    code: raw.code,
    labels: raw.labels,
    side: raw.side,
  };
}

/**
 * What a new file holds once its header is written: nothing of its own yet, and a fork's `source`
 * (its parent's log as written when the file is made) as the history and code marks it starts from.
 */
export function newFileSnapshot(
  title: string,
  source: { readonly history: History; readonly code: readonly ThreadMark[] } | null,
): Snapshot {
  return {
    history: source?.history ?? History.empty,
    open: NOTHING_OPEN,
    streamed: "",
    results: new Map(),
    title,
    reports: NO_REPORTS,
    queue: NO_QUEUE,
    code: source?.code ?? NO_MARKS,
  };
}
