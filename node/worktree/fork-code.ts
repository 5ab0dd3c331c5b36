/**
 * What happens to a worktree fork's files when the fork ends: promoted, its work is merged into
 * its parent's tree first (merge.ts), and only then is it promoted (its conversation moved, the
 * fork ended): a merge that cannot be done (a full disk, snapshots off) changes nothing, the fork
 * stays as it was and the user is told why. Conflicts go to the quickfix list and the worktree
 * stays until the merge is accepted. Reported, its report carries a summary of its changes (made
 * before it ends, `sumUp`, so that the parent gets one report) and its worktree stays; discarded,
 * its worktree is removed after saying how many changed files go with it (its last snapshot
 * keeps them). A fork that shares its parent's folder has nothing to bring back: nothing happens.
 *
 * A merge is recorded on disk before its first file is written and the record removed after its
 * last (merge-record.ts); each file is replaced whole, unless it changed while the merge ran (then
 * it is kept and listed as a conflict: the fork's copy stays in its worktree). A merge that fails
 * under way is rolled back at once; one cut off by the host's death is rolled back by the next
 * host (merge-recovery.ts); either way a file changed since the merge wrote it is left alone.
 *
 * A merge is accepted at once when it has no conflicts (nothing is left to look at); one with
 * conflicts is accepted by `:Tine merge done` (refused while a listed file still holds markers,
 * unless forced). Until then the worktree's marker notes it, so it is found after a restart too.
 *
 * Over 300 lines: it is the one place a worktree fork's ending touches its files; promote,
 * report, discard and `:Tine merge done` share the ends under way and the recovery held here.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Dispatch, ForkEnd } from "../chat/msgs.ts";
import { promotedCodeNote } from "../chat/prompts.ts";
import type { Thread } from "../chat/thread.ts";
import type { FileChange, SnapshotId } from "../core/code-marks.ts";
import type { ThreadId } from "../core/ids.ts";
import type { WaitingMerge } from "../core/waiting-merge.ts";
import { writeError } from "../util/disk-space.ts";
import { hashOf } from "./file-hash.ts";
import { applyMerge, checkMergeRoom, type MergeConflict, type MergePlan, markersLeft, planMarkersRefusal, planMerge } from "./merge.ts";
import { testHold } from "./merge-hold.ts";
import { mergeOver, mergesUnderWay, recordMerge } from "./merge-record.ts";
import { type KeepUndo, leftAlone, recoverMerges, rollBackMerge } from "./merge-recovery.ts";
import { PendingMerges, waitingQuickfix } from "./pending-merges.ts";
import { type UnsavedBuffers, unsavedRefusal } from "./unsaved.ts";
import type { Workspace, Workspaces } from "./workspaces.ts";
import { worktreesIn } from "./worktree.ts";

/** What the host does for these ends: tell the user, fill the quickfix list, give the chat a fork's code summary. */
export type ForkCodeEdges = {
  tell(text: string, error: boolean): void;
  quickfix(title: string, items: readonly { filename: string; lnum: number; text: string }[]): void;
  readonly dispatch: Dispatch;
  /** A file the merge wrote (absolute): buffers holding it are reloaded. */
  written(path: string): void;
  /** The threads live now (a worktree another one still works in is not removed). */
  live(): Iterable<ThreadId>;
  /** The buffers with unsaved changes (a merge never writes under one: unsaved.ts). */
  readonly unsaved: UnsavedBuffers;
  /** A merge's rollback replaced these files: `:Tine restore undo` puts them back. */
  readonly keepUndo: KeepUndo;
  /** A live thread (throws when there is none). */
  readonly thread: (id: ThreadId) => Thread;
  /** The merges waiting to be accepted changed: the displays that show them are drawn again. */
  mergesChanged(): void;
};

/** A fork as its end sees it: who, and where it hung. */
export type EndingFork = { readonly id: ThreadId; readonly title: string; readonly parentId: ThreadId; readonly parentTitle: string };

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

/** `3 files changed (+12 −4)` and a line per file, as a report's summary. */
export function changeSummary(files: readonly FileChange[], root: string): string {
  const added = files.reduce((n, f) => n + (f.added ?? 0), 0);
  const removed = files.reduce((n, f) => n + (f.removed ?? 0), 0);
  const head = `Its code, in its worktree ${root}: ${plural(files.length, "file")} changed (+${added} −${removed})`;
  const status = { added: "A", modified: "M", deleted: "D" } as const;
  const lines = files.map((f) => `  ${status[f.status]} ${f.path}  ${f.added === null ? "binary" : `+${f.added} −${f.removed}`}`);
  return [head, ...lines].join("\n");
}

