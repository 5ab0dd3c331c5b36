/**
 * Keeps a thread's transcript in step with its state. After each batch of dispatched messages
 * the host hands every changed thread's state here; the difference from what was last written
 * becomes records. Histories are immutable and share their entries, so the difference is found
 * by identity, walking back from the end: a streamed delta costs a few comparisons and writes
 * nothing; a finished block is one record. The text of a block still streaming is written when
 * it is due (`streamedDueAt`: it has waited `streamedEveryMs`; the host wakes the store then),
 * so a kill loses at most that much of it; the clock is read once per wait, never per delta.
 * A turn drawn as entries made again with each update (an ACP agent's: the history past
 * `settledLength`) waits the same way: written whole with each update, a turn of a thousand
 * updates would write its growing tail a thousand times.
 */
import { type Labels, NO_LABELS, sameLabels } from "../chat/labels.ts";
import { type AgentChoices, sameChoices } from "../core/agent-choices.ts";
import type { ThreadMark } from "../core/code-marks.ts";
import type { CodeNote } from "../core/graft-note.ts";
import type { History } from "../core/history.ts";
import { type ModelChoice, sameChoice } from "../core/model-choice.ts";
import type { AssistantBlock, ToolResultBlock } from "../core/native.ts";
import type { SideRequest } from "../core/side-request.ts";
import { appendAll } from "../util/arrays.ts";
import { toCodeRecord } from "./code-record.ts";
import type { LogWriter } from "./log-writer.ts";
import type { ChangeRecord, StoredQueued } from "./records.ts";
import { reportRecord } from "./report-record.ts";

/** How long streamed text may wait before it is written: at most one `streamed` record per thread this often. */
export const STREAMED_TEXT_EVERY_MS = 1000;

/** What of a thread goes to disk. */
export type Snapshot = {
  readonly history: History;
  /** How many of `history`'s entries are final (absent: all): the rest is a turn still streaming (RunnerCore.settledLength). */
  readonly settledLength?: number;
  /** Finished blocks of the turn being streamed. */
  readonly open: readonly AssistantBlock[];
  /** The text of the text block being streamed after them ("" for none). */
  readonly streamed: string;
  /** Results of tools that finished while others of their turn run. */
  readonly results: ReadonlyMap<string, ToolResultBlock>;
  /** Tool calls of the last reply that began to run (none when left out). */
  readonly started?: ReadonlySet<string>;
  /** The error its last request failed with (none when left out: it did not fail). */
  readonly failed?: string | null;
  readonly title: string;
  /** Its own model choice (none when left out: setup's). */
  readonly model?: ModelChoice | null;
  /** What the user chose of its program's settings (none when left out). */
  readonly settings?: AgentChoices | null;
  /** Fork reports queued for the next user turn. */
  readonly reports: readonly { readonly from: string; readonly text: string }[];
  /** Forks' changes grafted into its files, told with the next user turn (none when left out). */
  readonly grafts?: readonly CodeNote[];
  /** Messages the user sent while the agent worked, waiting (none when left out). */
  readonly queue?: readonly StoredQueued[];
  /** The code snapshots its messages were made on (they only grow); none when absent. */
  readonly code?: readonly ThreadMark[];
  /** The user's labels (none when left out). */
  readonly labels?: Labels;
  /** Requests billed beside its entries (usage/side.ts; they only grow); none when left out. */
  readonly side?: readonly SideRequest[];
};

/** The records that turn labels `a` into `b`: one per label put, changed or removed. */
function labelRecords(a: Labels = NO_LABELS, b: Labels = NO_LABELS): ChangeRecord[] {
  if (sameLabels(a, b)) return [];
  const out: ChangeRecord[] = [];
  if (a.thread !== b.thread) out.push({ t: "label", text: b.thread ?? "" });
  for (const [message, text] of b.messages) if (a.messages.get(message) !== text) out.push({ t: "label", message, text });
  for (const message of a.messages.keys()) if (!b.messages.has(message)) out.push({ t: "label", message, text: "" });
  return out;
}

