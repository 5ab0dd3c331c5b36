/**
 * Where each thread works: the project's folder, or a worktree of its own made for a fork. A
 * workspace is the thread's environment (where its tools act), its code snapshots (of that
 * folder, in the project's one store) and what its transcript stores of it. The chat, the store
 * and the views get these through the host and never ask which kind a workspace is.
 *
 * A thread works where it was put (a fork made with a worktree), else in the worktree its
 * transcript names (a stored thread, opened or not), else where its parent works (a plain fork
 * shares its source's folder, a hand-off or a compaction carries on where its source worked), else
 * in the project's folder; the answer is kept, so a thread never changes folder under its tools.
 *
 * Over 300 lines: the one place that decides where a thread works and with which environment
 * (made, stored, borrowed, being made), each case beside the others.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { markAt, type SnapshotId, type ThreadMark } from "../core/code-marks.ts";
import type { History } from "../core/history.ts";
import type { ThreadId } from "../core/ids.ts";
import { sandboxAvailable } from "../sandbox/bwrap.ts";
import type { PolicySettings } from "../sandbox/policy.ts";
import { openSandbox } from "../sandbox/sandbox-environment.ts";
import { type CodeSnapshots, type OpenRepo, snapshotsOn } from "../snapshot/code.ts";
import type { SnapshotRepo } from "../snapshot/repo.ts";
import type { Environment, ToolLimits } from "../tools/environment.ts";
import type { RunGit } from "../tools/git.ts";
import { localEnvironment } from "../tools/local-environment.ts";
import { projectWorktrees, worktreeRefused } from "./stored-folder.ts";
import { makeWorktree, removeWorktree, type StoredWorktree, worktreesIn } from "./worktree.ts";

export type { StoredWorktree } from "./worktree.ts";

export type Workspace = {
  /** The folder the thread's tools work in (`cwd` in `threads()`). */
  readonly root: string;
  readonly environment: Environment;
  readonly snapshots: CodeSnapshots;
  /** What the transcripts of threads working here keep, so a restart finds the folder again; null: the project's own folder. */
  readonly stored: StoredWorktree | null;
  /** Its threads' tools run in the sandbox, and nothing inside it waits for approval (an unattended fork's worktree). */
  readonly unattended: boolean;
  /**
   * Settles once its files are there (at once, but for a fork's worktree being written meanwhile:
   * forkMeanwhile); rejects when they could not be. What reads its files outside its tools (a
   * fan-out's check) waits for it; its tools wait through its snapshots.
   */
  readonly ready: Promise<void>;
};

const THERE: Promise<void> = Promise.resolve();

/** What the sandbox hides besides credentials (policy.ts): tine's data folder, and `sandbox_deny_read`'s paths. */
export type SandboxHides = Pick<PolicySettings, "dataDir" | "denyRead">;

export type WorkspaceOptions = {
  /** The project's folder's environment (workspaceEnvironment's), which also opens the snapshot store. */
  readonly projectEnvironment: Environment;
  /** The folder worktrees are made in (a folder per project inside). */
  readonly dir: string;
  readonly limits: ToolLimits;
  readonly keepDays: number;
  readonly sandbox: SandboxHides;
};

/**
 * The environment a workspace's threads work in (their tools act and their git runs there): the
 * one place where which kind of Environment a folder gets is decided. `sandbox`: confined by the
 * OS sandbox, hiding these (an unattended fork's worktree); throws why it cannot start, and the fix.
 */
export function workspaceEnvironment(root: string, limits: ToolLimits, sandbox: SandboxHides | null = null): Environment {
  if (!sandbox) return localEnvironment(root, limits);
  const opened = openSandbox({ root, limits, ...sandbox });
  if (!opened.ok) throw new Error(sandboxRefusal(opened));
  return opened.environment;
}

/** Why an unattended fork cannot be made here, and what fixes it (also :checkhealth tine's words). */
export function sandboxRefusal(why: { readonly reason: string; readonly fix: string }): string {
  return `tine: an unattended fork runs its tools in a sandbox, which cannot start here: ${why.reason}. Fix: ${why.fix}`;
}

