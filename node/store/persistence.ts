/**
 * Between the live threads and the store: which thread writes to which transcript, where a fork
 * points, and the sync after each batch of dispatched messages. The chat never calls this; the
 * host does, at the edges (a thread created, opened, deleted; a batch handled; exit).
 */
import type { Chat } from "../chat/chat.ts";
import type { ForkEnd, StoredThread, ThreadId } from "../chat/msgs.ts";
import type { Thread } from "../chat/thread.ts";
import { History } from "../providers/history.ts";
import type { ChangeRecord, ParentPointer } from "./records.ts";
import type { LoadedThread, ThreadStore, Unreadable } from "./store.ts";
import type { ThreadSummary } from "./summary.ts";
import { type Snapshot, ThreadRecorder } from "./sync.ts";

/** Where a fork taken now would point, and the history that position holds. */
type Anchor = { readonly records: number; readonly history: History };

const NOTHING_OPEN: readonly never[] = [];
const NO_REPORTS: readonly never[] = [];

/** A thread of another project, as `:Tine threads!` lists it. */
export type OtherThread = { id: ThreadId; title: string; parentId: ThreadId | null; messages: number; updated: number };
/** A fork of this project that ended (discarded or reported): restorable. */
export type EndedThread = { id: ThreadId; title: string; messages: number; updated: number };
export type StoreHealth = { persist: boolean; dir: string | null; threads: number; unreadable: string[]; problems: string[] };

export function toStoredThread(s: ThreadSummary, busyBy: number | null): StoredThread {
  return {
    id: s.id,
    num: s.num,
    title: s.title,
    parentId: s.parent?.id ?? null,
    atMessage: s.parent?.atMessage ?? 0,
    created: s.created,
    updated: s.updated,
    messages: s.messages,
    problems: s.problems.length,
    runner: s.runner,
    busyBy,
  };
}

export class Persistence {
  private readonly recorders = new Map<ThreadId, ThreadRecorder>();
  /** Threads not written by us (read-only here, or stored): what their log held when read. */
  private readonly anchors = new Map<ThreadId, Anchor>();
  /** Root threads with nothing to store yet: their file is created on their first change. */
  private readonly pending = new Set<ThreadId>();
  private readonly synced = new Map<ThreadId, number>();
  /** Last change per live thread, for the list. */
  readonly updated = new Map<ThreadId, number>();

  constructor(
    readonly store: ThreadStore,
    private readonly model: string,
  ) {}

  /**
   * What is on disk for this project, as the chat takes it: the tree of threads that are neither
   * deleted nor ended, and (for `:Tine threads!`) the forks that ended. A fork of a fork that was
   * promoted hangs under the thread that took its history.
   */
  scan(): { threads: StoredThread[]; ended: StoredThread[]; unreadable: readonly Unreadable[]; summaries: readonly ThreadSummary[] } {
    const { threads, unreadable } = this.store.list();
    const into = new Map<string, string>();
    for (const t of threads) if (t.ended?.into) into.set(t.id, t.ended.into);
    const parentOf = (id: string | undefined) => {
      let p = id;
      for (let hops = 0; p && into.has(p) && hops < 100; hops++) p = into.get(p);
      return p;
    };
    const byId = new Map(threads.map((t) => [t.id, t]));
    // A fork taken from a parent's old tail, before a promote moved that tail: under the tail.
    const branchedTo = (p: { id: string; records: number; atMessage: number }) =>
      byId.get(p.id)?.branches.find((b) => p.records <= b.upTo && p.atMessage > b.after)?.to;
    const remapped = threads.map((t) => {
      if (!t.parent) return t;
      const moved = branchedTo(t.parent);
      if (moved && moved !== t.id) return { ...t, parent: { ...t.parent, id: moved } };
      return into.has(t.parent.id) ? { ...t, parent: { ...t.parent, id: parentOf(t.parent.id)! } } : t;
    });
    const visible = remapped.filter((t) => !t.deleted && !t.ended);
    const ended = remapped.filter((t) => !t.deleted && t.ended && t.ended.how !== "promoted");
    const stored = (t: ThreadSummary) => toStoredThread(t, this.busyBy(t.id));
    return { threads: visible.map(stored), ended: ended.map((t) => toStoredThread(t, null)), unreadable, summaries: visible };
  }

