/**
 * What the store holds, as the chat and the thread list take it: this project's threads (the tree
 * of those neither deleted nor ended, and the forks that ended), every other project's for
 * `:Tine threads!`, and what `:checkhealth tine` says of it. It only reads: what is written, and
 * when, is persistence.ts.
 */
import type { ForkEnd, StoredThread } from "../chat/msgs.ts";
import type { ThreadId } from "../core/ids.ts";
import { projectTree } from "./project-tree.ts";
import type { ThreadStore, Unreadable } from "./store.ts";
import type { ThreadSummary } from "./summary.ts";

/** A thread of another project, as `:Tine threads!` lists it: as this project's stored threads are. */
export type OtherThread = StoredThread;
/** A fork of this project that ended and can be restored (project-tree.ts `restorable`). */
export type EndedThread = StoredThread & { how: ForkEnd };
export type StoreHealth = { persist: boolean; dir: string | null; threads: number; unreadable: string[]; problems: string[] };

export function toStoredThread(s: ThreadSummary, busyBy: number | null, looped: ReadonlySet<string> = NO_LOOPS): StoredThread {
  return {
    id: s.id,
    num: s.num,
    title: s.title,
    parentId: s.parent?.id ?? null,
    atMessage: s.parent?.atMessage ?? 0,
    relation: s.parent?.relation ?? "fork",
    created: s.created,
    updated: s.updated,
    messages: s.messages,
    problems: s.problems.length,
    runner: s.runner,
    busyBy,
    label: s.label ?? null,
    interrupted: s.interrupted === true,
    queued: s.queued,
    worktree: s.worktree,
    usage: s.usage,
    ...(looped.has(s.id) ? { looped: true as const } : {}),
  };
}

const NO_LOOPS: ReadonlySet<string> = new Set();

export class StoreListing {
  constructor(private readonly store: ThreadStore) {}

  /**
   * What is on disk for this project, as the chat takes it: the tree of threads that are neither
   * deleted nor ended, and (for `:Tine threads!`) the forks that ended. A fork of a fork that was
   * promoted hangs under the thread that took its history.
   */
  scan(): { threads: StoredThread[]; ended: EndedThread[]; unreadable: readonly Unreadable[]; summaries: readonly ThreadSummary[] } {
    const { threads, unreadable } = this.store.list();
    const { visible, ended, looped } = projectTree(threads);
    const stored = (t: ThreadSummary) => toStoredThread(t, this.busyBy(t.id), looped);
    const endedThreads = ended.map((t) => ({ ...toStoredThread(t, null, looped), how: t.ended?.how ?? "discarded" }));
    return { threads: visible.map(stored), ended: endedThreads, unreadable, summaries: visible };
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
      .map((p) => {
        const { visible, looped } = projectTree(p.threads);
        return { cwd: p.cwd, threads: visible.map((t) => toStoredThread(t, null, looped)) };
      });
    return { ended: this.scan().ended, others };
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
}
