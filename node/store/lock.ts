/**
 * One writer per thread: a lock file beside the transcript holds the pid of the host writing it.
 * A lock whose process is gone (a host killed with -9) is taken over.
 */
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";

export type LockResult = { readonly ok: true } | { readonly ok: false; readonly pid: number };

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The live process holding `path`, or null (no lock, a stale one, or our own). */
export function lockHolder(path: string, self = process.pid): number | null {
  let pid: number;
  try {
    pid = Number.parseInt(readFileSync(path, "utf8"), 10);
  } catch {
    return null;
  }
  return Number.isInteger(pid) && pid > 0 && pid !== self && alive(pid) ? pid : null;
}

export function acquireLock(path: string, self = process.pid): LockResult {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, "wx", 0o600);
      writeSync(fd, String(self));
      closeSync(fd);
      return { ok: true };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const holder = lockHolder(path, self);
    if (holder !== null) return { ok: false, pid: holder };
    // Ours already, or stale: replace it. Two takers race on `wx`; the loser sees the winner's pid.
    try {
      if (Number.parseInt(readFileSync(path, "utf8"), 10) === self) return { ok: true };
      unlinkSync(path);
    } catch {}
  }
  return { ok: false, pid: lockHolder(path, self) ?? 0 };
}

export function releaseLock(path: string, self = process.pid): void {
  try {
    if (Number.parseInt(readFileSync(path, "utf8"), 10) === self) unlinkSync(path);
  } catch {}
}
