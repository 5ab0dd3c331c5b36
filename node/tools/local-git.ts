/**
 * The local way to run git for tine (Environment.git's default, see git.ts for the contract): real git, spawned without a shell, with an environment of tine's own, so nothing of
 * the user's git set-up (GIT_* variables, their config, filters, hooks) acts on tine's private
 * repository, and nothing tine runs touches the user's. Reads of the user's repository (`user`)
 * take their config, but never run a program a repository's config names (`USER_READ`): its
 * `.git/config` is the project's, which tine does not trust. A git Neovim waits on (a send's
 * mentions) is given a time limit (`timeoutMs`).
 *
 * Each git leads a process group of its own (gc and checkout-index start gits of their own; an
 * fsmonitor or filter may start anything), so that a time limit and `stopGits` stop all of it:
 * nothing it started writes the store after the host has exited.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { setPriority } from "node:os";
import { startTimer } from "../util/timer.ts";
import { GitError, type GitResult, type GitRun, GitTimeout, splitNul } from "./git.ts";
import { toolEnv } from "./local-shell.ts";

/** The niceness of background git work. */
const BACKGROUND_PRIORITY = 10;

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
  // Never the host's credentials: git may start a program of the user's (a credential helper, a filter).
  for (const [k, v] of Object.entries(toolEnv([]))) if (!k.startsWith("GIT_")) env[k] = v;
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

/**
 * What a read of the user's repository never does. Run the programs a config may name: an
 * fsmonitor hook or daemon (`core.fsmonitor`, run on every index read: one that sleeps froze a
 * send), hooks (`post-index-change` runs when the index is written); nor write the index to
 * refresh it (`--no-optional-locks`). An empty `core.fsmonitor` is off in every git version (a
 * hook path before 2.36, a boolean since). Filters are named per driver: `filterDriversOff`. A
 * diff's own programs (textconv, external diff) are its options: `--no-textconv --no-ext-diff`.
 */
const USER_READ = ["-c", "core.fsmonitor=", "-c", "core.hooksPath=/dev/null", "--no-optional-locks"];

/**
 * `-c` options that turn off every filter driver the config of `cwd`'s repository names (clean,
 * smudge and long-running process filters; `required` off, or git would fail for want of one).
 */
async function filterDriversOff(run: GitRun): Promise<string[]> {
  const { timeoutMs, cwd } = run;
  const listed = await localGit(["config", "-z", "--name-only", "--get-regexp", "^filter\\."], {
    cwd,
    timeoutMs,
    user: true,
    okCodes: [1],
  });
  // `filter.<driver>.<key>`: a driver's name may hold dots; a key without one names no driver.
  const drivers = new Set(splitNul(listed.stdout).map((name) => name.slice("filter.".length, name.lastIndexOf("."))));
  drivers.delete("");
  return [...drivers].flatMap((driver) => {
    // `-c` splits at the first `=`: a driver so named could not be turned off.
    if (driver.includes("=")) throw new Error(`the repository's config names a filter (${JSON.stringify(driver)}) tine cannot turn off`);
    return ["clean", "smudge", "process"]
      .flatMap((key) => ["-c", `filter.${driver}.${key}=`])
      .concat("-c", `filter.${driver}.required=false`);
  });
}

/** Runs `git args…`; resolves with its output, rejects with a GitError (ENOENT: git is not installed) or a GitTimeout. */
export async function localGit(args: readonly string[], run: GitRun): Promise<GitResult> {
  const safe = run.user ? [...USER_READ, ...(run.readsContents ? await filterDriversOff(run) : [])] : [];
  return runGit([...safe, ...args], args, run);
}

/** The gits running now, each with the end of its process (its output closed). */
const running = new Map<ChildProcess, Promise<void>>();
/** Set once the host is going: no git starts any more. */
let stopping = false;

/** How long gits asked to stop (SIGTERM: git removes its lock files) have before they are killed. */
const STOP_GRACE_MS = 500;
/** How long killed gits are waited for. */
const KILL_WAIT_MS = 300;

function runGit(argv: readonly string[], args: readonly string[], run: GitRun): Promise<GitResult> {
  if (stopping) return Promise.reject(new GitError(args, "stopped", "tine is stopping"));
  return new Promise((resolve, reject) => {
    const child = spawn("git", argv, { cwd: run.cwd, env: gitEnv(run.env, run.user), detached: true, stdio: "pipe" });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let size = 0;
    let failure: Error | null = null;
    child.stdout.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BUFFER) out.push(chunk);
      else if (!failure) {
        failure = new GitError(args, "ERR_CHILD_PROCESS_STDIO_MAXBUFFER", "its output was too large");
        signalGroup(child, "SIGKILL");
      }
    });
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    const timer =
      run.timeoutMs === undefined
        ? undefined
        : startTimer(() => {
            failure ??= new GitTimeout(args, run.timeoutMs!);
            signalGroup(child, "SIGKILL");
            // A process it started may hold the output open past the kill: answer now.
            reject(failure);
          }, run.timeoutMs);
    const ended = new Promise<void>((ended) => {
      // A git that could not start (ENOENT) says so here, and may not close.
      child.once("error", (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        running.delete(child);
        reject(new GitError(args, error.code ?? -1, error.message));
        ended();
      });
      // "close": the output is all read (a process it started may hold it open: the time limit covers that).
      child.once("close", (exit: number | null, signal: NodeJS.Signals | null) => {
        clearTimeout(timer);
        running.delete(child);
        ended();
        const code = exit ?? signal ?? -1;
        const stderr = Buffer.concat(err).toString("utf8");
        if (failure) reject(failure);
        else if (typeof code === "string" || (code !== 0 && !run.okCodes?.includes(code))) reject(new GitError(args, code, stderr));
        else resolve({ stdout: Buffer.concat(out), stderr, code });
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