export class ForkCode {
  /** Ends under way, by fork: a promote's merge, a discard's removal; a promote's caller waits for its merge. */
  private readonly ending = new Map<ThreadId, Promise<void>>();
  /** Callers waiting for a fork's merge (`settled`): they say why it failed, the user is not told twice. */
  private readonly waiting = new Set<ThreadId>();
  /** Why a fork's merge failed, for its waiting caller. */
  private readonly failed = new Map<ThreadId, string>();
  /** Merges a killed host left half done, rolled back when this host starts, before any merge of its own. */
  private readonly recovered: Promise<void>;
  private readonly progress = testHold(process.env);
  /** The conflicted merges waiting to be accepted, for the displays of the threads they went into. */
  private readonly pending: PendingMerges;

  constructor(
    private readonly workspaces: Workspaces,
    private readonly edges: ForkCodeEdges,
  ) {
    this.pending = new PendingMerges(() => workspaces.folder(), edges.mergesChanged);
    this.recovered = recoverMerges(workspaces, edges.tell, edges.keepUndo).catch((e: Error) =>
      edges.tell(`tine: the merges a stopped tine left could not be looked at: ${e.message}`, true),
    );
    // Found once a merge cut off is rolled back (which drops its note): what waits after a restart,
    // its conflicts in the quickfix list again.
    void this.recovered
      .then(() => {
        this.pending.reload();
        const items = waitingQuickfix(this.pending.all(), (into) => workspaces.atFolder(into)?.root ?? null);
        if (items.length) edges.quickfix("tine: merges waiting (:Tine merge done)", items);
      })
      .catch((e: Error) => edges.tell(`tine: the waiting merges: ${e.message}`, true));
  }

  /** The conflicted merges waiting to be accepted into thread `id` (a line in its display each). */
  mergesInto(id: ThreadId): readonly WaitingMerge[] {
    return this.pending.into(id);
  }

  /**
   * A fork ended: a discarded one's worktree goes, off the dispatch loop. A promoted one's code was
   * merged before it ended (`mergeFirst`); a reported one's report carried the summary of its code
   * (`sumUp`) and its worktree stays.
   */
  ended(fork: EndingFork, how: ForkEnd): void {
    // Only a fork with a tree of its own has files to bring back.
    if (how !== "discarded" || !this.workspaces.apart(fork.id)) return;
    const done = this.discard(fork, this.workspaces.of(fork.id))
      .catch((e: Error) => this.edges.tell(`tine: ${fork.title}: ${e.message}`, true))
      .finally(() => this.ending.delete(fork.id));
    this.ending.set(fork.id, done);
  }

  /** Whether fork `id`'s code is being merged or removed now (it cannot end again meanwhile). */
  busy(id: ThreadId): boolean {
    return this.ending.has(id);
  }

  /**
   * Resolves once what fork `id`'s end does to its files is done (at once when nothing is); rejects
   * with why its promote's merge failed (the caller tells the user, nobody else does).
   */
  async settled(id: ThreadId): Promise<void> {
    const work = this.ending.get(id);
    if (!work) return;
    this.waiting.add(id);
    try {
      await work;
    } finally {
      this.waiting.delete(id);
    }
    const failure = this.failed.get(id);
    this.failed.delete(id);
    if (failure) throw new Error(failure);
  }

  /**
   * Fork `fork` is being promoted (ForkExits): its code is merged into its parent's folder, then
   * `promote` moves its conversation and ends it. When the merge cannot be done, nothing moves.
   */
  mergeFirst(fork: EndingFork, promote: () => void): void {
    if (this.ending.has(fork.id)) {
      this.edges.tell(`tine: ${fork.title}: its code is being merged already`, true);
      return;
    }
    const from = this.workspaces.of(fork.id);
    const into = this.workspaces.of(fork.parentId);
    // Known before the fork ends: whether the parent takes its history (not a conversation a program keeps).
    const historyMoves = this.edges.thread(fork.id).runner.traits.ownConversation === null;
    const done = this.merge(fork, from, into).then(
      (plan) => {
        promote();
        if ([...this.edges.live()].includes(fork.id)) {
          // Refused after all (the fork or its parent began a turn meanwhile: the chat said why).
          this.edges.tell(`tine: ${fork.title}: its code is merged into ${into.root}, but it is not promoted: promote it again`, true);
          return;
        }
        if (historyMoves) this.tellParent(fork, from, into, plan);
        return this.merged(fork, from, into, plan).catch((e: Error) => this.edges.tell(`tine: ${fork.title}: ${e.message}`, true));
      },
      (e: Error) => {
        const text = `tine: ${fork.title} is not promoted: ${e.message}. It stays as it was`;
        if (this.waiting.has(fork.id)) this.failed.set(fork.id, text);
        else this.edges.tell(text, true);
      },
    );
    const settled = done.finally(() => this.ending.delete(fork.id));
    this.ending.set(fork.id, settled);
  }

