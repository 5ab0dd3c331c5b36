/**
 * Room on a disk, said for the user: which disk a folder is on (the folder it is mounted at), how
 * much is free there, and the "no space left on <disk>" message that names the disk and the folder
 * written. Writes that would not fit are refused before anything is written (a merge, a worktree),
 * and a write that failed is said to have found the disk full when that is why.
 */
import { existsSync, statfsSync, statSync } from "node:fs";
import { dirname } from "node:path";

/** The nearest folder of `path` that exists (itself when it does). */
function existing(path: string): string {
  let at = path;
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
  return at;
}

/** The folder the disk holding `path` is mounted at: the last folder up from it on the same device. */
export function diskOf(path: string): string {
  let at = existing(path);
  const device = statSync(at).dev;
  for (let up = dirname(at); up !== at && statSync(up).dev === device; up = dirname(up)) at = up;
  return at;
}

/** Bytes and files (inodes) that can still be written on the disk holding `path`, and its block size. */
export function freeOn(path: string): { bytes: number; files: number; block: number } {
  const s = statfsSync(existing(path));
  return { bytes: s.bavail * s.bsize, files: s.ffree, block: s.bsize };
}

/** `n` bytes, said briefly (1536 → "1.5 KiB"). */
export function sizeText(n: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0;
  let v = n;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${n} B` : `${v.toFixed(1)} ${units[i]}`;
}

/** "no space left on <disk> (<folder>)": the disk and the folder that was to be written. */
export function noSpaceLeft(folder: string): string {
  const disk = diskOf(folder);
  return disk === folder ? `no space left on ${disk}` : `no space left on ${disk} (writing ${folder})`;
}

/**
 * Throws "no space left on …" when `bytes` bytes in `files` new files do not fit on the disk of
 * `folder` now: a write that would fill it is not begun.
 */
export function checkRoom(folder: string, bytes: number, files = 0): void {
  const free = freeOn(folder);
  if (free.bytes >= bytes && free.files >= files) return;
  const short =
    free.bytes < bytes ? `${sizeText(bytes)} needed, ${sizeText(free.bytes)} free` : `${files} files needed, ${free.files} free`;
  throw Object.assign(new Error(`${noSpaceLeft(folder)}: ${short}`), { code: "ENOSPC" });
}

/** What `error`, from writing into `folder`, says: a full disk named as such ("no space left on …"), else its own message. */
export function writeError(error: unknown, folder: string): string {
  const message = error instanceof Error ? error.message : String(error);
  if (message.startsWith("no space left on ")) return message; // checkRoom's, naming the disk already
  return isNoSpace(error) ? noSpaceLeft(folder) : message;
}

/** Whether `error` says a disk was full (ENOSPC, or git's words for it). */
export function isNoSpace(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown; stderr?: unknown } | null;
  return e?.code === "ENOSPC" || /No space left on device/i.test(`${String(e?.message ?? "")}\n${String(e?.stderr ?? "")}`);
}