/** Where worktrees are made: `worktree_dir`, else `<data_dir>/worktrees`. */
export function worktreeFolder(config: { readonly worktree_dir: string | false; readonly data_dir: string }): string {
  return config.worktree_dir || join(config.data_dir, "worktrees");
}

/** The snapshot message `atMessage` of a thread (live or stored) was made on (a worktree made from it has the files as they were there), or null: they are as now. */
export function forkBase(
  thread: { readonly code: readonly ThreadMark[]; readonly history: History },
  atMessage: number,
): SnapshotId | null {
  return markAt(thread.code, thread.history, atMessage)?.id ?? null;
}

/** What workspaces need to know of the threads. */
export type WorkspaceThreads = {
  /** The thread a thread was forked from (or handed off from, or compacted from), if any. */
  parentOf(id: ThreadId): ThreadId | undefined;
  /** The worktree a stored thread's transcript names (undefined: none, or not a stored thread). */
  storedWorktree(id: ThreadId): StoredWorktree | undefined;
  /** The thread's last snapshot (null: none), from which a worktree that is gone is made again. */
  latestOf(id: ThreadId): SnapshotId | null;
  /** Thread `id` works in the project's folder: the worktree `path` its transcript names is refused (`why`; stored-folder.ts). */
  storedWorktreeRefused(id: ThreadId, path: string, why: string): void;
  /** Thread `id`, an unattended fork's, works in its worktree attended: its sandbox cannot start here (`why`). */
  unattendedLost(id: ThreadId, why: string): void;
};

export class Workspaces {
  readonly project: Workspace;
  private readonly byThread = new Map<ThreadId, Workspace>();
  private readonly byPath = new Map<string, Workspace>();
  /** Forks whose worktree is being made: not threads yet, their snapshots must survive housekeeping. */
  readonly making = new Set<ThreadId>();

  constructor(
    private readonly repo: OpenRepo,
    projectSnapshots: CodeSnapshots,
    private readonly options: WorkspaceOptions,
    private readonly threads: WorkspaceThreads,
  ) {
    const environment = options.projectEnvironment;
    this.project = { root: environment.root, environment, snapshots: projectSnapshots, stored: null, unattended: false, ready: THERE };
  }

  /** Where thread `id` works (decided on first ask, then kept). */
  of(id: ThreadId): Workspace {
    const known = this.byThread.get(id);
    if (known) return known;
    const stored = this.threads.storedWorktree(id);
    const parent = this.threads.parentOf(id);
    const found = stored ? this.worktreeOf(id, stored) : parent !== undefined && parent !== id ? this.of(parent) : this.project;
    this.byThread.set(id, found);
    return found;
  }

  /** Whether thread `id` works in a worktree (its forks get one of their own: see the host's fork). */
  inWorktree(id: ThreadId): boolean {
    return this.of(id).stored !== null;
  }

  /**
   * Whether thread `id` works in a worktree of its own, apart from its parent's folder: a fork
   * whose end brings its code back (a promote's merge) or throws it away (a discard).
   */
  apart(id: ThreadId): boolean {
    const own = this.of(id);
    const parent = this.threads.parentOf(id);
    return own.stored !== null && (parent === undefined || own !== this.of(parent));
  }

  /** Whether worktrees can be made here (git, a repository, snapshots on). */
  async available(): Promise<boolean> {
    return !("off" in (await this.repo()));
  }

  /** Why an unattended fork (a worktree of its own, in the sandbox) cannot be made here, with the fix; null: it can. */
  async unattendedRefusal(): Promise<string | null> {
    const sandbox = sandboxAvailable();
    if (!sandbox.ok) return sandboxRefusal(sandbox);
    const repo = await this.repo();
    return "off" in repo ? `tine: an unattended fork works in a git worktree of its own, which cannot be made here: ${repo.off}` : null;
  }

