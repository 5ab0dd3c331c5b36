/**
 * A graft (`require("tine").graft(from, path [, hunk])`): the change a live worktree fork made to
 * one file, whole or one hunk of its diff, brought into its parent's files, three-way as a
 * promote's merge is (merge.ts): base the fork point's snapshot, ours the parent's file now,
 * theirs the fork's file now (with a hunk: the fork point's file with only that hunk made,
 * hunks.ts). Where the parent's file changed since the fork point in the same lines, the file
 * gets conflict markers and the quickfix list names them. The fork goes on as it was: it is not
 * ended and its worktree stays (its copy of the file with it).
 *
 * Nothing is lost: the parent's file before the graft is in the snapshot taken just before
 * (`:Tine restore undo` puts it back), and the file is replaced whole, only if it still is what
 * that snapshot holds. One file, replaced whole: a graft cut off by the host's death leaves the
 * file as it was or as grafted, so, unlike a promote's merge of many files, it is not recorded.
 *
 * `hunks(from, path)` lists the hunks a graft of one numbers (the compare view shows them), by the
 * same rule: the fork's diff of the file from its fork point to its files now.
 *
 * Bad input (an unknown thread, one not in a worktree of its own, a path it did not change, a
 * hunk it does not have, a binary file) is refused before anything is taken or written, as is a
 * graft into a parent that is read-only here (open for writing in another Neovim): its note
 * could not be kept, and that Neovim's thread would not know of it.
 *
 * A parent whose program keeps its own conversation (Claude Code) takes the graft into its files,
 * but no note: tine does not send its messages, so the user is told, with the graft, to tell it.
 */
import { isAbsolute, join, posix } from "node:path";
import type { Dispatch } from "../chat/msgs.ts";
import type { Thread } from "../chat/thread.ts";
import type { SnapshotId } from "../core/code-marks.ts";
import type { GraftNote } from "../core/graft-note.ts";
import type { ThreadId } from "../core/ids.ts";
import type { StoredFile } from "../snapshot/code.ts";
import { writeError } from "../util/disk-space.ts";
import { diffHunks, type Hunk, withHunk } from "./hunks.ts";
import { applyMerge, checkMergeRoom, isBinary, type MergeLabels, type MergeWrite, markersRefusal, mergeFile } from "./merge.ts";
import { type UnsavedBuffers, unsavedRefusal } from "./unsaved.ts";
import type { Workspace, Workspaces } from "./workspaces.ts";

/** What a graft did: the file (as the fork's change list names it), the hunk (null: the whole file), and how many conflicts it left marked. */
export type Grafted = { readonly path: string; readonly hunk: number | null; readonly conflicts: number };

/** What the host does for a graft. */
export type GraftEdges = {
  tell(text: string, error: boolean): void;
  quickfix(title: string, items: readonly { filename: string; lnum: number; text: string }[]): void;
  readonly dispatch: Dispatch;
  /** A file the graft wrote (absolute): buffers holding it are reloaded. */
  written(path: string): void;
  /** The threads live now. */
  live(): Iterable<ThreadId>;
  /** A live thread (throws when there is none). */
  readonly thread: (id: ThreadId) => Thread;
  readonly parentOf: (id: ThreadId) => ThreadId | undefined;
  /** Makes a stored thread live (the parent takes the graft's note; a stored fork is read). */
  readonly load: (id: ThreadId) => void;
  /** The worktree a stored thread's transcript names (a stored fork of its own folder), if any. */
  readonly storedWorktree: (id: ThreadId) => unknown;
  /** Whether fork `id`'s code is being merged or removed now (ForkCode.busy). */
  readonly busy: (id: ThreadId) => boolean;
  /** The buffers with unsaved changes (a graft never writes under one: unsaved.ts). */
  readonly unsaved: UnsavedBuffers;
  /** `path` of `into` was just replaced, `safety` holding it as it was: `:Tine restore undo` puts it back. */
  readonly keepUndo: (into: Workspace, safety: SnapshotId, paths: readonly string[]) => Promise<void>;
};

/** Paths in a message: the first ten, then how many more. */
const named = (paths: readonly string[]) =>
  paths.length ? `${paths.slice(0, 10).join(", ")}${paths.length > 10 ? ` and ${paths.length - 10} more` : ""}` : "nothing";