/** Whether two queues hold the same messages (a thread's is made anew for each snapshot: compared by content). */
const sameQueue = (a: readonly StoredQueued[] = [], b: readonly StoredQueued[] = []) =>
  a.length === b.length &&
  a.every((q, i) => {
    const other = b[i]!;
    const blocks = q.context ?? [];
    const otherBlocks = other.context ?? [];
    return (
      q.text === other.text &&
      Boolean(q.now) === Boolean(other.now) &&
      blocks.length === otherBlocks.length &&
      blocks.every((block, j) => block === otherBlocks[j])
    );
  });

const NO_MARKS: readonly ThreadMark[] = [];
const NO_GRAFTS: readonly CodeNote[] = [];
const NO_SIDE: readonly SideRequest[] = [];
const NONE_STARTED: ReadonlySet<string> = new Set();

const sameIds = (a: ReadonlySet<string> = NONE_STARTED, b: ReadonlySet<string> = NONE_STARTED) =>
  a.size === b.size && [...a].every((id) => b.has(id));

/**
 * Whether `now`'s history differs from `written`'s at most in a tail still streaming: the same
 * final entries (their last one the same object: histories share their entries, and a change of
 * an earlier one makes every later one anew) and only the streaming entries after them changed.
 */
function onlyStreamingMoved(written: Snapshot, now: Snapshot): boolean {
  const settled = now.settledLength;
  if (now.history === written.history) return true;
  if (settled === undefined || settled !== written.settledLength) return false;
  if (settled > written.history.length || settled > now.history.length) return false;
  return settled === 0 || written.history.at(settled - 1) === now.history.at(settled - 1);
}

/** The records that turn `written` into `now`. */
export function diff(written: Snapshot, now: Snapshot): ChangeRecord[] {
  const out: ChangeRecord[] = [];
  let open = written.open;
  let results: ReadonlySet<string> = new Set(written.results.keys());
  let started: ReadonlySet<string> = written.started ?? NONE_STARTED;
  if (now.history !== written.history) {
    let common = Math.min(written.history.length, now.history.length);
    while (common > 0 && written.history.at(common - 1) !== now.history.at(common - 1)) common--;
    if (common < written.history.length) out.push({ t: "truncate", n: common });
    for (const e of now.history.entries(common))
      out.push(e.message.role === "assistant" && e.meta ? { t: "append", m: e.message, meta: e.meta } : { t: "append", m: e.message });
    if (out.length) {
      open = [];
      results = new Set();
      started = NONE_STARTED;
    }
  }
  let common = Math.min(open.length, now.open.length);
  for (let i = 0; i < common; i++) if (open[i] !== now.open[i]) common = i;
  if (common < open.length) out.push({ t: "open", n: common });
  for (const b of now.open.slice(common)) out.push({ t: "block", b });
  // Each record so far ends or changes the open turn, and so drops the streamed text (and a failure) on disk.
  const turnChanged = out.length > 0;
  const streamed = turnChanged ? "" : written.streamed;
  if (now.streamed !== streamed)
    out.push(
      now.streamed.startsWith(streamed)
        ? { t: "streamed", at: streamed.length, text: now.streamed.slice(streamed.length) }
        : { t: "streamed", at: 0, text: now.streamed },
    );
  for (const id of now.started ?? NONE_STARTED) if (!started.has(id)) out.push({ t: "started", id });
  for (const [id, r] of now.results) if (!results.has(id)) out.push({ t: "result", r });
  if ((now.code ?? NO_MARKS) !== (written.code ?? NO_MARKS)) {
    // After the history they follow: a replayed mark attaches to the entry before it.
    const had = new Set(written.code);
    for (const m of now.code ?? NO_MARKS) if (!had.has(m)) out.push(toCodeRecord(m));
  }
  const failed = turnChanged ? null : (written.failed ?? null);
  if (now.failed && now.failed !== failed) out.push({ t: "failed", error: now.failed });
  if (now.title !== written.title) out.push({ t: "title", title: now.title });
  const model = now.model ?? null;
  if (model && !sameChoice(model, written.model ?? null)) out.push({ t: "model", model: model.model, effort: model.effort });
  const settings = now.settings ?? null;
  if (settings && !sameChoices(settings, written.settings ?? null)) out.push({ t: "settings", settings });
  if (now.reports !== written.reports) {
    // Queued reports only grow, until a user turn takes them all.
    const kept = now.reports.length >= written.reports.length && written.reports.every((r, i) => now.reports[i] === r);
    if (!kept) out.push({ t: "reports-sent" });
    for (const r of now.reports.slice(kept ? written.reports.length : 0)) out.push(reportRecord(r));
  }
  const [grafts, wroteGrafts] = [now.grafts ?? NO_GRAFTS, written.grafts ?? NO_GRAFTS];
  if (grafts !== wroteGrafts) {
    // As reports: they only grow, until a user turn takes them all.
    const kept = grafts.length >= wroteGrafts.length && wroteGrafts.every((g, i) => grafts[i] === g);
    if (!kept) out.push({ t: "grafts-sent" });
    for (const note of grafts.slice(kept ? wroteGrafts.length : 0)) out.push({ t: "graft", note });
  }
  appendAll(out, labelRecords(written.labels, now.labels));
  // Side requests only grow: the new ones.
  const side = written.side ?? NO_SIDE;
  for (const request of (now.side ?? NO_SIDE).slice(side.length)) out.push({ t: "side", request });
  if (!sameQueue(written.queue, now.queue)) out.push({ t: "queue", items: now.queue ?? [] });
  return out;
}

