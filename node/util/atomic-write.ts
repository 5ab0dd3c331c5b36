/**
 * Files written whole or not at all: the bytes go to a temporary file beside the file (same
 * folder, same disk), which is then renamed over it. A process killed mid-write (kill -9), or a
 * disk that fills, leaves the old file as it was, never an empty or half-written one; at worst the
 * temporary file stays, and its name is known (`tempFor`), so whoever finishes or undoes the work
 * removes it.
 */
import { chmodSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { sha256Hex } from "./sha256.ts";

/** The temporary file a write of `path` goes through: in its folder, named from its name (short, whatever that is). */
export function tempFor(path: string): string {
  return join(dirname(path), `.tine-${sha256Hex(basename(path)).slice(0, 16)}.new`);
}

function replaceWith(path: string, make: (temp: string) => void): void {
  const temp = tempFor(path);
  rmSync(temp, { force: true });
  try {
    make(temp);
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/** Makes `path` a file holding `bytes` with permissions `mode`, whole or not at all (a link there is replaced, never written through). */
export function replaceFile(path: string, bytes: Uint8Array, mode: number): void {
  replaceWith(path, (temp) => {
    writeFileSync(temp, bytes, { mode, flag: "wx" });
    chmodSync(temp, mode);
  });
}

/** Makes `path` a symbolic link to `target`, in one step. */
export function replaceWithLink(path: string, target: string): void {
  replaceWith(path, (temp) => symlinkSync(target, temp));
}