const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;
const refuse = (why: string) => new Error(`tine: graft: ${why}`);

/**
 * `path` as the fork's change list names it (relative to the project: `./a.py` and `b/../a.py`
 * are `a.py`); one that leaves the project (absolute, `../`) is refused.
 */
function projectPath(path: string): string {
  const normal = posix.normalize(path.trim().replace(/\\/g, "/"));
  if (isAbsolute(normal) || normal === "." || normal === ".." || normal.startsWith("../"))
    throw refuse(
      `${JSON.stringify(path)} is no file of the project: give its path relative to the project, as the fork's change list names it`,
    );
  return normal;
}

export class Grafts {
  /** Grafts one after another: each reads the parent's file as the one before left it. */
  private queue: Promise<unknown> = Promise.resolve();
  /**
   * The last graft written into each file (by its absolute path), and what it left there: a later
   * graft meeting a conflict in a file still as that one left it was crossed by that graft (a
   * sibling's), not by the user.
   */
  private readonly lastWritten = new Map<string, { readonly what: string; readonly bytes: Buffer | null }>();
  /** The last graft, by the snapshot its undo puts back: `:Tine restore undo` of that snapshot takes it back. */
  private undoable: { readonly safety: SnapshotId; readonly parentId: ThreadId; readonly note: GraftNote } | null = null;

  constructor(
    private readonly workspaces: Workspaces,
    private readonly edges: GraftEdges,
  ) {}

  /** Grafts fork `id`'s change to `path` (hunk `hunk` of its diff, 1-based; null: the whole file) into its parent's files. */
  graft(id: ThreadId, path: string, hunk: number | null): Promise<Grafted> {
    const done = this.queue.then(() => this.run(id, projectPath(path), hunk));
    this.queue = done.catch(() => undefined);
    return done;
  }

  /**
   * `:Tine restore undo` put back snapshot `safety`: where that was the last graft's undo, its
   * parent's note of it is marked undone (the model is not told of it). The one place a graft is taken back.
   */
  undone(safety: string): void {
    const last = this.undoable;
    this.undoable = null;
    if (last?.safety !== safety) return;
    this.edges.dispatch({ type: "chat-msg", msg: { type: "code-note-undone", id: last.parentId, note: last.note } });
  }

  /** The hunks of fork `id`'s diff of `path` since its fork point, as graft numbers them (hunk n is the n-th). */
  async hunks(id: ThreadId, asked: string): Promise<Hunk[]> {
    const path = projectPath(asked);
    const { fork, from } = this.forkOf(id);
    const theirs = await from.snapshots.take(id).catch((e) => {
      throw refuse(`the files could not be recorded: ${writeError(e, from.root)}`);
    });
    if (!theirs) throw refuse("code snapshots are off: nothing can be grafted");
    const base = from.stored!.base;
    if (!(await from.snapshots.changes(base, theirs.id)).some((c) => c.path === path))
      throw refuse(`"${fork.title}" did not change ${path}`);
    return this.hunksIn(from, base, theirs.id, path);
  }

  /** The one rule for a hunk's number: its place in the fork's diff of the file from `base` to `theirs`. */
  private async hunksIn(from: Workspace, base: SnapshotId, theirs: SnapshotId, path: string): Promise<Hunk[]> {
    return diffHunks(await from.snapshots.fileDiff(base, theirs, path));
  }

  /**
   * Fork `id`, its parent and its worktree; refused unless it is a fork in a worktree of its own.
   * A stored one (a fan-out's fork after a restart, graft from :Tine compare) is opened for it.
   */
  private forkOf(id: ThreadId): { fork: Thread; parentId: ThreadId; from: Workspace } {
    if (![...this.edges.live()].includes(id) && this.edges.storedWorktree(id) !== undefined) this.edges.load(id);
    if (![...this.edges.live()].includes(id)) throw refuse(`no live thread ${id}`);
    const fork = this.edges.thread(id);
    const parentId = this.edges.parentOf(id);
    if (parentId === undefined || !this.workspaces.apart(id))
      throw refuse(
        `"${fork.title}" is not a fork in a worktree of its own: ${parentId === undefined ? "it has no parent" : "its changes are in its parent's files already"}`,
      );
    return { fork, parentId, from: this.workspaces.of(id) };
  }

