/**
 * What the user does with a thread's code snapshots, for the host's entry points: expand a
 * turn's change list and a file's diff, see a file as it was before a turn, restore the files to
 * a message's snapshot (planned, then written) and undo the last restore. The host calls these
 * and dispatches what they give back; nothing here touches the chat's state directly.
 */

import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { Dispatch } from "../chat/msgs.ts";
import type { Thread } from "../chat/thread.ts";
import { latestMark, markAt, type SnapshotId, type ThreadMark } from "../core/code-marks.ts";
import type { History } from "../core/history.ts";
import type { ThreadId } from "../core/ids.ts";
import type { CodeSnapshots, KeptFile, RestoreUndo } from "../snapshot/code.ts";
import { applyRestore, planRestore, type RestoreDone, type RestorePlan, writeUndone } from "../snapshot/restore.ts";
import { changeListKey, fileDiffKey, turnChanges } from "../view/code-view.ts";

/** A thread's marks as a restore reads them: of a live thread, or of a stored one as its transcript holds them. */
export type ThreadCode = { readonly title: string; readonly code: readonly ThreadMark[]; readonly history: History };

/**
 * A restore in a worktree fork's folder, until it is undone: kept in memory only (the folder is
 * known while the thread is live; the undo on disk is for the project's own folder).
 */
type WorktreeUndo = { readonly snapshots: CodeSnapshots; readonly root: string; readonly undo: RestoreUndo };

/** An undo of kept files: its id, and `forget`, which puts back the undo kept before it (while it is still the last). */
export type KeptFilesUndo = { readonly safety: string; forget(): Promise<void> };

export class CodeActions {
  private worktreeUndo: WorktreeUndo | null = null;
  /** Told of each undo done, by the snapshot it put back (a graft's undo takes the graft back: graft.ts). */
  private readonly undoListeners: ((safety: string) => void)[] = [];

  constructor(
    readonly snapshots: CodeSnapshots,
    /** A live thread by id (throws when there is none). */
    private readonly threadOf: (id: ThreadId) => Thread,
    /** The marks of a live or stored thread (throws when there is none). */
    private readonly codeOf: (id: ThreadId) => ThreadCode,
    private readonly dispatch: Dispatch,
    /** A restore wrote this file (absolute): buffers holding it are reloaded (one with unsaved changes is left, and the user told). */
    private readonly fileWritten: (path: string) => void,
    /** The snapshots of the folder a thread works in (a worktree fork's are of its worktree). */
    private readonly snapshotsOf: (id: ThreadId) => CodeSnapshots = () => snapshots,
    /** Resolves once the snapshots asked for until now have reached their threads (CodeRecorder.settled). */
    readonly settled: () => Promise<void> = () => Promise.resolve(),
  ) {}

  /**
   * The marks of thread `id` as a code operation reads them: once the snapshots asked for until
   * now are among them. A turn that has just ended is recorded in the background; read before
   * its last snapshot came, its own edits would look like the user's (changed since).
   */
  async settledCode(id: ThreadId): Promise<ThreadCode> {
    await this.settled();
    return this.codeOf(id);
  }

  /** <Tab> on a change list: the list opens or closes; on a file, its diff (fetched first). */
  async toggle(id: ThreadId, message: number, file: string | null): Promise<void> {
    const thread = this.threadOf(id);
    if (file === null) {
      this.dispatch({ type: "thread-msg", id, msg: { type: "toggle-detail", key: changeListKey(message) } });
      return;
    }
    const key = fileDiffKey(message, file);
    const turn = turnChanges(thread).get(message)?.turn;
    if (!thread.expanded.has(key) && turn && !thread.fileDiffs.has(key)) {
      const lines = await this.snapshotsOf(id).fileDiff(turn.from, this.markOf(thread, message).id, file);
      this.dispatch({ type: "thread-msg", id, msg: { type: "file-diff", key, lines } });
    }
    this.dispatch({ type: "thread-msg", id, msg: { type: "toggle-detail", key } });
  }

  /** <CR> on a changed file: where it is, and its text before the turn (null: it did not exist). */
  async fileBefore(id: ThreadId, message: number, file: string): Promise<{ path: string; before: string | null }> {
    const thread = this.threadOf(id);
    const mark = this.markOf(thread, message);
    const snapshots = this.snapshotsOf(id);
    const root = await snapshots.root();
    if (!root || !mark.turn) throw new Error("tine: no change list here");
    const before = (await snapshots.read(mark.turn.from, [file])).get(file);
    return { path: join(root, file), before: before ? before.bytes.toString("utf8") : null };
  }

  private markOf(thread: Thread, message: number): ThreadMark {
    const mark = turnChanges(thread).get(message);
    if (!mark) throw new Error("tine: this reply changed no files");
    return mark;
  }

