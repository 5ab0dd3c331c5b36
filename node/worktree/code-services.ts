/**
 * The code side of the host, built once from the options: the project's private snapshot store,
 * where each thread works (`Workspaces`), what the user does with snapshots (`CodeActions`), what
 * a worktree fork's end does to its files (`ForkCode`), and the housekeeping that drops the
 * snapshots no thread refers to any more.
 */
import type { Dispatch } from "../chat/msgs.ts";
import type { CodeRecorder, SnapshotId } from "../core/code-marks.ts";
import { latestMark } from "../core/code-marks.ts";
import type { ThreadId } from "../core/ids.ts";
import { type CodeSnapshots, MAX_SNAPSHOT_FILE_BYTES, openRepo, snapshotsOn } from "../snapshot/code.ts";
import type { ThreadCode } from "./code-actions.ts";
import { CodeActions } from "./code-actions.ts";
import { codeRecorder } from "./code-recorder.ts";
import { ForkCode, type ForkCodeEdges } from "./fork-code.ts";
import { Grafts } from "./graft.ts";
import { type WorktreeReport, type WorktreeUser, worktreeHealth } from "./health.ts";
import { type StoredWorktree, Workspaces, workspaceEnvironment, worktreeFolder } from "./workspaces.ts";
import { worktreesIn } from "./worktree.ts";

/** The options the code side is built from (host/config.ts's `HostConfig` has them: the host passes it). */
export type CodeOptions = {
  readonly cwd: string;
  readonly data_dir: string;
  readonly snapshots: boolean;
  readonly snapshot_keep_days: number;
  readonly worktree_dir: string | false;
  readonly bash_timeout: number;
  readonly tool_env_deny: readonly string[];
  readonly sandbox_deny_read: readonly string[];
};

export type CodeHooks = Omit<ForkCodeEdges, "written" | "keepUndo"> & {
  /** The marks of a live or stored thread. */
  readonly codeOf: (id: ThreadId) => ThreadCode;
  readonly parentOf: (id: ThreadId) => ThreadId | undefined;
  /** Makes a stored thread live (a graft's parent takes its note). */
  readonly load: (id: ThreadId) => void;
  /** The worktree a stored thread's transcript names, if any. */
  readonly storedWorktree: (id: ThreadId) => StoredWorktree | undefined;
  /** A stored thread's worktree was refused (stored-folder.ts): the user is told. */
  readonly storedWorktreeRefused: (id: ThreadId, path: string, why: string) => void;
  /** A stored unattended fork works attended: its sandbox cannot start here (`why`). The user is told. */
  readonly unattendedLost: (id: ThreadId, why: string) => void;
  readonly dispatch: Dispatch;
  /** A file was written by `by` (an edit, a restore, a merge): buffers holding it are reloaded. */
  readonly written: (by: string) => (path: string) => void;
  readonly log: (text: string) => void;
};

export class CodeServices {
  readonly workspaces: Workspaces;
  /** Takes the snapshots threads ask for; the code operations wait for those of turns that have ended (CodeRecorder.settled). */
  readonly recorder: CodeRecorder;
  readonly actions: CodeActions;
  readonly forkCode: ForkCode;
  /** A live worktree fork's change to a file brought into its parent's files (`graft`). */
  readonly grafts: Grafts;
  /** The snapshots of the folder a thread works in. */
  readonly snapshotsOf = (id: ThreadId): CodeSnapshots => this.workspaces.of(id).snapshots;

  constructor(
    config: CodeOptions,
    private readonly hooks: CodeHooks,
  ) {
    const keepDays = config.snapshot_keep_days;
    const limits = { bashTimeoutSec: config.bash_timeout, envDeny: config.tool_env_deny };
    const projectEnvironment = workspaceEnvironment(config.cwd, limits);
    const repo = openRepo({
      enabled: config.snapshots,
      cwd: config.cwd,
      dataDir: config.data_dir,
      maxFileBytes: MAX_SNAPSHOT_FILE_BYTES,
      keepDays,
      git: projectEnvironment.git,
    });
    const snapshots = snapshotsOn(repo, keepDays);
    const sandbox = { dataDir: config.data_dir, denyRead: config.sandbox_deny_read };
    const folder = { projectEnvironment, dir: worktreeFolder(config), limits, keepDays, sandbox };
    this.workspaces = new Workspaces(repo, snapshots, folder, {
      parentOf: hooks.parentOf,
      storedWorktree: hooks.storedWorktree,
      storedWorktreeRefused: hooks.storedWorktreeRefused,
      unattendedLost: hooks.unattendedLost,
      latestOf: (id) => this.latestOf(id),
    });
    this.recorder = codeRecorder(this.snapshotsOf, hooks.dispatch, hooks.tell);
    this.actions = new CodeActions(
      snapshots,
      hooks.thread,
      hooks.codeOf,
      hooks.dispatch,
      hooks.written(":Tine restore"),
      this.snapshotsOf,
      this.recorder.settled,
    );
    this.forkCode = new ForkCode(this.workspaces, {
      ...hooks,
      written: hooks.written("the merge"),
      keepUndo: (into, safety, paths) => this.actions.keepUndo(into.snapshots, into.root, safety, paths),
    });
    this.grafts = new Grafts(this.workspaces, {
      ...hooks,
      written: hooks.written("a graft"),
      busy: (id) => this.forkCode.busy(id),
      keepUndo: (into, safety, paths) => this.actions.keepUndo(into.snapshots, into.root, safety, paths),
    });
    this.actions.onUndo((safety) => this.grafts.undone(safety));
  }

  /** What `:checkhealth tine` says of this project's worktrees, and of the threads (`users`) that work in them. */
  health(users: readonly WorktreeUser[]): Promise<WorktreeReport> {
    return worktreeHealth(this.workspaces.folder(), users, this.actions.snapshots);
  }

  /** A thread's last snapshot, or null (none, or not a thread of this project any more). */
  private latestOf(id: ThreadId): SnapshotId | null {
    try {
      const { code, history } = this.hooks.codeOf(id);
      return latestMark(code, history)?.id ?? null;
    } catch {
      return null;
    }
  }

  /**
   * Drops the snapshots no thread of this project refers to (see CodeSnapshots.prune): `owners`
   * names every transcript on disk (a deleted thread's stays while its forks need it) and every
   * live thread; worktrees being made and the last restore's undo are kept too, and every
   * worktree on disk keeps its fork point and its files (a worktree's own git borrows nothing from the store).
   */
  prune(owners: () => Iterable<string>): Promise<void> {
    let kept: Set<string>;
    try {
      kept = new Set([...owners(), ...this.workspaces.making, "undo"]);
    } catch (error) {
      this.hooks.log(`snapshot housekeeping skipped: ${String(error)}`);
      return Promise.resolve();
    }
    const worktrees = worktreesIn(this.workspaces.folder()).map((w) => ({ root: w.path, base: w.base }));
    return this.actions.snapshots.prune(kept, Date.now(), worktrees).then(
      () => undefined,
      (e) => this.hooks.log(`snapshot housekeeping failed: ${String(e)}`),
    );
  }
}