  /**
   * The merge itself: both sides' snapshots taken and the merge worked out before anything is
   * written (`write` then refuses it when it would not fit on the disk). Resolves with what it did.
   */
  private async merge(fork: EndingFork, from: Workspace, into: Workspace): Promise<MergePlan> {
    await this.recovered;
    const records = await this.workspaces.mergeRecords();
    const store = records ? dirname(records) : into.root;
    const [theirs, ours] = await Promise.all([from.snapshots.take(fork.id), into.snapshots.take(fork.parentId)]).catch((e) => {
      throw new Error(`its files could not be recorded: ${writeError(e, store)}`);
    });
    if (!records || !theirs || !ours) throw new Error("code snapshots are off: its files cannot be merged");
    const labels = { ours: fork.parentTitle, theirs: fork.title, theirsRoot: from.root };
    const planned = await planMerge(
      into.snapshots,
      { base: from.stored!.base, ours: ours.id, theirs: theirs.id },
      labels,
      into.environment.git,
    );
    const unsaved = await unsavedRefusal(
      this.edges.unsaved,
      into.root,
      planned.writes.map((w) => w.path),
      "the merge",
    );
    if (unsaved) throw new Error(unsaved);
    // Merged into, a file still holding an earlier merge's markers would get them nested in new ones.
    const markers = planMarkersRefusal(planned);
    if (markers) throw new Error(markers);
    const changed = planned.writes.length ? await this.write(fork, into, records, ours.id, planned) : [];
    // A file changed while the merge ran keeps its new text: the fork's copy waits in its worktree, as a conflict's does.
    const kept = new Set(changed);
    const plan: MergePlan = {
      ...planned,
      writes: planned.writes.filter((w) => !kept.has(w.path)),
      conflicts: [
        ...planned.conflicts,
        ...changed.map((path) => ({
          path,
          line: 1,
          text: `changed here during the merge: yours kept; the fork's is ${join(from.root, path)}`,
        })),
      ],
    };
    // Noted once the merge is over (its record gone): a merge cut off and rolled back leaves no note.
    const conflicted = [...new Set(plan.conflicts.map((c) => c.path))];
    if (conflicted.length) this.pending.noted(from.root, { into: into.root, files: conflicted, parent: fork.parentId, fork: fork.title });
    return plan;
  }

  /**
   * The parent took the fork's history, whose tool results and commands named the fork's
   * worktree: its next message says where those files live now (queued as the fork's report).
   */
  private tellParent(fork: EndingFork, from: Workspace, into: Workspace, plan: MergePlan): void {
    const conflicts = [...new Set(plan.conflicts.map((c) => c.path))];
    const report = {
      from: fork.title,
      text: promotedCodeNote(into.root, from.root, conflicts, plan.writes.length),
      kind: "promote" as const,
    };
    this.edges.dispatch({ type: "thread-msg", id: fork.parentId, msg: { type: "queue-report", report } });
  }

  /**
   * Writes the merge's files into `into` (the record of it on disk meanwhile); returns those left
   * alone as changed since `ours`. A failure on the way puts back what was written, or leaves the
   * record for the next start to when that fails too.
   */
  private async write(fork: EndingFork, into: Workspace, records: string, ours: SnapshotId, plan: MergePlan): Promise<readonly string[]> {
    checkMergeRoom(into.root, plan.writes);
    const other = mergesUnderWay(records).find((m) => m.fork === fork.id);
    if (other) throw new Error(`its merge is under way in another Neovim (host pid ${other.pid})`);
    const files = plan.writes.map((w) => ({ path: w.path, ours: hashOf(w.ours), merged: hashOf(w.file) }));
    try {
      recordMerge(records, {
        fork: fork.id,
        forkTitle: fork.title,
        parentTitle: fork.parentTitle,
        into: into.root,
        ours,
        files,
        pid: process.pid,
      });
    } catch (e) {
      throw new Error(`its merge could not be recorded: ${writeError(e, records)}`);
    }
    let changedMeanwhile: readonly string[];
    try {
      ({ changedMeanwhile } = await applyMerge(into.root, plan.writes, this.progress));
    } catch (e) {
      let undone = "its files are back as they were";
      try {
        const rolled = await rollBackMerge(into, ours, files);
        if (rolled.safety && rolled.written.length) await this.edges.keepUndo(into, rolled.safety, rolled.written);
        mergeOver(records, fork.id);
        undone += leftAlone(rolled);
      } catch (u) {
        undone = `the files it wrote could not be put back (${writeError(u, into.root)}): tine tries again when it next starts`;
      }
      throw new Error(`its merge failed: ${writeError(e, into.root)}; ${undone}`);
    } finally {
      for (const { path } of files) this.edges.written(join(into.root, path));
    }
    mergeOver(records, fork.id);
    return changedMeanwhile;
  }

