/**
 * Between the live threads and the store: which thread writes to which transcript, where a fork
 * points, and the sync after each batch of dispatched messages. The chat never calls this; the
 * host does, at the edges (a thread created, opened, deleted; a batch handled; exit).
 *
 * A write that fails (a full or read-only disk) never stops a thread: it works on in memory, is
 * shown not saved and why (`notSaved`), and its whole difference is written again later (the host
 * wakes the store at `nextWake`). A thread is pending until its file exists. A fork's end mark,
 * which takes its content out of the tree, is written only once every other thread is saved, so
 * what a promote or a report moved into the parent is on disk before the fork leaves.
 *
 * Over 300 lines: one class holds which live thread writes to which transcript, and the order of
 * those writes (files made late, failed writes, fork ends after everything else); what is not
 * about that order lives beside it: the listing of what is stored (listing.ts), what of a thread
 * is written (thread-snapshot.ts), when streamed text is due (streamed-wake.ts), changes to
 * threads not loaded here (stored-edits.ts), failure bookkeeping (save-failures.ts), the words
 * for a failure (write-failure.ts).
 */

import type { Changes, Chat } from "../chat/chat.ts";
import type { ForkEnd, StoredSource } from "../chat/msgs.ts";
import type { Thread } from "../chat/thread.ts";
import type { ThreadMark } from "../core/code-marks.ts";
import type { History } from "../core/history.ts";
import type { ThreadId } from "../core/ids.ts";
import { assertUnreachable } from "../util/assert-unreachable.ts";
import { StoreListing } from "./listing.ts";
import type { ChangeRecord, Header, ParentPointer } from "./records.ts";
import { SaveFailures, type SaveNotice } from "./save-failures.ts";
import type { LoadedThread, ThreadStore } from "./store.ts";
import { StoredEdits } from "./stored-edits.ts";
import { StreamedWake } from "./streamed-wake.ts";
import { type Snapshot, ThreadRecorder } from "./sync.ts";
import type { Tail } from "./tail.ts";
import { newFileSnapshot, snapshotOf, writtenSnapshot } from "./thread-snapshot.ts";
import { writeFailure } from "./write-failure.ts";

/** Where a fork taken now would point, and the history (and code marks) that position holds. */
type Anchor = { readonly records: number; readonly history: History; readonly code: readonly ThreadMark[] };

/** How a live thread's file comes to be open for writing, while it is not. */
type Unopened =
  /** A new thread: a root's file is made on its first content, a fork's at once; `under`: the thread it hangs under (a fork points into its log). */
  | { readonly how: "create"; readonly under: ThreadId | null }
  /** A stored thread opened while its file could not be opened for writing: opened again, as it was read. */
  | { readonly how: "reopen"; readonly records: number; readonly written: Snapshot };

/** A fork that ended, until its end is marked in its log: its last state and the mark. */
type Ending = { readonly thread: Thread; readonly last: Snapshot; readonly mark: ChangeRecord };

const withWorktree = (worktree: Header["worktree"] | undefined) => (worktree ? { worktree } : {});
const withFanOut = (fanOut: Header["fanOut"] | undefined) => (fanOut ? { fanOut } : {});

export class Persistence {
  private readonly streamedWake = new StreamedWake();
  private readonly recorders = new Map<ThreadId, ThreadRecorder>();
  /** Threads not written by us (read-only here, or stored): what their log held when read. */
  private readonly anchors = new Map<ThreadId, Anchor>();
  /** Live threads of ours whose file is not open yet (see `Unopened`). */
  private readonly unopened = new Map<ThreadId, Unopened>();
  private readonly ending = new Map<ThreadId, Ending>();
  private readonly failures: SaveFailures;
  private readonly listing: StoreListing;
  private readonly storedEdits: StoredEdits;
  private readonly synced = new Map<ThreadId, number>();
  /** Last change per live thread, for the list. */
  readonly updated = new Map<ThreadId, number>();

  constructor(
    readonly store: ThreadStore,
    private readonly model: string,
    /** The store's time (streamed text written now and then, failed writes tried again): injectable for tests. */
    private readonly clock: { now(): number } = Date,
  ) {
    this.failures = new SaveFailures(clock);
    this.listing = new StoreListing(store);
    this.storedEdits = new StoredEdits(store, (id) => this.recorders.has(id));
  }

  /** The worktree a thread works in, kept in its header (a restart finds it again); undefined: the project's folder. */
  worktreeOf: (id: ThreadId) => Header["worktree"] | undefined = () => undefined;

