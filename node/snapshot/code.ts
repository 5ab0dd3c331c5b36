/**
 * Code snapshots as the host's services see them: the `CodeSnapshots` contract (take, compare,
 * read, housekeeping) and its implementation on a project's private git store (repo.ts). Where
 * snapshots cannot be taken (no git, not a repository, `snapshots = false`) the same object
 * answers "off" and why; callers never ask which it is. A fork in a worktree of its own has the
 * same contract on a view of the same store (node/worktree/). The marks a thread keeps (which
 * snapshot each of its messages was made on) are node/core/code-marks.ts.
 */
import type { FileChange, SnapshotId } from "../core/code-marks.ts";
import type { RunGit } from "../tools/git.ts";
import { localGit } from "../tools/local-git.ts";
import { KeptReads } from "../util/kept-reads.ts";
import { QuietFolder } from "./quiet-folder.ts";
import { type KeptWorktree, SnapshotRepo, type StoredFile, type Taken } from "./repo.ts";
import { type RestoreUndo, readUndo, writeUndo } from "./undo-record.ts";

export type { KeptWorktree, StoredFile, Taken } from "./repo.ts";
export type { KeptFile, RestoreUndo } from "./undo-record.ts";

/** What `:checkhealth tine` says of snapshots. */
export type SnapshotHealth =
  | { readonly on: true; readonly root: string; readonly dir: string; readonly bytes: number }
  | { readonly on: false; readonly why: string };

export interface CodeSnapshots {
  /**
   * The store's first snapshot, begun in the background when none was taken yet (the first of a
   * large project hashes every file; later ones only what changed), so the first tools need not
   * wait for it. Never fails; does nothing where snapshots are off.
   */
  prime(): void;
  /** A snapshot of the project's files now, kept for `owner` (a thread); null when snapshots are off here. `background`: nobody waits for it. */
  take(owner: string, background?: boolean): Promise<Taken | null>;
  /**
   * As `take`, for a folder nothing is meant to change in (a fan-out fork done with its turn and
   * its check): the snapshot last taken this way is given again while a watch on the folder saw
   * nothing change since it began (quiet-folder.ts), so a compare of 8 done forks reads none of
   * their files; else one is taken, and the watch begun anew before it. `background`: nobody waits for it.
   * `changed`: called once when a change ends the watch begun now (what shows the folder draws it again).
   */
  takeWhileQuiet(owner: string, background?: boolean, changed?: () => void): Promise<Taken | null>;
  /** Ends takeWhileQuiet's watch (the folder's thread is at work again). */
  unwatch(): void;
  changes(from: SnapshotId, to: SnapshotId): Promise<FileChange[]>;
  fileDiff(from: SnapshotId, to: SnapshotId, path: string): Promise<string[]>;
  /** Every changed file's diff (as `fileDiff` gives it), in `changes`' order: one run of git for a turn of 200 files. */
  fileDiffs(from: SnapshotId, to: SnapshotId): Promise<string[][]>;
  read(id: SnapshotId, paths: readonly string[]): Promise<Map<string, StoredFile | null>>;
  skippedIn(id: SnapshotId): Promise<string[]>;
  has(id: SnapshotId): Promise<boolean>;
  /** The folder snapshot paths are relative to; null when snapshots are off. */
  root(): Promise<string | null>;
  health(): Promise<SnapshotHealth>;
  /**
   * Housekeeping, at most once a day (else 0): drops the snapshots of owners not in `owners` (a
   * thread that is gone) and those older than the keep limit, keeping what `worktrees` (those on
   * disk) still need. Returns how many were dropped.
   */
  prune(owners: ReadonlySet<string>, now: number, worktrees?: readonly KeptWorktree[]): Promise<number>;
  /** The last restore's undo, kept on disk (null: none, or it was undone). */
  lastRestore(): Promise<RestoreUndo | null>;
  /** Keeps the undo of the restore just made (null: it was undone). */
  keepRestore(undo: RestoreUndo | null): Promise<void>;
}

export type SnapshotOptions = {
  /** false: `snapshots = false`, nothing is taken. */
  readonly enabled: boolean;
  readonly cwd: string;
  readonly dataDir: string;
  readonly maxFileBytes: number;
  readonly keepDays: number;
  /** How the project's environment runs git (Environment.git). */
  readonly git: RunGit;
};