  /** Who holds a stored thread's lock, read up front so the list shows it busy before it is opened. */
  private busyBy(id: ThreadId): number | null {
    try {
      return this.store.lockedBy(id);
    } catch {
      return null; // a lock that is not a file: opening the thread says so
    }
  }

  /**
   * For `:Tine threads!`: this project's forks that ended (restorable) and every other project's
   * threads, as the list draws them.
   */
  everyProject(): { ended: EndedThread[]; others: { cwd: string; threads: OtherThread[] }[] } {
    const others = this.store
      .listAll()
      .filter((p) => p.cwd !== this.store.cwd)
      .map((p) => ({
        cwd: p.cwd,
        threads: p.threads
          .filter((t) => !t.deleted)
          .map((t) => ({ id: t.id, title: t.title, parentId: t.parent?.id ?? null, messages: t.messages, updated: t.updated })),
      }));
    const ended = this.scan().ended.map((t) => ({ id: t.id, title: t.title, messages: t.messages, updated: t.updated }));
    return { ended, others };
  }

  /** What `:checkhealth tine` reports of the store, and the transcripts it could not read. */
  health(): { health: StoreHealth; unreadable: readonly Unreadable[] } {
    const { threads, unreadable, summaries } = this.scan();
    const problems = summaries.flatMap((s) => s.problems.map((p) => `${s.title} (${s.id}.jsonl) line ${p.line}: ${p.error}`));
    const health = {
      persist: true,
      dir: this.store.dir,
      threads: threads.length,
      unreadable: unreadable.map((u) => `${u.path}: ${u.error}`),
      problems,
    };
    return { health, unreadable };
  }

  /** Reads a stored thread for opening: with a writer, or read-only when another instance writes it. */
  open(id: ThreadId): { loaded: LoadedThread; readOnlyBy: number | null } {
    const loaded = this.store.load(id);
    const writer = this.store.openWriter(id, loaded.records);
    if ("busy" in writer) {
      this.anchors.set(id, { records: loaded.records, history: loaded.raw.history });
      return { loaded, readOnlyBy: writer.busy };
    }
    this.anchors.delete(id); // read-only here before: written here from now on
    this.recorders.set(
      id,
      new ThreadRecorder(writer, {
        history: loaded.raw.history,
        open: loaded.raw.open,
        results: loaded.raw.results,
        title: loaded.raw.title,
        reports: loaded.raw.reports,
      }),
    );
    return { loaded, readOnlyBy: null };
  }

  /** The history of a stored thread that is not loaded, for a fork taken from it. */
  storedSource(id: ThreadId): History {
    const loaded = this.store.load(id);
    this.anchors.set(id, { records: loaded.records, history: loaded.raw.history });
    return loaded.history;
  }

  /** A thread appeared in the chat: a new root waits for content, a fork is written at once. */
  created(thread: Thread, chat: Chat, how: { forkOf?: ThreadId; loaded?: boolean }): void {
    // Opened from disk: its writer (if this instance may write it) was set up by `open`.
    if (how.loaded) return;
    const forkOf = how.forkOf;
    if (forkOf === undefined) {
      this.pending.add(thread.id);
      return;
    }
    const anchor = this.anchorOf(forkOf, chat);
    const lineage = chat.lineage.get(thread.id);
    const parent: ParentPointer | null = anchor
      ? { id: forkOf, records: anchor.records, atMessage: lineage?.atMessage ?? 0, messages: anchor.history.length }
      : null;
    const log = this.store.create({
      id: thread.id,
      num: thread.num,
      title: thread.title,
      model: this.model,
      parent,
      runner: thread.runner.spec,
    });
    // Without a parent log (nothing of the source was stored), the fork's file holds all of it.
    const base: Snapshot = {
      history: anchor?.history ?? History.empty,
      open: NOTHING_OPEN,
      results: new Map(),
      title: thread.title,
      reports: NO_REPORTS,
    };
    this.recorders.set(thread.id, new ThreadRecorder(log, base));
  }