  private async run(id: ThreadId, path: string, hunk: number | null): Promise<Grafted> {
    // The compare view lists hunks from 1, as :Tine diff shows them; an API caller counting from 0 is told so.
    if (hunk !== null && hunk < 1) throw refuse(`hunks count from 1 (hunk 1 is the first of the file's diff): there is no hunk ${hunk}`);
    const { fork, parentId, from } = this.forkOf(id);
    if (this.edges.busy(id)) throw refuse(`"${fork.title}": its code is being merged into its parent's folder`);
    if (![...this.edges.live()].includes(parentId)) this.edges.load(parentId);
    const parent = this.edges.thread(parentId);
    if (parent.readOnlyBy !== null)
      throw refuse(
        `"${parent.title}" is open for writing in another Neovim (pid ${parent.readOnlyBy}): it is read-only here, so nothing is grafted into its files (graft from that Neovim, or once it is closed there)`,
      );
    const into = this.workspaces.of(parentId);
    const base = from.stored!.base;
    const [theirs, ours] = await Promise.all([from.snapshots.take(id), into.snapshots.take(parentId)]).catch((e) => {
      throw refuse(`the files could not be recorded: ${writeError(e, into.root)}`);
    });
    if (!theirs || !ours) throw refuse("code snapshots are off: nothing can be grafted");
    const changed = await from.snapshots.changes(base, theirs.id);
    const change = changed.find((c) => c.path === path);
    const skipped = new Set([...(await from.snapshots.skippedIn(base)), ...(await from.snapshots.skippedIn(theirs.id))]);
    if (skipped.has(path)) throw refuse(`${path} is over 2 MiB: its snapshots do not hold it, so it cannot be grafted`);
    if (!change) throw refuse(`"${fork.title}" did not change ${path} (it changed ${named(changed.map((c) => c.path))})`);
    const [b, t, o] = await Promise.all([
      from.snapshots.read(base, [path]),
      from.snapshots.read(theirs.id, [path]),
      into.snapshots.read(ours.id, [path]),
    ]);
    const [baseFile, forkFile, oursFile] = [b.get(path) ?? null, t.get(path) ?? null, o.get(path) ?? null];
    if ([baseFile, forkFile, oursFile].some((f) => f !== null && isBinary(f)))
      throw refuse(`${path} is a binary file: only a text file's change can be grafted`);
    const wanted = hunk === null ? forkFile : await this.hunkOf(from, base, theirs.id, path, hunk, baseFile, forkFile, fork.title);
    const labels = { ours: "here", theirs: fork.title, theirsRoot: from.root };
    const write = await this.merged(into, path, { base: baseFile, ours: oursFile, theirs: wanted }, labels);
    return this.written(fork, parent, into, ours.id, { path, hunk, write });
  }

  /** The fork point's file with only hunk `hunk` of the fork's diff made. */
  private async hunkOf(
    from: Workspace,
    base: SnapshotId,
    theirs: SnapshotId,
    path: string,
    hunk: number,
    baseFile: StoredFile | null,
    forkFile: StoredFile | null,
    title: string,
  ): Promise<StoredFile> {
    if (!baseFile || !forkFile)
      throw new Error(`tine: graft: "${title}" ${baseFile ? "deleted" : "made"} ${path}: only the whole file can be grafted (no hunk)`);
    const hunks = await this.hunksIn(from, base, theirs, path);
    const range = hunks[hunk - 1]?.range;
    if (hunk < 1 || !range)
      throw new Error(`tine: graft: the diff of ${path} in "${title}" has ${plural(hunks.length, "hunk")}: there is no hunk ${hunk}`);
    return { mode: forkFile.mode, bytes: withHunk(baseFile.bytes, forkFile.bytes, range) };
  }