const DAY_MS = 86_400_000;

/** How many differences between two snapshots a folder's snapshots keep (the oldest goes first). */
const KEPT_DIFFS = 64;

/** Files bigger than this are left out of snapshots (and named). */
export const MAX_SNAPSHOT_FILE_BYTES = 2 * 1024 * 1024;

/** The private store as its users get it: opened once, or why it cannot be. */
export type OpenRepo = () => Promise<SnapshotRepo | { readonly off: string }>;

/** The project's private git store, opened on first use (never when `snapshots = false`). */
export function openRepo(options: SnapshotOptions): OpenRepo {
  let opened: Promise<SnapshotRepo | { off: string }> | null = null;
  return () => {
    opened ??= options.enabled
      ? SnapshotRepo.open(options.cwd, options.dataDir, options.maxFileBytes, options.git).catch((e: Error) => ({ off: e.message }))
      : Promise.resolve({ off: "snapshots = false in setup()" });
    return opened;
  };
}

/** The project's snapshots on its private git store, opened on first use. */
export function gitSnapshots(options: SnapshotOptions): CodeSnapshots {
  return snapshotsOn(openRepo(options), options.keepDays);
}

/** Snapshots on the store `repo` gives (the project's, or a view of it from a worktree). */
export function snapshotsOn(repo: OpenRepo, keepDays: number): CodeSnapshots {
  const on = async (): Promise<SnapshotRepo> => {
    const r = await repo();
    if ("off" in r) throw new Error(`tine: code snapshots are off: ${r.off}`);
    return r;
  };
  const diffs = new KeptReads<readonly FileChange[]>(KEPT_DIFFS);
  let kept: { readonly watch: QuietFolder; readonly taken: Promise<Taken> } | null = null;
  const unwatch = () => {
    kept?.watch.close();
    kept = null;
  };
  return {
    prime() {
      void repo().then((r) => ("off" in r ? undefined : r.prime().catch(() => {})));
    },
    async take(owner, background) {
      const r = await repo();
      return "off" in r ? null : r.take(owner, background);
    },
    async takeWhileQuiet(owner, background, changed) {
      const r = await repo();
      if ("off" in r) return null;
      const was = kept;
      if (was && (await was.watch.quiet()) && kept === was) return was.taken;
      if (kept === was) unwatch();
      // Watched before it is taken: a change while it is taken makes the next ask take another.
      const watch = QuietFolder.watch(r.root, changed);
      const taken = r.take(owner, background);
      if (watch) kept = { watch, taken };
      taken.catch(() => {
        if (kept?.taken === taken) unwatch();
      });
      return taken;
    },
    unwatch,
    async changes(from, to) {
      // Two snapshots' difference never changes: a compare of forks done since asks it again and again.
      return (await diffs.get(`${from}..${to}`, async () => (await on()).changes(from, to))).slice();
    },
    fileDiff: async (from, to, path) => (await on()).fileDiff(from, to, path),
    fileDiffs: async (from, to) => (await on()).fileDiffs(from, to),
    read: async (id, paths) => (await on()).read(id, paths),
    skippedIn: async (id) => (await on()).skippedIn(id),
    has: async (id) => (await on()).has(id),
    async root() {
      const r = await repo();
      return "off" in r ? null : r.root;
    },
    async health() {
      const r = await repo();
      return "off" in r ? { on: false, why: r.off } : { on: true, root: r.root, dir: r.gitDir, bytes: r.size() };
    },
    async prune(owners, now, worktrees) {
      const r = await repo();
      if ("off" in r || !r.pruneDue(now, DAY_MS)) return 0;
      return r.prune(owners, now - keepDays * DAY_MS, worktrees);
    },
    async lastRestore() {
      const r = await repo();
      return "off" in r ? null : readUndo(r.undoFile);
    },
    keepRestore: async (undo) => writeUndo((await on()).undoFile, undo),
  };
}

/** Snapshots turned off (`snapshots = false`, and tests of threads that need none). */
export const snapshotsOff = (): CodeSnapshots =>
  gitSnapshots({ enabled: false, cwd: "", dataDir: "", maxFileBytes: 0, keepDays: 0, git: localGit });