  /** Where a fork of `id` taken now points: its log as written so far (synced first). */
  private anchorOf(id: ThreadId, chat: Chat): Anchor | null {
    const live = chat.threads.get(id);
    if (live && (this.recorders.has(id) || this.pending.has(id))) {
      this.syncOne(live, true);
      const rec = this.recorders.get(id)!;
      return { records: rec.records, history: rec.writtenHistory };
    }
    return this.anchors.get(id) ?? null;
  }

  /** Writes what changed in each live thread since the last sync. */
  sync(chat: Chat): void {
    for (const thread of chat.threads.values()) {
      if (this.synced.get(thread.id) === thread.version) continue;
      this.synced.set(thread.id, thread.version);
      this.syncOne(thread, false);
    }
  }

  private syncOne(thread: Thread, force: boolean): void {
    if (this.pending.has(thread.id)) {
      if (!force && thread.runner.history.length === 0 && !thread.runner.open && !thread.runner.traits.storedAtOnce) return;
      this.pending.delete(thread.id);
      const log = this.store.create({
        id: thread.id,
        num: thread.num,
        title: thread.title,
        model: this.model,
        parent: null,
        ...(thread.origin ? { origin: thread.origin } : {}),
        runner: thread.runner.spec,
      });
      this.recorders.set(
        thread.id,
        new ThreadRecorder(log, {
          history: History.empty,
          open: NOTHING_OPEN,
          results: new Map(),
          title: thread.title,
          reports: NO_REPORTS,
        }),
      );
    }
    const rec = this.recorders.get(thread.id);
    if (!rec) return;
    const before = rec.records;
    rec.sync({
      history: thread.runner.history,
      open: thread.runner.open?.finalized ?? NOTHING_OPEN,
      results: thread.finishedResults(),
      title: thread.title,
      reports: thread.reports,
    });
    if (rec.records !== before) this.updated.set(thread.id, Date.now());
  }

  /** Appends to a stored thread that is not loaded here (rename, a report, a restore). */
  private appendStored(id: ThreadId, records: ChangeRecord[]): void {
    if (this.recorders.has(id)) throw new Error(`tine: thread ${id} is loaded`);
    const writer = this.store.openWriter(id, 0);
    if ("busy" in writer) throw new Error(`tine: the thread is open in another Neovim (pid ${writer.busy})`);
    writer.append(records);
    writer.close();
  }

  renameStored(id: ThreadId, title: string): void {
    this.appendStored(id, [{ t: "title", title }]);
  }

  /** A fork reported to a parent that is not loaded: the report waits in the parent's log. */
  reportToStored(id: ThreadId, report: { from: string; text: string }): void {
    this.appendStored(id, [{ t: "report", from: report.from, text: report.text }]);
  }

  /** An ended fork comes back into the tree, as stored. */
  restore(id: ThreadId): void {
    this.appendStored(id, [{ t: "restored" }]);
  }

  /** A promote moved `parentId`'s old tail to `siblingId` (its log, up to now, is that tail). */
  branched(parentId: ThreadId, siblingId: ThreadId, atMessage: number): void {
    const rec = this.recorders.get(parentId);
    if (!rec) return;
    rec.append([{ t: "branched", to: siblingId, after: atMessage, upTo: rec.records }]);
  }

  /** A fork ended: marked in its log (kept, so `:Tine threads!` can restore it), writer closed. */
  ended(thread: Thread | undefined, id: ThreadId, how: ForkEnd, into?: ThreadId): void {
    if (thread) this.syncOne(thread, true);
    const rec = this.recorders.get(id);
    this.pending.delete(id);
    if (!rec) return;
    rec.append([into ? { t: "ended", how, into } : { t: "ended", how }]);
    rec.close();
    this.recorders.delete(id);
  }

  delete(id: ThreadId): void {
    this.pending.delete(id);
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

  /** Releases every lock (the host is exiting). */
  close(): void {
    for (const rec of this.recorders.values()) rec.close();
    this.recorders.clear();
  }
}
