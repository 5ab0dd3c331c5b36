/**
 * Locks an earlier host left on tine's own snapshot store. A host restarted while one of its gits
 * ran (a snapshot through a fork's index, a ref written after it) leaves that git to finish on
 * its own, or, killed with it, its lock file behind (`<index>.lock`, `<ref>.lock`: git creates it
 * first and renames it over the file when done). The new host's git then refuses to work through
 * that file ("Unable to create '….lock': File exists"). The rule, here only: wait for the lock to
 * go (its git is finishing), watching its folder rather than sleeping; a lock no process holds
 * and nobody wrote for a while is stale: it is removed, and the log says so. A lock a live git
 * holds past a bound is an error that names it. Only locks inside tine's snapshot folder are
 * ever touched: the user's repository's are never removed (its git is the user's).
 */
import { type FSWatcher, lstatSync, readdirSync, readlinkSync, realpathSync, unlinkSync, watch } from "node:fs";
import { basename, dirname, isAbsolute, join, relative } from "node:path";
import { GitError } from "../tools/git.ts";
import { logLine } from "../util/log-line.ts";

/** How long a lock nobody holds must have gone unwritten before it is called stale (git writes it just before renaming it). */
const UNWRITTEN_MS = 1000;
/** Where it cannot be seen who holds a lock (no /proc): how long it must have gone unwritten. */
const UNWRITTEN_UNKNOWN_HOLDER_MS = 10_000;
/** How long a lock a live git holds is waited for. */
const HELD_MS = 60_000;
/** How often the holders are looked at again while the lock stays (its removal ends the wait at once). */
const LOOK_AGAIN_MS = 500;
/** A command meets a lock this many times at most (each one gone before it tries again). */
const TRIES = 5;

/** The lock file a failed git names ("Unable to create '<path>.lock': File exists") when it lies inside `folder`; else null. */
export function lockInside(error: unknown, folder: string): string | null {
  if (!(error instanceof GitError)) return null;
  const path = /Unable to create '(.+?\.lock)': File exists/.exec(error.stderr)?.[1];
  if (!path) return null;
  const rel = relative(folder, path);
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? path : null;
}

/**
 * Runs `attempt` (a git command on tine's store); when it fails on a lock inside `folder`, waits
 * that lock out (`awaitLockGone`) and runs it again. git takes its lock before it changes
 * anything, so a command refused for it did nothing.
 */
export async function pastStaleLocks<T>(folder: string, attempt: () => Promise<T>, log: (text: string) => void = logLine): Promise<T> {
  for (let tried = 1; ; tried++) {
    try {
      return await attempt();
    } catch (error) {
      const lock = lockInside(error, folder);
      if (!lock || tried >= TRIES) throw error;
      await awaitLockGone(lock, log);
    }
  }
}

/** Resolves once `lock` is gone: removed by its git, or by this rule as stale. Rejects when a live git holds it past HELD_MS. */
export async function awaitLockGone(lock: string, log: (text: string) => void): Promise<void> {
  const until = Date.now() + HELD_MS;
  let said = false;
  while (Date.now() < until) {
    if (await removedWithin(lock, Math.min(LOOK_AGAIN_MS, until - Date.now()))) return;
    const unwritten = unwrittenFor(lock);
    if (unwritten === null) return;
    const holders = lockHolders(lock);
    if (holders === null ? unwritten >= UNWRITTEN_UNKNOWN_HOLDER_MS : holders.length === 0 && unwritten >= UNWRITTEN_MS) {
      try {
        unlinkSync(lock);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
        return;
      }
      log(`tine: removed ${lock}: a stale git lock on tine's snapshot store (no process held it; an earlier host's git was stopped)`);
      return;
    }
    if (!said && holders?.length)
      log(`tine: ${lock} is held by git (pid ${holders.join(", ")}; an earlier host's, still finishing): waiting for it`);
    said ||= Boolean(holders?.length);
  }
  const holders = lockHolders(lock);
  throw new Error(
    `tine: ${lock} is still held${holders?.length ? ` by process ${holders.join(", ")}` : ""} after ${HELD_MS / 1000} s: the snapshot store is busy (another tine on this project?)`,
  );
}

/** Whether `lock` is gone now or within `ms`: its folder is watched, so its removal ends the wait at once. */
function removedWithin(lock: string, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    let watcher: FSWatcher | null = null;
    let timer: NodeJS.Timeout | null = null;
    const end = (gone: boolean) => {
      watcher?.close();
      if (timer) clearTimeout(timer);
      resolve(gone);
    };
    const check = () => {
      if (unwrittenFor(lock) === null) end(true);
    };
    try {
      watcher = watch(dirname(lock), (_event, name) => {
        if (name === null || name === basename(lock)) check();
      });
      watcher.on("error", () => end(unwrittenFor(lock) === null));
    } catch {
      // The folder cannot be watched: the lock is looked at again after `ms`.
    }
    timer = setTimeout(() => end(unwrittenFor(lock) === null), ms);
    // Gone between git's refusal and the watch.
    check();
  });
}

/** How long ago `lock` was last written (ms), or null when it is gone. */
function unwrittenFor(lock: string): number | null {
  try {
    return Date.now() - lstatSync(lock).mtimeMs;
  } catch {
    return null;
  }
}

/**
 * The processes that have `lock` open (git keeps its lock open from creating it to renaming it),
 * read from /proc; null where that cannot be read (not Linux).
 */
export function lockHolders(lock: string): number[] | null {
  let pids: string[];
  let target: string;
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
    // /proc names the file by its real path.
    target = join(realpathSync(dirname(lock)), basename(lock));
  } catch {
    return null;
  }
  const holders: number[] = [];
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // gone, or another user's
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) === target) {
          holders.push(Number(pid));
          break;
        }
      } catch {
        // closed meanwhile
      }
    }
  }
  return holders;
}
