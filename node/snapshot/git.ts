/**
 * Runs real git for the snapshot store (and the worktrees): no shell, with an environment of the
 * store's own, so nothing of the user's git set-up (GIT_* variables, their config, filters, hooks)
 * acts on tine's private repository, and nothing tine runs touches the user's.
 *
 * Each git leads a process group of its own (gc and checkout-index start gits of their own), so
 * that `stopGits` stops all of it when the host goes: nothing it started writes the store after
 * the host has exited.
 */
import { type ChildProcess, spawn } from "node:child_process";
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

/** The gits running now, each with the end of its process (its output closed). */
const running = new Map<ChildProcess, Promise<void>>();
/** Set once the host is going: no git starts any more. */
let stopping = false;

/** How long gits asked to stop (SIGTERM: git removes its lock files) have before they are killed. */
const STOP_GRACE_MS = 500;
/** How long killed gits are waited for. */
const KILL_WAIT_MS = 300;

/** Runs `git args…`; resolves with its output, rejects with a GitError (ENOENT: git is not installed). */
export function git(args: readonly string[], run: GitRun): Promise<GitResult> {
  if (stopping) return Promise.reject(new GitError(args, "stopped", "tine is stopping"));
  return new Promise((resolve, reject) => {
    const child = spawn("git", args, { cwd: run.cwd, env: gitEnv(run.env, run.user), detached: true, stdio: "pipe" });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let bytes = 0;
    let failure: GitError | null = null;
    child.stdout.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes <= MAX_BUFFER) stdout.push(chunk);
      else if (!failure) {
        failure = new GitError(args, "ERR_CHILD_PROCESS_STDIO_MAXBUFFER", "its output was too large");
        signalGroup(child, "SIGTERM");
      }
    });
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    const ended = new Promise<void>((ended) => {
      // A git that could not start (ENOENT) says so here, and may not close.
      child.once("error", (error: NodeJS.ErrnoException) => {
        running.delete(child);
        reject(new GitError(args, error.code ?? -1, error.message));
        ended();
      });
      child.once("close", (exit: number | null, signal: NodeJS.Signals | null) => {
        running.delete(child);
        ended();
        const code = exit ?? signal ?? -1;
        const said = Buffer.concat(stderr).toString("utf8");
        if (failure) reject(failure);
        else if (typeof code === "string" || (code !== 0 && !run.okCodes?.includes(code))) reject(new GitError(args, code, said));
        else resolve({ stdout: Buffer.concat(stdout), stderr: said, code });
      });
    });
    if (child.pid === undefined) return;
    running.set(child, ended);
    if (run.background) {
      try {
        setPriority(child.pid, BACKGROUND_PRIORITY);
      } catch {
        // not allowed here, or already gone: it runs at the host's priority
      }
    }
    // A git that exits before reading all its input must not crash the host.
    child.stdin.on("error", () => {});
    if (run.input !== undefined) child.stdin.end(run.input);
    else child.stdin.end();
  });
}

/**
 * The host is going: no git starts any more, and those running are stopped with everything they
 * started (asked first, so each removes its lock files and the store stays whole; killed if they
 * linger). Resolves once they are gone, within a second.
 */
export async function stopGits(): Promise<void> {
  stopping = true;
  const ends = Promise.all(running.values());
  for (const child of running.keys()) signalGroup(child, "SIGTERM");
  if (await within(ends, STOP_GRACE_MS)) return;
  for (const child of running.keys()) signalGroup(child, "SIGKILL");
  await within(ends, KILL_WAIT_MS);
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/** Whether `work` ends within `ms`. */
async function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((done) => {
    timer = setTimeout(() => done(false), ms);
  });
  return Promise.race([work.then(() => true), late]).finally(() => clearTimeout(timer));
}

/** NUL-separated fields of git's `-z` output. */
export function splitNul(out: Buffer): string[] {
  const text = out.toString("utf8");
  const parts = text.split("\0");
  if (parts.at(-1) === "") parts.pop();
  return parts;
}