  /** A fan-out fork's place in its fan-out, kept in its header (a restart groups it again); undefined: none. */
  fanOutOf: (id: ThreadId) => Header["fanOut"] | undefined = () => undefined;

  /** A fan-out fork's check ended (null: cleared by a later turn): kept in its log, written now with what else changed. */
  checked(chat: Chat, id: ThreadId, result: Extract<ChangeRecord, { t: "check" }>["result"]): void {
    const rec = this.recorders.get(id);
    const thread = chat.threads.get(id);
    // Not ours to write (read-only here), or not yet made: its check is shown, not kept.
    if (!rec || !thread) return;
    rec.enqueue([{ t: "check", result }]);
    this.syncOne(thread, chat, true);
  }

  /** What is on disk for this project, as the chat takes it (listing.ts). */
  scan() {
    return this.listing.scan();
  }

  /** For `:Tine threads!`: this project's forks that ended and every other project's threads (listing.ts). */
  everyProject() {
    return this.listing.everyProject();
  }

  /** What `:checkhealth tine` reports of the store, and the transcripts it could not read (listing.ts). */
  health() {
    return this.listing.health();
  }

  /**
   * Reads a stored thread for opening: with a writer, or read-only when another instance writes
   * it. A file that cannot be opened for writing (a read-only disk) still loads: the thread is
   * not being saved until it can be.
   */
  open(id: ThreadId): { loaded: LoadedThread; readOnlyBy: number | null } {
    const loaded = this.store.load(id);
    // Its last activity is its file's last write until it changes here (the list shows it).
    if (!this.updated.has(id)) this.updated.set(id, this.store.modifiedAt(id));
    const written = writtenSnapshot(loaded.raw);
    let writer: ReturnType<ThreadStore["openWriter"]>;
    try {
      writer = this.store.openWriter(id, loaded.records);
    } catch (error) {
      this.unopened.set(id, { how: "reopen", records: loaded.records, written });
      this.failures.failed(id, loaded.raw.title, this.why(error));
      return { loaded, readOnlyBy: null };
    }
    if ("busy" in writer) {
      this.anchors.set(id, { records: loaded.records, history: loaded.raw.history, code: loaded.raw.code });
      return { loaded, readOnlyBy: writer.busy };
    }
    this.anchors.delete(id); // read-only here before: written here from now on
    this.recorders.set(id, new ThreadRecorder(writer, written, this.clock));
    return { loaded, readOnlyBy: null };
  }

  /** The last messages of stored thread `id`, read from its end alone, or null when it has to be read whole (see tail.ts). */
  tail(id: ThreadId, minBytes: number): Tail | null {
    try {
      return this.store.tail(id, minBytes);
    } catch {
      return null; // the whole read says what is wrong
    }
  }

  /** A stored thread that is not loaded, as a fork taken from it starts: its history and how it runs. */
  storedSource(id: ThreadId): StoredSource {
    const loaded = this.store.load(id);
    this.anchors.set(id, { records: loaded.records, history: loaded.raw.history, code: loaded.raw.code });
    return { history: loaded.history, runner: loaded.runner, code: loaded.raw.code };
  }

  /** The code snapshots of a stored thread's messages, as its transcript holds them (and the history they fit). */
  storedCode(id: ThreadId): { code: readonly ThreadMark[]; history: History } {
    const { raw } = this.store.load(id);
    return { code: raw.code, history: raw.history };
  }

  /** A thread appeared in the chat: a new root waits for content, a fork is written at once. */
  created(thread: Thread, chat: Chat, how: { under?: ThreadId; loaded?: boolean }): void {
    // Opened from disk: its writer (if this instance may write it) was set up by `open`.
    if (how.loaded) return;
    this.unopened.set(thread.id, { how: "create", under: how.under ?? null });
    if (how.under !== undefined) this.syncOne(thread, chat, true);
  }

  /** Where a fork of `id` taken now points: its log as written so far (synced first). */
  private anchorOf(id: ThreadId, chat: Chat): Anchor | null {
    const live = chat.threads.get(id);
    if (live && (this.recorders.has(id) || this.unopened.has(id))) this.syncOne(live, chat, true);
    const rec = this.recorders.get(id);
    if (rec) return { records: rec.records, history: rec.writtenHistory, code: rec.writtenCode };
    return this.anchors.get(id) ?? null;
  }