  /**
   * What the parent's file becomes: the fork's where the parent's is as at the fork point, else
   * the three-way merge (conflicts marked). Null: nothing to write (it holds the change already).
   */
  private async merged(
    into: Workspace,
    path: string,
    sides: { base: StoredFile | null; ours: StoredFile | null; theirs: StoredFile | null },
    labels: MergeLabels,
  ): Promise<{ write: MergeWrite; conflictLines: readonly number[] } | null> {
    const { base, ours, theirs } = sides;
    const same = (a: StoredFile | null, b: StoredFile | null) => (a === null ? b === null : b !== null && a.bytes.equals(b.bytes));
    if (same(ours, theirs)) return null;
    if (same(ours, base)) return { write: { path, file: theirs, ours }, conflictLines: [] };
    if (!theirs)
      throw new Error(
        `tine: graft: "${labels.theirs}" deleted ${path}, which changed here since the fork point: nothing is written (delete it yourself if it should go)`,
      );
    // Merged into, a file still holding markers would get them nested in new ones.
    const markers = ours && markersRefusal(path, ours.bytes, "graft");
    if (markers) throw refuse(markers);
    const out = await mergeFile(into.environment.git, ours?.bytes ?? Buffer.alloc(0), base?.bytes ?? Buffer.alloc(0), theirs.bytes, labels);
    return { write: { path, file: { mode: ours?.mode ?? theirs.mode, bytes: out.bytes }, ours }, conflictLines: out.conflictLines };
  }

  /** Writes the graft (when it changes anything), then tells the user, the parent's display and its next message. */
  private async written(
    fork: Thread,
    parent: Thread,
    into: Workspace,
    ours: SnapshotId,
    graft: { path: string; hunk: number | null; write: { write: MergeWrite; conflictLines: readonly number[] } | null },
  ): Promise<Grafted> {
    const { path, hunk, write } = graft;
    const what = `${path}${hunk === null ? "" : ` (hunk ${hunk})`} from "${fork.title}"`;
    const filename = join(into.root, path);
    // Read before this graft is kept as the file's last: what crossed it is the one before.
    const crossedBy = this.crossedBy(filename, write?.write.ours ?? null);
    if (!write) {
      this.edges.tell(`tine: ${path} here holds the change already: nothing grafted`, false);
      return { path, hunk, conflicts: 0 };
    }
    const unsaved = await unsavedRefusal(this.edges.unsaved, into.root, [path], "the graft");
    if (unsaved) throw refuse(unsaved);
    try {
      checkMergeRoom(into.root, [write.write]);
      const { changedMeanwhile } = await applyMerge(into.root, [write.write]);
      if (changedMeanwhile.length) throw new Error(`${path} changed while it was being grafted: nothing is written, graft it again`);
    } catch (e) {
      throw new Error(`tine: graft: ${writeError(e, into.root)}`);
    }
    this.edges.written(filename);
    this.lastWritten.set(filename, { what, bytes: write.write.file?.bytes ?? null });
    // The file is written: an undo that cannot be kept (its record on a full disk) does not undo the graft.
    await this.edges.keepUndo(into, ours, [path]).catch(() => undefined);
    const conflicts = write.conflictLines.length;
    const note: GraftNote = { path, hunk, from: fork.title, conflicts, root: into.root };
    // A program that keeps its own conversation is never sent tine's notes: the user tells it.
    const program = parent.runner.traits.ownConversation;
    if (!program) this.edges.dispatch({ type: "chat-msg", msg: { type: "code-noted", id: parent.id, note } });
    this.undoable = program ? null : { safety: ours, parentId: parent.id, note };
    const untold = program ? `. "${parent.title}" runs in ${program}, which is not told (tine does not send its messages): tell it` : "";
    if (!conflicts) {
      this.edges.tell(`tine: grafted ${what} (:Tine restore undo puts it back)${untold}`, false);
      return { path, hunk, conflicts };
    }
    const since = crossedBy
      ? `the graft of ${crossedBy} changed it here since the fork point`
      : "it changed here since the fork point (by you, this thread's agent or an earlier graft)";
    this.edges.quickfix(
      `tine: graft of ${what}`,
      write.conflictLines.map((lnum) => ({ filename, lnum, text: `conflict: ${since}, and so did the fork` })),
    );
    this.edges.tell(
      `tine: grafted ${what} with ${plural(conflicts, "conflict")}: ${since}; the markers are in the quickfix list${untold}`,
      false,
    );
    return { path, hunk, conflicts };
  }

  /** The graft that left `filename` as `ours` holds it (so crossed this one), or null: it changed otherwise since. */
  private crossedBy(filename: string, ours: StoredFile | null): string | null {
    const last = this.lastWritten.get(filename);
    if (!last) return null;
    const same = last.bytes === null ? ours === null : ours?.bytes.equals(last.bytes) === true;
    return same ? last.what : null;
  }
}
