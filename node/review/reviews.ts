/**
 * Reviewing a turn's edits hunk by hunk (`require("tine").hunks`, `keep_hunk`, `reject_hunk`,
 * `comment_hunk`): each hunk of a turn's diff is kept (marked reviewed), undone, or commented on,
 * and the thread's review remembers which (review-record.ts).
 *
 * An undo reverts that hunk only, three-way as a graft is (hunk-undo.ts, through merge.ts): base
 * the file as the turn left it, ours the working file now, theirs the turn's file with only that
 * hunk taken back. So what the agent or the user changed since survives; where they changed the
 * same lines, the file gets conflict markers and the quickfix list names them. Nothing is lost:
 * the file as it was just before is kept as the last restore's undo (that file only: a snapshot
 * of the project would hash all it changed since, and an undo is to take milliseconds), and
 * `:Tine restore undo` puts it back (the hunk is pending again). The file is replaced whole, only
 * if it still is what was kept.
 *
 * Refused before anything is written, the file untouched: a file deleted (or renamed) since, a
 * binary one, one the turn deleted, one over the snapshots' size limit, one a buffer holds with
 * unsaved changes, a hunk the file already is back from, an undo that cannot be kept (a full disk).
 */
import { lstatSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import type { Dispatch } from "../chat/msgs.ts";
import type { Thread } from "../chat/thread.ts";
import type { ReviewNote } from "../core/graft-note.ts";
import type { ThreadId } from "../core/ids.ts";
import { type CodeSnapshots, type KeptFile, MAX_SNAPSHOT_FILE_BYTES, type StoredFile } from "../snapshot/code.ts";
import type { RunGit } from "../tools/git.ts";
import { writeError } from "../util/disk-space.ts";
import { KeptReads } from "../util/kept-reads.ts";
import type { KeptFilesUndo, ThreadCode } from "../worktree/code-actions.ts";
import { applyMerge, checkMergeRoom, isBinary } from "../worktree/merge.ts";
import { type UnsavedBuffers, unsavedRefusal } from "../worktree/unsaved.ts";
import { undoHunk } from "./hunk-undo.ts";
import type { HunkReview, ReviewRecords } from "./review-record.ts";
import { type ListedHunk, type ReviewTurn, reviewTurn, turnHunk, turnHunks, turnsOf } from "./turn-hunks.ts";

/** What the host does for a review. */
export type ReviewEdges = {
  /** A thread's marks once the snapshots asked for until now have come (CodeActions.settledCode). */
  readonly codeOf: (id: ThreadId) => Promise<ThreadCode>;
  readonly snapshotsOf: (id: ThreadId) => CodeSnapshots;
  /** How git runs in the thread's environment (`git merge-file`). */
  readonly gitOf: (id: ThreadId) => RunGit;
  /** `files` of `root` are about to be replaced: `:Tine restore undo` puts them back as given (CodeActions.keepFilesUndo). */
  readonly keepUndo: (snapshots: CodeSnapshots, root: string, files: readonly KeptFile[]) => Promise<KeptFilesUndo>;
  /** A file the review wrote (absolute): buffers holding it are reloaded. */
  readonly written: (path: string) => void;
  readonly unsaved: UnsavedBuffers;
  readonly dispatch: Dispatch;
  /** The threads live now. */
  live(): Iterable<ThreadId>;
  /** A live thread (throws when there is none). */
  readonly thread: (id: ThreadId) => Thread;
  /** Makes a stored thread live (it takes the review's note). */
  readonly load: (id: ThreadId) => void;
  tell(text: string, error: boolean): void;
  quickfix(title: string, items: readonly { filename: string; lnum: number; text: string }[]): void;
};

/** How an undo went: the file, the hunk, and how many conflicts it left marked. */
export type HunkUndone = { readonly path: string; readonly index: number; readonly conflicts: number };

/** How many files of turns (and their diffs) are kept read (turnFile, turnDiff). */
const KEPT_FILES = 32;

/** A file as a turn found it and left it (null: none). */
export type TurnFile = { readonly before: StoredFile | null; readonly after: StoredFile | null };

/** What is at `abs` as a snapshot would hold it: null when there is no file (a folder is none either). */
function onDisk(abs: string): StoredFile | null {
  try {
    const info = lstatSync(abs);
    if (info.isSymbolicLink()) return { mode: "120000", bytes: Buffer.from(readlinkSync(abs), "utf8") };
    return info.isFile() ? { mode: (info.mode & 0o100) !== 0 ? "100755" : "100644", bytes: readFileSync(abs) } : null;
  } catch {
    return null;
  }
}

const refuse = (why: string) => new Error(`tine: review: ${why}`);
/** The lines an undo brought back, as the model is shown them: the first 20, at most 2000 characters. */
function cameBack(lines: readonly string[]): string {
  const shown = lines.slice(0, 20).join("\n").slice(0, 2000);
  const more = lines.length > 20 ? `\n… and ${lines.length - 20} more lines` : "";
  return `${shown}${more}`;
}

export class Reviews {
  /** One review step after another: an undo reads the file as the one before left it. */
  private queue: Promise<unknown> = Promise.resolve();
  /** Files of turns and their diffs read (turnFile, turnDiff), by turn and path: the last KEPT_FILES of each. */
  private readonly turnFiles = new KeptReads<TurnFile>(KEPT_FILES);
  private readonly turnDiffs = new KeptReads<readonly string[]>(KEPT_FILES);
  /** The last undo, by the snapshot `:Tine restore undo` puts back: that puts its hunk back to pending. */
  private undoable: {
    readonly safety: string;
    readonly id: ThreadId;
    readonly at: Omit<HunkReview, "state">;
    readonly note: ReviewNote | null;
  } | null = null;

  constructor(
    private readonly records: ReviewRecords,
    private readonly edges: ReviewEdges,
  ) {}

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const done = this.queue.then(work);
    this.queue = done.catch(() => undefined);
    return done;
  }

  /** The hunks of thread `id`'s turn at message `atMessage` (null: its last turn that changed files). */
  async hunks(id: ThreadId, atMessage: number | null): Promise<ListedHunk[]> {
    const turn = reviewTurn(await this.edges.codeOf(id), atMessage, null);
    return turnHunks(this.edges.snapshotsOf(id), turn, this.records.get(id));
  }

  /**
   * Thread `id` was made from `source` (a fork): it starts with the source's review of the turns
   * it shares, `code` its marks and history (a mark past the fork point is none of its turns).
   */
  forked(source: ThreadId, id: ThreadId, code: ThreadCode): void {
    try {
      this.records.startFrom(id, source, new Set(turnsOf(code).map((m) => m.id)));
    } catch (e) {
      // The fork is made all the same (this runs as it is): only its review starts empty.
      this.edges.tell(`tine: review: the fork's review could not be written (${(e as Error).message}): its hunks show as pending`, true);
    }
  }

  /** Hunk `index` of `path` marked reviewed. */
  keep(id: ThreadId, path: string, index: number, atMessage: number | null): Promise<HunkReview> {
    return this.serial(async () => {
      const { turn } = await this.located(id, path, index, atMessage);
      const was = this.stateOf(id, turn, path, index);
      if (was === "undone") throw refuse(`hunk ${index} of ${path} is undone: :Tine restore undo puts it back (then keep it)`);
      return this.records.update(id, { turn: turn.to, path, index }, (h) => ({ ...h, state: "kept" }));
    });
  }

  /** A comment on hunk `index` of `path` (replacing any it had). */
  comment(id: ThreadId, path: string, index: number, text: string, atMessage: number | null): Promise<HunkReview> {
    return this.serial(async () => {
      const trimmed = text.trim();
      if (!trimmed) throw refuse("a comment needs some text");
      if (trimmed.length > 4096) throw refuse("a comment is at most 4096 characters");
      const { turn, hunk } = await this.located(id, path, index, atMessage);
      const root = (await this.edges.snapshotsOf(id).root()) ?? "";
      const reviewed = this.records.update(id, { turn: turn.to, path, index }, (h) => ({ ...h, comment: trimmed }));
      this.tellModel(id, { review: "comment", path, ...hunk.changed, text: trimmed, conflicts: 0, root });
      return reviewed;
    });
  }

  /** `:Tine restore undo` put back snapshot `safety`: where that was the last undo of a hunk, the hunk is pending again. */
  restored(safety: string): void {
    const last = this.undoable;
    this.undoable = null;
    if (last?.safety !== safety) return;
    this.records.update(last.id, last.at, (h) => ({ ...h, state: "pending" }));
    if (last.note) this.edges.dispatch({ type: "chat-msg", msg: { type: "code-note-undone", id: last.id, note: last.note } });
  }

  /**
   * The model of thread `id` is told of `note` with its next message, after the user's text, as
   * of a graft (chat/prompts.ts codeNotesText); null: it cannot be (a program that keeps its
   * own conversation, Claude Code: the user is told to tell it).
   */
  private tellModel(id: ThreadId, note: ReviewNote): ReviewNote | null {
    if (![...this.edges.live()].includes(id)) this.edges.load(id);
    const thread = this.edges.thread(id);
    const program = thread.runner.traits.ownConversation;
    if (program) {
      this.edges.tell(`tine: "${thread.title}" runs in ${program}, which tine does not send messages to: tell it yourself`, false);
      return null;
    }
    this.edges.dispatch({ type: "chat-msg", msg: { type: "code-noted", id, note } });
    return note;
  }

  private stateOf(id: ThreadId, turn: ReviewTurn, path: string, index: number) {
    return this.records.get(id).hunks.find((h) => h.turn === turn.to && h.path === path && h.index === index)?.state ?? "pending";
  }

  private async located(id: ThreadId, path: string, index: number, atMessage: number | null) {
    const turn = reviewTurn(await this.edges.codeOf(id), atMessage, path);
    if (!turn.mark.turn!.files.some((f) => f.path === path)) throw refuse(`that turn did not change ${path}`);
    const snapshots = this.edges.snapshotsOf(id);
    const [diff, file] = await Promise.all([this.turnDiff(snapshots, turn, path), this.turnFile(snapshots, turn, path)]);
    const hunk = turnHunk(diff, path, index);
    return { turn, hunk, range: hunk.range, file };
  }

  /**
   * File `path` as the turn found and left it, for an undo and for `:Tine review` and the signs
   * (review-files.ts): two snapshots never change, so the last few files read are kept and a
   * file of a turn is read once.
   */
  turnFile(snapshots: CodeSnapshots, turn: ReviewTurn, path: string): Promise<TurnFile> {
    return this.turnFiles.get(`${turn.from}..${turn.to}\0${path}`, async () => {
      const [b, a] = await Promise.all([snapshots.read(turn.from, [path]), snapshots.read(turn.to, [path])]);
      return { before: b.get(path) ?? null, after: a.get(path) ?? null };
    });
  }

  /** The turn's diff of `path` (kept as turnFile keeps the file): an undo after the first of a file runs no git but its snapshot. */
  private turnDiff(snapshots: CodeSnapshots, turn: ReviewTurn, path: string): Promise<readonly string[]> {
    return this.turnDiffs.get(`${turn.from}..${turn.to}\0${path}`, () => snapshots.fileDiff(turn.from, turn.to, path));
  }

  /** Hunk `index` of `path` taken back in the working file, three-way against what changed since. */
  reject(id: ThreadId, path: string, index: number, atMessage: number | null): Promise<HunkUndone> {
    return this.serial(() => this.undo(id, path, index, atMessage));
  }

  private async undo(id: ThreadId, path: string, index: number, atMessage: number | null): Promise<HunkUndone> {
    const { turn, hunk, range, file } = await this.located(id, path, index, atMessage);
    if (this.stateOf(id, turn, path, index) === "undone") throw refuse(`hunk ${index} of ${path} is undone already`);
    const snapshots = this.edges.snapshotsOf(id);
    const root = await snapshots.root();
    if (!root) throw refuse("code snapshots are off: nothing can be undone");
    if (turn.mark.skipped.includes(path)) throw refuse(`${path} is over 2 MiB: its snapshots do not hold it`);
    const ours = onDisk(join(root, path));
    const { before, after } = file;
    if (!after) throw refuse(`the turn deleted ${path}: :Tine restore brings the whole file back`);
    if (!ours) throw refuse(`${path} is gone since the turn (deleted or renamed): nothing is written`);
    if (ours.bytes.length > MAX_SNAPSHOT_FILE_BYTES)
      throw refuse(`${path} is over 2 MiB now: it would not be kept, so the undo could not be taken back`);
    if ([before, after, ours].some((f) => f !== null && isBinary(f)))
      throw refuse(`${path} is a binary file now: only a text file's hunk can be undone`);
    const sides = { before: before?.bytes ?? Buffer.alloc(0), after: after.bytes, ours: ours.bytes };
    const labels = { ours: "now", theirs: `undo of hunk ${index}`, theirsRoot: root };
    const merged = await undoHunk(this.edges.gitOf(id), sides, range, labels);
    if (merged.bytes.equals(ours.bytes)) throw refuse(`${path} holds no line of hunk ${index} any more (changed since): nothing to undo`);
    const unsaved = await unsavedRefusal(this.edges.unsaved, root, [path], "the undo");
    if (unsaved) throw refuse(unsaved);
    const write = { path, file: { mode: ours.mode, bytes: merged.bytes }, ours };
    try {
      checkMergeRoom(root, [write]);
    } catch (e) {
      throw refuse(writeError(e, root));
    }
    // Kept before the file is written: a file written always has its undo.
    const kept = await this.edges.keepUndo(snapshots, root, [{ path, file: ours }]).catch((e: Error) => {
      throw refuse(`${path} as it is now could not be kept for :Tine restore undo (${e.message}): nothing is written`);
    });
    try {
      const { changedMeanwhile } = await applyMerge(root, [write]);
      if (changedMeanwhile.length) throw new Error(`${path} changed while the hunk was being undone: nothing is written, undo it again`);
    } catch (e) {
      await kept.forget().catch(() => undefined);
      throw refuse(writeError(e, root));
    }
    const filename = join(root, path);
    this.edges.written(filename);
    const at = { turn: turn.to, path, index };
    this.records.update(id, at, (h) => ({ ...h, state: "undone" }));
    const conflicts = merged.conflictLines.length;
    const note = this.tellModel(id, { review: "undone", path, ...hunk.changed, text: cameBack(hunk.removed), conflicts, root });
    this.undoable = { safety: kept.safety, id, at, note };
    if (!conflicts) {
      this.edges.tell(`tine: undid hunk ${index} of ${path} (:Tine restore undo puts it back)`, false);
      return { path, index, conflicts };
    }
    const text = "conflict: these lines changed since the turn, and the undo takes the turn's change back";
    this.edges.quickfix(
      `tine: undo of hunk ${index} of ${path}`,
      merged.conflictLines.map((lnum) => ({ filename, lnum, text })),
    );
    this.edges.tell(
      `tine: undid hunk ${index} of ${path} with ${conflicts} conflict${conflicts === 1 ? "" : "s"}: its lines changed since the turn; the markers are in the quickfix list (:Tine restore undo puts the file back)`,
      false,
    );
    return { path, index, conflicts };
  }
}
