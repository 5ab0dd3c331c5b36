/**
 * Where a thread's tools act, as a capability handed to them: its folder, its files and its shell.
 * Tools hold an Environment and never ask which kind it is; each kind is built by a factory
 * (localEnvironment; sandbox/sandbox-environment.ts's, confined by an OS sandbox), and which one a
 * thread gets is decided once, in worktree/workspaces.ts's workspaceEnvironment. This module only
 * declares the contract: no IO happens here.
 */
import type { RunGit } from "./git.ts";
import type { ProjectFiles } from "./project-files.ts";

/** Limits on what the tools' processes may do, from the user's config. */
export type ToolLimits = {
  /** Seconds a bash_command may run before it is killed with everything it started (bash_timeout). */
  readonly bashTimeoutSec: number;
  /** Variables removed from tool processes' environment, besides the host's own credentials (tool_env_deny). */
  readonly envDeny: readonly string[];
};

/** The host's own credentials: never in a tool process's environment, nor given to a server a project names. */
export const HOST_CREDENTIALS = ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"] as const;

/**
 * Every variable kept from what the user did not write themselves (tool processes; the MCP servers
 * a project's file names): the host's credentials and tool_env_deny's.
 */
export const deniedVariables = (envDeny: readonly string[]): ReadonlySet<string> => new Set([...HOST_CREDENTIALS, ...envDeny]);

/** The config's defaults, for environments built without a config (tests, tools run by hand). */
export const DEFAULT_TOOL_LIMITS: ToolLimits = { bashTimeoutSec: 120, envDeny: [] };

/** How much of a file a read takes, and which tool asks (refusals name it). */
export type ReadLimit = { readonly bytes: number; readonly tool: string };

/**
 * Where a read finds its file: "through-links", wherever the path leads now (a tool's read, whose
 * approval asks where it leads); "at-real-path", at a path whose links were resolved when it was
 * judged (a mention's), so a link swapped in since, for the file or a folder on its path, is refused, not followed.
 */
export type ReadAt = "through-links" | "at-real-path";

export type DirectoryEntry = { readonly name: string; readonly isDirectory: boolean };

/** How a command ended. */
export type CommandEnd =
  /** It exited by itself (or was killed by a signal from elsewhere). */
  | {
      readonly type: "exited";
      readonly code: number | null;
      readonly signal: NodeJS.Signals | null;
      /** It left processes running in the background, and they were stopped. */
      readonly leftBehind: boolean;
    }
  /** The caller's signal aborted it; it and everything it started were stopped. */
  | { readonly type: "aborted" }
  /** It ran past the time limit; it and everything it started were killed. */
  | { readonly type: "timed-out"; readonly afterSec: number };

/** What a command printed (stdout and stderr as they came, bounded: see runCommand) and how it ended. */
export type CommandResult = { readonly output: string; readonly end: CommandEnd };

/**
 * What confines an environment's tools (an OS sandbox: node/sandbox/), as approvals need it
 * (tools/approval.ts): a call that stays inside needs nobody's approval; one that leaves it waits
 * for the user, and only then runs, in `approved`, never silently retried outside.
 */
export type Confinement = {
  /** Why writing `path` leaves the confinement (it is not the thread's to write), or null. */
  writeOutside(path: string): string | null;
  /** Why reading `path` leaves it (it is hidden from the thread: credentials, tine's data), or null. */
  readOutside(path: string): string | null;
  /**
   * Where a call the user approved although it leaves the confinement runs: its files read and
   * written by the host as the user allowed, its command still confined but for the network.
   */
  readonly approved: Environment;
};

/**
 * Paths are taken as the model gives them: relative ones resolve against `root` (see `resolve`).
 * Failures are thrown as Errors whose message is meant for the model; file system errors keep
 * Node's `code` (`"ENOENT"` for a path that does not exist).
 */
export interface Environment {
  /** The folder the thread works in: relative paths resolve against it, and commands start in it. */
  readonly root: string;

  /** The absolute path the model means by `path`: itself when absolute, else joined to `root` with `..` folded (links not followed). */
  resolve(path: string): string;

  /**
   * Whether `path` lies inside `root` once `..` and symbolic links are resolved (a path that does
   * not exist yet counts by its nearest existing ancestor). Reads outside wait for approval.
   */
  contains(path: string): boolean;

  /** Where `path` leads once `..` and symbolic links are resolved (one that does not exist yet: by its nearest existing ancestor). */
  realPath(path: string): string;

  /**
   * The bytes of a regular file of at most `limit.bytes`. Anything else (directory, device, FIFO,
   * socket, a larger file) is refused without being read, and without blocking; the bound holds
   * even for files whose size the file system does not know (/proc). `at`: see ReadAt.
   */
  readFile(path: string, limit: ReadLimit, at?: ReadAt): Promise<Buffer>;

  /**
   * Why `writeFile` would refuse `path`, or null: a path spelled inside `root` that leads out of it
   * through a symbolic link is never written through (an edit must not change what the user never
   * shared). Callers that read before they write ask first, so nothing is read through it either.
   */
  writeRefusal(path: string): string | null;

  /**
   * Writes `bytes` to `path`. "create": only a file that does not exist yet (never through a
   * dangling link, never over a file that appeared meanwhile); "replace": an existing file's
   * contents. Throws what `writeRefusal` says.
   */
  writeFile(path: string, bytes: Uint8Array, mode: "create" | "replace"): Promise<void>;

  /** The entries of a directory, in no particular order. */
  listDirectory(path: string): Promise<readonly DirectoryEntry[]>;

  /**
   * Runs `command` with bash in `root`: without stdin, without the host's credentials or the
   * denied variables, within the time limit. Aborting `signal`, the time limit, the command's own
   * exit and the host's exit stop it and everything it started; output keeps its first and last
   * bytes and says how much of the middle was dropped. Throws when the command cannot start
   * (also when `signal` is already aborted).
   */
  runCommand(command: string, signal: AbortSignal): Promise<CommandResult>;

  /**
   * Runs git for tine where this environment's files are (snapshots, worktrees, merges, mentions):
   * without a shell, without the user's git set-up on tine's own repository, and on the user's
   * (`run.user`) never a program its config names. See git.ts; `localGit` is the local way, which
   * another kind of environment may delegate to.
   */
  readonly git: RunGit;

  /**
   * The project's files under `root` (tracked and untracked, not ignored: see project-files.ts,
   * the local way, which another kind of environment may delegate to). Rejects with a
   * ContextGitTimeout when its git takes longer than `gitTimeoutMs`.
   */
  listProjectFiles(gitTimeoutMs: number): Promise<ProjectFiles>;

  /** Present when the tools run confined (an OS sandbox): what approvals may skip, and where an approved call that leaves it runs. */
  readonly confinement?: Confinement;
}