  /**
   * Writes what changed in each live thread since the last sync (after each batch of messages:
   * no clock is read). Woken (`wokenAt`: the host's timer at `nextWake`, or Infinity when it
   * exits), it also writes what is due by then: streamed text that has waited long enough, and
   * the writes of threads not being saved. Then the end marks of forks that ended.
   */
  sync(chat: Chat, wokenAt: number | null = null, changes?: Changes): void {
    const by = wokenAt ?? Number.NEGATIVE_INFINITY;
    // Woken, or writes made outside this walk (a fork's anchor, a failure), may have changed what is due.
    if (wokenAt !== null) this.streamedWake.stale();
    // After a batch of messages only the threads it changed can differ from their files; woken,
    // or after a change to the tree, every live thread is looked at.
    const threads =
      wokenAt === null && changes && !changes.tree ? changes.threads.map((id) => chat.threads.get(id)) : chat.threads.values();
    for (const thread of threads) {
      if (!thread) continue;
      const id = thread.id;
      const streamedDue = (this.recorders.get(id)?.streamedDueAt ?? Number.POSITIVE_INFINITY) <= by;
      const due = this.failures.has(id) ? this.failures.due(id, by) : this.synced.get(id) !== thread.version || streamedDue;
      if (!due) continue;
      this.synced.set(id, thread.version);
      this.syncOne(thread, chat, false, snapshotOf(thread), streamedDue);
      this.streamedWake.noted(id, this.recorders.get(id)?.streamedDueAt ?? null);
    }
    for (const id of this.ending.keys()) this.finishEnding(id, chat, by);
  }

  /** When the store next has something to do without being asked (the host wakes it then), or null. */
  nextWake(): number | null {
    const retry = this.failures.nextRetry();
    // A thread not being saved waits for its retry, streamed text and all.
    const due = this.streamedWake.next((id) => (this.failures.has(id) ? null : (this.recorders.get(id)?.streamedDueAt ?? null)));
    return retry === null ? due : due === null ? retry : Math.min(retry, due);
  }

  /** Why a live thread's latest state is not on disk, or undefined when it is (or is not ours to write). */
  notSaved(id: ThreadId): string | undefined {
    return this.failures.why(id);
  }

  /** Threads that stopped being saved, or are saved again, since the last call: for the user. */
  takeNotices(): SaveNotice[] {
    return this.failures.take();
  }

  private why(error: unknown): string {
    return writeFailure(error, this.store.dataDir, this.store.dir);
  }

  /** Writes `thread`'s difference (making or opening its file first); a failure marks it not saved. */
  private syncOne(thread: Thread, chat: Chat, force: boolean, now: Snapshot = snapshotOf(thread), streamedDue = false): void {
    try {
      const made = !this.recorders.has(thread.id);
      const rec = this.recorderOf(thread, chat, force, now);
      if (!rec) return;
      const before = rec.records;
      rec.sync(now, streamedDue);
      // A file just made is a change too: a fork whose file only points at its source's (the old
      // tail a promote moves) would otherwise show no time until a restart read its file's.
      if (rec.records !== before || (made && !this.updated.has(thread.id))) this.updated.set(thread.id, this.clock.now());
      this.failures.saved(thread.id);
    } catch (error) {
      this.failures.failed(thread.id, thread.title, this.why(error));
    }
  }

  /** The thread's recorder, its file made or opened first; null while a root has nothing to store, or it is not ours. */
  private recorderOf(thread: Thread, chat: Chat, force: boolean, now: Snapshot): ThreadRecorder | null {
    const existing = this.recorders.get(thread.id);
    if (existing) return existing;
    const unopened = this.unopened.get(thread.id);
    if (!unopened) return null;
    let rec: ThreadRecorder;
    switch (unopened.how) {
      case "create": {
        const empty = now.history.length === 0 && now.open.length === 0 && !now.streamed;
        if (unopened.under === null && !force && empty && !thread.runner.traits.storedAtOnce) return null;
        rec = this.createFile(thread, chat, unopened.under);
        break;
      }
      case "reopen": {
        const writer = this.store.openWriter(thread.id, unopened.records);
        if ("busy" in writer) throw new Error(`it is open for writing in another Neovim (pid ${writer.busy})`);
        rec = new ThreadRecorder(writer, unopened.written, this.clock);
        break;
      }
      default:
        return assertUnreachable(unopened);
    }
    this.unopened.delete(thread.id);
    this.recorders.set(thread.id, rec);
    return rec;
  }

