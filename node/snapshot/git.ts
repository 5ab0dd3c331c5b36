/**
 * Runs real git for the snapshot store: execFile (no shell), with an environment of the store's
 * own, so nothing of the user's git set-up (GIT_* variables, their config, filters, hooks) acts on
 * tine's private repository, and nothing tine runs touches the user's.
 */
import { execFile } from "node:child_process";
import { setPriority } from "node:os";

/** The niceness of background git work. */
const BACKGROUND_PRIORITY = 10;

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
  /** Reads the user's repository as the user's git would (their global config included); nothing is written with it. */
  readonly user?: boolean;
  /** Work nobody waits for: git runs at a lower CPU priority, so the editor and streams keep theirs. */
  readonly background?: boolean;
};

/** Bigger than any listing or diff tine reads (a file's content is at most the skip size). */
const MAX_BUFFER = 256 * 1024 * 1024;

/**
 * The environment git runs in: the host's, without any GIT_* variable (a host started from a git
 * hook would otherwise aim git at the user's repository), without the user's global and system
 * config (their filters, autocrlf or hooks path must not change what is stored: a snapshot is the
 * files' bytes), and with an identity for the snapshot commits.
 */
export function gitEnv(extra: Readonly<Record<string, string>> = {}, user = false): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("GIT_")) env[k] = v;
  return {
    ...env,
    ...(user ? {} : { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" }),
    GIT_TERMINAL_PROMPT: "0",
    GIT_AUTHOR_NAME: "tine",
    GIT_AUTHOR_EMAIL: "tine@localhost",
    GIT_COMMITTER_NAME: "tine",
    GIT_COMMITTER_EMAIL: "tine@localhost",
    LC_ALL: "C",
    ...extra,
  };
}

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

/** Runs `git args…`; resolves with its output, rejects with a GitError (ENOENT: git is not installed). */
export function git(args: readonly string[], run: GitRun): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      "git",
      args,
      { cwd: run.cwd, env: gitEnv(run.env, run.user), encoding: "buffer", maxBuffer: MAX_BUFFER },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : (error.code ?? -1)) : 0;
        if (typeof code === "string" || (code !== 0 && !run.okCodes?.includes(code))) {
          reject(new GitError(args, code, stderr.toString("utf8")));
          return;
        }
        resolve({ stdout, stderr: stderr.toString("utf8"), code });
      },
    );
    if (run.background && child.pid !== undefined) {
      try {
        setPriority(child.pid, BACKGROUND_PRIORITY);
      } catch {
        // not allowed here, or already gone: it runs at the host's priority
      }
    }
    // A git that exits before reading all its input must not crash the host.
    child.stdin?.on("error", () => {});
    if (run.input !== undefined) child.stdin?.end(run.input);
    else child.stdin?.end();
  });
}

/** NUL-separated fields of git's `-z` output. */
export function splitNul(out: Buffer): string[] {
  const text = out.toString("utf8");
  const parts = text.split("\0");
  if (parts.at(-1) === "") parts.pop();
  return parts;
}
