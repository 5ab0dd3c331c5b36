/**
 * One writer per thread: a lock file beside the transcript holds the pid of the host writing it.
 * A lock whose process is gone (a host killed with -9, a Neovim that quit) is taken over. A lock
 * path that is not a regular file (a planted link) is refused, never read through or replaced.
 */
import { closeSync, constants, openSync, unlinkSync, writeSync } from "node:fs";
import { readRegular } from "../util/regular-file.ts";

export type LockResult = { readonly ok: true } | { readonly ok: false; readonly pid: number };

/** Whether process `pid` runs (ours or someone else's). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The pid written in a lock, NaN when it holds none; null when there is no lock. Throws on a lock that is not a regular file. */
function pidIn(path: string): number | null {
  try {
    return Number.parseInt(readRegular(path).toString("utf8"), 10);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/** The live process holding `path`, or null (no lock, a stale one, or our own). */
export function lockHolder(path: string, self = process.pid): number | null {
  const pid = pidIn(path);
  return pid !== null && Number.isInteger(pid) && pid > 0 && pid !== self && alive(pid) ? pid : null;
}

export function acquireLock(path: string, self = process.pid): LockResult {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      // O_EXCL: never opens an existing path, a link included.
      const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
      writeSync(fd, String(self));
      closeSync(fd);
      return { ok: true };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const holder = lockHolder(path, self);
    if (holder !== null) return { ok: false, pid: holder };
    // Ours already, or stale: replace it. Two takers race on O_EXCL; the loser sees the winner's pid.
    if (pidIn(path) === self) return { ok: true };
    try {
      unlinkSync(path);
    } catch {}
  }
  return { ok: false, pid: lockHolder(path, self) ?? 0 };
}

export function releaseLock(path: string, self = process.pid): void {
  try {
    if (pidIn(path) === self) unlinkSync(path);
  } catch {}
}