  /** Thread `id` works where `from` works (a fork made before the chat knows its parent). */
  share(id: ThreadId, from: ThreadId): void {
    this.byThread.set(id, this.of(from));
  }

  /** The threads (among `live`) that work in `workspace`. */
  usersOf(workspace: Workspace, live: Iterable<ThreadId>): ThreadId[] {
    return [...live].filter((id) => this.byThread.get(id) === workspace);
  }

  /**
   * A worktree of its own for fork `id` (number `num`) of `sourceId`, made from snapshot `at`
   * (a message's), or from the source's files now; `unattended`: its tools run in the sandbox.
   * Returned once it is made. Throws why it cannot be (no git, not a repository, snapshots off,
   * no sandbox).
   */
  async fork(sourceId: ThreadId, id: ThreadId, num: number, at: SnapshotId | null, unattended = false): Promise<Workspace> {
    const { workspace, made } = await this.forkMeanwhile(sourceId, id, num, at, unattended);
    await made;
    return workspace;
  }

  /**
   * As `fork`, but returned as soon as its worktree is being made (`made` settles once it is, or
   * rejects why not): the fork's first request needs only its history, and what needs its files
   * waits for them, since its snapshots open only once they are written (its first tool batch
   * waits for the snapshot taken before it). A fan-out's forks ask the model while their files
   * are written, one worktree after another.
   */
  async forkMeanwhile(
    sourceId: ThreadId,
    id: ThreadId,
    num: number,
    at: SnapshotId | null,
    unattended = false,
  ): Promise<{ workspace: Workspace; made: Promise<void> }> {
    const repo = await this.repo();
    if ("off" in repo) throw new Error(`tine: a fork in its own worktree needs code snapshots, and they are off: ${repo.off}`);
    const refusal = unattended ? await this.unattendedRefusal() : null;
    if (refusal) throw new Error(refusal);
    this.making.add(id);
    let view: Promise<SnapshotRepo>;
    let workspace: Workspace;
    try {
      const base = at ?? (await this.of(sourceId).snapshots.take(id))?.id;
      if (!base) throw new Error("tine: the source's files could not be recorded: no worktree made");
      const path = join(this.folder(), `${num}-${id.slice(0, 8)}`);
      const stored: StoredWorktree = unattended ? { path, base, unattended } : { path, base };
      // Its environment reads the sandbox's policy from the worktree once it is there (policyOnceMade); tine's gits run in the host.
      const environment = this.environmentOf(id, stored, true);
      view = makeWorktree(repo, base, path, id, localEnvironment(path, this.options.limits).git);
      const ready = view.then(() => {});
      ready.catch(() => {}); // said by `made`'s taker; a reader of `ready` gets it too
      workspace = this.worktree(
        stored,
        () => () => view.catch((e: Error) => ({ off: `its worktree was not made: ${e.message}` })),
        environment,
        ready,
      );
    } catch (error) {
      this.making.delete(id);
      throw error;
    }
    this.byThread.set(id, workspace);
    const made = view.then(
      () => {
        this.making.delete(id);
      },
      (error: Error) => {
        this.making.delete(id);
        // Not made: the fork works nowhere (it is not taken, or its tools find no folder and say so).
        if (this.byThread.get(id) === workspace) this.byThread.delete(id);
        this.byPath.delete(workspace.root);
        throw error;
      },
    );
    return { workspace, made };
  }

  /** A stored thread opened: it works in the worktree its transcript names. */
  adopt(id: ThreadId, stored: StoredWorktree | undefined): void {
    if (stored) this.byThread.set(id, this.worktreeOf(id, stored));
  }