  /** The fork is promoted, its merge written: the user is told what it did; a merge without conflicts is accepted (its worktree goes). */
  private async merged(fork: EndingFork, from: Workspace, into: Workspace, plan: MergePlan): Promise<void> {
    const unrecorded = plan.unrecorded.length ? `; not merged (over 2 MiB): ${plan.unrecorded.join(", ")}` : "";
    if (!plan.conflicts.length) {
      await this.remove(from);
      const what = plan.writes.length
        ? `its code is merged: ${plural(plan.writes.length, "file")} changed`
        : "nothing to merge: the source has its changes already";
      this.edges.tell(`tine: ${fork.title}: ${what}${unrecorded}`, false);
      return;
    }
    const files = [...new Set(plan.conflicts.map((c) => c.path))];
    this.edges.quickfix(`tine: merge of ${fork.title}`, this.quickfixItems(into.root, plan.conflicts));
    this.edges.tell(
      `tine: ${fork.title}: its code is merged with ${plural(files.length, "conflict")} (the quickfix list): ${files.join(", ")}${unrecorded}. Its worktree ${from.root} stays until :Tine merge done`,
      false,
    );
  }

  private quickfixItems(root: string, conflicts: readonly MergeConflict[]) {
    return conflicts.map((c) => ({ filename: join(root, c.path), lnum: c.line, text: c.text }));
  }

  /**
   * A fork in a worktree of its own is about to report: what its code changed goes back to the
   * chat (`fork-code-summed`, "" when snapshots are off), which then sends its report with it.
   */
  sumUp(id: ThreadId): void {
    const from = this.workspaces.of(id);
    const summed = (summary: string) => this.edges.dispatch({ type: "chat-msg", msg: { type: "fork-code-summed", id, summary } });
    this.summary(id, from).then(summed, (e: Error) =>
      summed(`Its code, in its worktree ${from.root}, could not be summed up: ${e.message}`),
    );
  }

  private async summary(id: ThreadId, from: Workspace): Promise<string> {
    const last = await from.snapshots.take(id);
    if (!last) return "";
    return changeSummary(await from.snapshots.changes(from.stored!.base, last.id), from.root);
  }

  private async discard(fork: EndingFork, from: Workspace): Promise<void> {
    const last = await from.snapshots.take(fork.id);
    const files = last ? await from.snapshots.changes(from.stored!.base, last.id) : [];
    const others = this.workspaces.usersOf(from, this.edges.live());
    if (others.length) {
      this.edges.tell(`tine: ${fork.title}: its worktree ${from.root} stays: other threads work in it`, false);
      return;
    }
    this.edges.tell(
      `tine: ${fork.title}: its worktree is removed with ${plural(files.length, "changed file")} (its last snapshot keeps them: :Tine threads! restores the fork)`,
      false,
    );
    await this.remove(from);
  }

  private async remove(workspace: Workspace): Promise<void> {
    if (!this.workspaces.usersOf(workspace, this.edges.live()).length) await this.workspaces.remove(workspace.root);
  }

  /**
   * `:Tine merge done`: the conflicted merges of this project are accepted and their worktrees
   * removed; refused while a listed file still holds conflict markers, unless `force`. Returns
   * how many were accepted.
   */
  async mergeDone(force: boolean): Promise<number> {
    const pending = worktreesIn(this.workspaces.folder()).filter((w) => w.merge !== null);
    if (!pending.length) throw new Error("tine: no merge waits to be accepted");
    if (!force) {
      const unresolved = pending.flatMap(({ merge }) =>
        merge!.files.filter((f) => {
          try {
            return markersLeft(readFileSync(join(merge!.into, f), "utf8")) > 0;
          } catch {
            return false;
          }
        }),
      );
      if (unresolved.length)
        throw new Error(`tine: conflict markers are left in ${unresolved.join(", ")}: resolve them, or :Tine merge done! to accept as is`);
    }
    for (const p of pending) {
      this.pending.accepted(p.path);
      // A thread still working in the worktree (a fork of the promoted fork) keeps it.
      if (!this.workspaces.usersOfFolder(p.path, this.edges.live()).length) await this.workspaces.remove(p.path);
    }
    return pending.length;
  }
}