  /**
   * Makes a thread's file. A fork points at its source's log as written now (when its first try
   * failed, that is later than the fork: the records from there on say how it differs); without
   * a source log its file holds all of it. A hand-off shares nothing of its source's log: only
   * its place in the tree.
   */
  private createFile(thread: Thread, chat: Chat, under: ThreadId | null): ThreadRecorder {
    const lineage = chat.lineage.get(thread.id);
    // A hand-off or a compaction holds a history of its own: only its place in the tree points up.
    const ownHistory = under !== null && lineage !== undefined && lineage.relation !== "fork" ? lineage.relation : null;
    const anchor = under === null || ownHistory ? null : this.anchorOf(under, chat);
    const parent: ParentPointer | null = ownHistory
      ? { relation: ownHistory, id: under!, atMessage: lineage!.atMessage }
      : under !== null && anchor
        ? { relation: "fork", id: under, records: anchor.records, atMessage: lineage?.atMessage ?? 0, messages: anchor.history.length }
        : null;
    const log = this.store.create({
      id: thread.id,
      num: thread.num,
      title: thread.title,
      model: this.model,
      parent,
      ...(thread.origin ? { origin: thread.origin } : {}),
      ...withWorktree(this.worktreeOf(thread.id)),
      ...withFanOut(this.fanOutOf(thread.id)),
      runner: thread.runner.spec,
    });
    return new ThreadRecorder(log, newFileSnapshot(thread.title, anchor), this.clock);
  }

  /** Renames a stored thread that is not loaded here (stored-edits.ts, as are the next three). */
  renameStored(id: ThreadId, title: string): void {
    this.storedEdits.rename(id, title);
  }

  /** A stored thread's own label ("" removes it). */
  labelStored(id: ThreadId, text: string): void {
    this.storedEdits.label(id, text);
  }

  /** A fork reported to a parent that is not loaded: the report waits in the parent's log. */
  reportToStored(id: ThreadId, report: { from: string; text: string }): void {
    this.storedEdits.report(id, report);
  }

  /** An ended fork comes back into the tree, as stored. */
  restore(id: ThreadId): void {
    this.storedEdits.restore(id);
  }

  /** A promote moved `parentId`'s old tail to `siblingId` (its log, up to now, is that tail). */
  branched(parentId: ThreadId, siblingId: ThreadId, atMessage: number): void {
    const rec = this.recorders.get(parentId);
    // Written with the parent's next sync, just before its new history.
    rec?.enqueue([{ t: "branched", to: siblingId, after: atMessage, upTo: rec.records }]);
  }

  /**
   * A fork ended (it is still in the chat; the parent already holds what it took: the fork's
   * history, or its report). Every changed thread is written first, then the fork is marked ended
   * (kept, so `:Tine threads!` can restore it) and its writer closed; while a write fails, the mark
   * waits, and until it is written the fork is still in the tree on disk.
   */
  ended(chat: Chat, fork: Thread, how: ForkEnd, into?: ThreadId): void {
    // At rest by now (a fork that was not is aborted first): nothing streams any more.
    this.ending.set(fork.id, { thread: fork, last: snapshotOf(fork), mark: into ? { t: "ended", how, into } : { t: "ended", how } });
    this.sync(chat);
  }

  private finishEnding(id: ThreadId, chat: Chat, by: number): void {
    const e = this.ending.get(id);
    if (!e || (this.failures.has(id) && !this.failures.due(id, by))) return;
    // Its own last state may go at any time; the mark, which takes its content out of the tree,
    // only once it and every other thread are saved.
    this.syncOne(e.thread, chat, true, e.last);
    if (this.failures.has(id) || this.failures.anyBut(id)) return;
    const rec = this.recorders.get(id);
    // Without a recorder the fork is not ours to write (read-only here): nothing to mark.
    if (rec) {
      try {
        rec.append([e.mark]);
      } catch (error) {
        this.failures.failed(id, e.thread.title, this.why(error));
        return;
      }
      rec.close();
      this.recorders.delete(id);
    }
    this.ending.delete(id);
    this.unopened.delete(id);
  }

  delete(id: ThreadId): void {
    this.unopened.delete(id);
    this.ending.delete(id);
    this.failures.forget(id);
    this.recorders.get(id)?.close();
    this.recorders.delete(id);
    this.anchors.delete(id);
    try {
      this.store.delete(id);
    } catch (error) {
      // Never written (an empty thread): nothing on disk to delete.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }

  /** Neovim quits while these threads work: each log says its turn was cut there (after `sync`, before `close`). */
  interrupted(ids: readonly ThreadId[]): void {
    for (const id of ids) {
      try {
        this.recorders.get(id)?.append([{ t: "interrupted" }]);
      } catch {
        // On the way out: the thread still reads as cut off from its open turn.
      }
    }
  }

  /** Releases every lock (the host is exiting). `sync(chat, Infinity)` first writes what waits. */
  close(): void {
    for (const rec of this.recorders.values()) rec.close();
    this.recorders.clear();
  }
}