  /**
   * The workspace of a worktree a transcript names (thread `id`'s). A folder that is gone (its
   * fork was discarded, then restored) is made again from the thread's last snapshot before
   * anything is done in it. A transcript is a file: a folder that is not a worktree tine made for
   * this project is refused, and the thread works in the project's folder.
   */
  private worktreeOf(id: ThreadId, stored: StoredWorktree): Workspace {
    const known = this.byPath.get(stored.path);
    if (known) return known;
    const refused = worktreeRefused(stored.path, this.folder());
    if (refused) {
      this.threads.storedWorktreeRefused(id, stored.path, refused);
      return this.project;
    }
    let view: Promise<SnapshotRepo | { off: string }> | null = null;
    const open =
      (git: RunGit): OpenRepo =>
      () => {
        view ??= (async () => {
          const repo = await this.repo();
          if ("off" in repo) return repo;
          if (existsSync(stored.path)) return repo.view(stored.path, git);
          return makeWorktree(repo, this.threads.latestOf(id) ?? stored.base, stored.path, id, git);
        })();
        return view;
      };
    return this.worktree(stored, open, this.environmentOf(id, stored));
  }

  /**
   * The environment of worktree `stored`, thread `id`'s. An unattended one's sandbox that cannot
   * start (a fork made here is refused before; a stored one may come back on a machine without it)
   * leaves its threads attended, in the same folder, and the user is told (`made`: throw instead).
   */
  private environmentOf(id: ThreadId, stored: StoredWorktree, made = false): Environment {
    const { limits, sandbox } = this.options;
    if (!stored.unattended) return workspaceEnvironment(stored.path, limits);
    try {
      return workspaceEnvironment(stored.path, limits, sandbox);
    } catch (error) {
      if (made) throw error;
      this.threads.unattendedLost(id, (error as Error).message);
      return workspaceEnvironment(stored.path, limits);
    }
  }

  /** The workspace of worktree `stored`: its snapshots are on the store `open` gives, whose gits run in its environment. */
  private worktree(stored: StoredWorktree, open: (git: RunGit) => OpenRepo, environment: Environment, ready = THERE): Workspace {
    const workspace: Workspace = {
      root: stored.path,
      environment,
      snapshots: snapshotsOn(open(environment.git), this.options.keepDays),
      stored,
      unattended: environment.confinement !== undefined,
      ready,
    };
    this.byPath.set(stored.path, workspace);
    return workspace;
  }

  /**
   * The workspace of folder `root` (the folder a merge cut off wrote into, as its record names it):
   * the project's, or one of its worktrees on disk; null when it is neither.
   */
  atFolder(root: string): Workspace | null {
    if (root === this.project.root) return this.project;
    const known = this.byPath.get(root);
    if (known) return known;
    const found = worktreesIn(this.folder()).find((w) => w.path === root);
    if (!found) return null;
    let view: Promise<SnapshotRepo | { off: string }> | null = null;
    const open =
      (git: RunGit): OpenRepo =>
      () => {
        view ??= this.repo().then((repo) => ("off" in repo ? repo : repo.view(found.path, git)));
        return view;
      };
    const stored = { path: found.path, base: found.base };
    return this.worktree(stored, open, workspaceEnvironment(stored.path, this.options.limits));
  }

  /** The threads (among `live`) that work in folder `root`. */
  usersOfFolder(root: string, live: Iterable<ThreadId>): ThreadId[] {
    return [...live].filter((id) => this.byThread.get(id)?.root === root);
  }

  /**
   * Removes a worktree and the store's index of it (a folder tine did not make is left alone). The
   * threads that worked there are forgotten here: one that comes back (an ended fork restored)
   * finds its worktree by its transcript again, made anew before anything is done in it.
   */
  async remove(root: string): Promise<void> {
    const repo = await this.repo();
    if (!removeWorktree(root, "off" in repo ? undefined : repo.viewIndex(root))) return;
    this.byPath.delete(root);
    for (const [id, workspace] of this.byThread) if (workspace.root === root) this.byThread.delete(id);
  }

  /** Where this project's merges under way are recorded (merge-record.ts): in its snapshot store; null while snapshots are off. */
  async mergeRecords(): Promise<string | null> {
    const repo = await this.repo();
    return "off" in repo ? null : join(repo.gitDir, "tine-merges");
  }

  /** Every worktree folder of this project (made by this host or an earlier one). */
  folder(): string {
    return projectWorktrees(this.options.dir, this.project.root);
  }
}