  /** Whether message `atMessage` was made on other files than the thread's latest snapshot holds. */
  async differs(id: ThreadId, atMessage: number): Promise<boolean> {
    const { code, history } = await this.settledCode(id);
    const mark = atMessage < history.length ? markAt(code, history, atMessage) : null;
    return mark !== null && mark.id !== latestMark(code, history)?.id;
  }

  /** What restoring the files to message `atMessage`'s snapshot would change. */
  async plan(id: ThreadId, atMessage: number): Promise<RestorePlan> {
    return this.planFor(id, await this.settledCode(id), atMessage);
  }

  private async planFor(id: ThreadId, thread: ThreadCode, atMessage: number): Promise<RestorePlan> {
    const { code, history } = thread;
    if (atMessage >= history.length) throw new Error(`tine: ${thread.title} has no message ${atMessage}`);
    const target = markAt(code, history, atMessage);
    const snapshots = this.snapshotsOf(id);
    if (!target) {
      const off = await snapshots.health();
      if (!off.on) throw new Error(`tine: code snapshots are off (${off.why}): nothing can be restored`);
      throw new Error(`tine: no tool of ${thread.title} ran after this message: its files are as the message left them`);
    }
    if (!(await snapshots.has(target.id)))
      throw new Error("tine: the snapshot of this message is gone (older than snapshot_keep_days): nothing can be restored");
    return planRestore(snapshots, target.id, latestMark(code, history)?.id ?? null);
  }

  /** Restores the files to message `atMessage`'s snapshot; `overwrite`: files changed since are written too. */
  async restore(id: ThreadId, atMessage: number, overwrite: boolean): Promise<RestoreDone> {
    const plan = await this.planFor(id, await this.settledCode(id), atMessage);
    const snapshots = this.snapshotsOf(id);
    const done = await applyRestore(snapshots, plan, overwrite);
    await this.keepUndo(snapshots, plan.root, plan.safety, done.written);
    for (const path of done.written) this.fileWritten(join(plan.root, path));
    return done;
  }

  /**
   * Files `paths` of `root` were just replaced (by a restore, or a merge's rollback), `safety`
   * holding them as they were: `undoRestore` puts them back. Only the last of these is undone.
   */
  keepUndo(snapshots: CodeSnapshots, root: string, safety: SnapshotId, paths: readonly string[]): Promise<void> {
    return this.keep(snapshots, root, { kind: "snapshot", safety, paths });
  }

  /**
   * `files` of `root` are about to be replaced (a hunk's undo): `undoRestore` puts them back as
   * they are given here. Returns the id the undo listeners are told this one by, and how to put
   * back the undo kept before, for a write that then does not happen (the file changed meanwhile).
   */
  async keepFilesUndo(snapshots: CodeSnapshots, root: string, files: readonly KeptFile[]): Promise<KeptFilesUndo> {
    const safety = randomBytes(20).toString("hex");
    const was = { onDisk: await this.snapshots.lastRestore(), worktree: this.worktreeUndo };
    await this.keep(snapshots, root, { kind: "files", safety, files });
    const forget = async () => {
      if (this.worktreeUndo?.undo.safety !== safety && (await this.snapshots.lastRestore())?.safety !== safety) return;
      this.worktreeUndo = was.worktree;
      await this.snapshots.keepRestore(was.onDisk);
    };
    return { safety, forget };
  }

  private async keep(snapshots: CodeSnapshots, root: string, undo: RestoreUndo): Promise<void> {
    const inProject = snapshots === this.snapshots;
    // The project's undo on disk outlives a restart of the host or of Neovim.
    await this.snapshots.keepRestore(inProject ? undo : null);
    this.worktreeUndo = inProject ? null : { snapshots, root, undo };
  }

  /** `listener` is told of each undo done, by the snapshot it put back. */
  onUndo(listener: (safety: string) => void): void {
    this.undoListeners.push(listener);
  }

  /** Puts back the files the last restore wrote (by this host or an earlier one), exactly as they were before it. */
  async undoRestore(): Promise<RestoreDone> {
    const kept = this.worktreeUndo;
    if (kept) {
      const done = await writeUndone(kept.snapshots, kept.root, kept.undo);
      this.worktreeUndo = null;
      for (const path of done.written) this.fileWritten(join(kept.root, path));
      for (const told of this.undoListeners) told(kept.undo.safety);
      return { ...done, left: [] };
    }
    const undo = await this.snapshots.lastRestore();
    const root = await this.snapshots.root();
    if (!undo || !root) throw new Error("tine: no restore to undo");
    if (undo.kind === "snapshot" && !(await this.snapshots.has(undo.safety)))
      throw new Error("tine: the files as they were before the last restore are gone (older than snapshot_keep_days)");
    const done = await writeUndone(this.snapshots, root, undo);
    await this.snapshots.keepRestore(null);
    for (const path of done.written) this.fileWritten(join(root, path));
    for (const told of this.undoListeners) told(undo.safety);
    return { ...done, left: [] };
  }
}
