/**
 * Git as an environment runs it for tine (Environment.git): what a run asks, what it answers, how
 * it fails. Only the contract: the local way to run it is local-git.ts, which any other kind of
 * environment may delegate to.
 */

export type GitResult = { readonly stdout: Buffer; readonly stderr: string; readonly code: number };

export type GitRun = {
  /** The folder git starts in. */
  readonly cwd: string;
  /** Variables added to the cleaned environment (GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE…). */
  readonly env?: Readonly<Record<string, string>>;
  /** Written to git's stdin, then closed. */
  readonly input?: string | Buffer;
  /** Exit codes that are answers, not failures (`diff --quiet` exits 1 for "differs"). */
  readonly okCodes?: readonly number[];
  /**
   * Reads the user's repository as the user's git would (their global config included), with
   * none of the programs a config names run (USER_READ); nothing is written with it.
   */
  readonly user?: boolean;
  /**
   * With `user`: the command reads files' contents through their filters (a diff against the work
   * tree), so each filter driver the config names is turned off first (one `git config` more).
   */
  readonly readsContents?: boolean;
  /** Work nobody waits for: git runs at a lower CPU priority, so the editor and streams keep theirs. */
  readonly background?: boolean;
  /** Past this, git and everything it started are killed and the call rejects with a GitTimeout. */
  readonly timeoutMs?: number;
};

/** Bigger than any listing or diff tine reads (a file's content is at most the skip size). */

/** Runs `git args…` as `run` says; resolves with its output, rejects with a GitError (ENOENT: git is not installed) or a GitTimeout. */
export type RunGit = (args: readonly string[], run: GitRun) => Promise<GitResult>;

/** A git command that failed: its arguments and what git said. */
export class GitError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly code: number | string,
    readonly stderr: string,
  ) {
    super(`git ${args[0] ?? ""} failed (${code}): ${stderr.trim().split("\n")[0] ?? ""}`);
  }
}

/** A git that ran past its time limit (GitRun.timeoutMs): it was killed with everything it started. */
export class GitTimeout extends Error {
  constructor(
    readonly args: readonly string[],
    readonly afterMs: number,
  ) {
    super(`git ${args[0] ?? ""} did not answer within ${afterMs} ms and was stopped`);
  }
}

/** NUL-separated fields of git's `-z` output. */
export function splitNul(out: Buffer): string[] {
  const text = out.toString("utf8");
  const parts = text.split("\0");
  if (parts.at(-1) === "") parts.pop();
  return parts;
}