/** One thread's writer and what it has written. */
export class ThreadRecorder {
  /** Records that are not a change of the thread's state (a promote's `branched`): written first at the next sync. */
  private queued: ChangeRecord[] = [];
  /** Since when the streamed text has been ahead of the log, or null. */
  private streamedSince: number | null = null;

  constructor(
    private readonly log: LogWriter,
    private written: Snapshot,
    private readonly clock: { now(): number } = Date,
    private readonly streamedEveryMs = STREAMED_TEXT_EVERY_MS,
  ) {}

  get records(): number {
    return this.log.records;
  }

  /** When the streamed text the log does not hold yet is due to be written, or null. */
  get streamedDueAt(): number | null {
    return this.streamedSince === null ? null : this.streamedSince + this.streamedEveryMs;
  }

  /** Writes records that are not a change of the thread's state (a fork's end) now; throws if the write fails. */
  append(records: ChangeRecord[]): void {
    this.log.append(records);
  }

  /** Records that are not a change of the thread's state, written with the next sync (kept until a write takes them). */
  enqueue(records: ChangeRecord[]): void {
    this.queued.push(...records);
  }

  /** The history on disk: a fork taken now starts from it. */
  get writtenHistory(): History {
    return this.written.history;
  }

  /** The code marks on disk, for the same fork. */
  get writtenCode(): readonly ThreadMark[] {
    return this.written.code ?? NO_MARKS;
  }

  /**
   * Writes what changed. `now.open` may be the agent's live array: it is copied when written. A
   * write that fails throws and changes nothing: the next sync writes the same difference again.
   * When only the streamed text moved, it is written with `streamedDue` only (its wait is over,
   * or the host is exiting); any other change takes it along.
   */
  sync(now: Snapshot, streamedDue = false): void {
    const w = this.written;
    const same =
      onlyStreamingMoved(w, now) &&
      now.open.length === w.open.length &&
      now.open.at(-1) === w.open.at(-1) &&
      now.results.size === w.results.size &&
      sameIds(now.started, w.started) &&
      (now.failed ?? null) === (w.failed ?? null) &&
      now.title === w.title &&
      sameChoice(now.model ?? null, w.model ?? null) &&
      sameChoices(now.settings ?? null, w.settings ?? null) &&
      now.reports === w.reports &&
      (now.grafts ?? NO_GRAFTS) === (w.grafts ?? NO_GRAFTS) &&
      sameQueue(now.queue, w.queue) &&
      (now.code ?? NO_MARKS) === (w.code ?? NO_MARKS) &&
      sameLabels(now.labels ?? NO_LABELS, w.labels ?? NO_LABELS) &&
      (now.side ?? NO_SIDE) === (w.side ?? NO_SIDE) &&
      this.queued.length === 0;
    if (same) {
      if (now.streamed === w.streamed && now.history === w.history) {
        this.streamedSince = null;
        return;
      }
      // Only what streams moved: its wait starts (one clock read), and it is written when due.
      this.streamedSince ??= this.clock.now();
      if (!streamedDue) return;
    }
    this.log.append([...this.queued, ...diff(w, now)]);
    this.queued = [];
    this.written = { ...now, open: now.open.slice() };
    this.streamedSince = null;
  }

  close(): void {
    this.log.close();
  }
}
