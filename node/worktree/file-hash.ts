/**
 * What a file of a tree holds, in a few bytes: a hash of its mode and bytes (or of a link's
 * target), as a snapshot stores it or as it is on disk now. A merge records the hash of what it
 * writes and of what was there before, so that undoing it touches only files still as it left
 * them, and it never replaces a file that changed since it was planned (merge.ts, merge-recovery.ts).
 */
import { createHash } from "node:crypto";
import { lstatSync, readFileSync, readlinkSync } from "node:fs";
import type { StoredFile } from "../snapshot/code.ts";

/** SHA-256 (hex) of a file's mode and bytes; null: no file there. */
export type FileHash = string | null;

/** Something at a path that no snapshot holds (a folder, a socket): equal to no recorded hash. */
const NOT_A_FILE = "not a file";

export const isFileHash = (v: unknown): v is FileHash => v === null || (typeof v === "string" && /^[0-9a-f]{64}$/.test(v));

/** The hash of `file` as a snapshot holds it (null: none). */
export function hashOf(file: StoredFile | null): FileHash {
  if (!file) return null;
  return createHash("sha256").update(`${file.mode}\0`).update(file.bytes).digest("hex");
}

/** The hash of what is at `abs` now, as a snapshot would store it (a link is not followed). */
export function hashOnDisk(abs: string): FileHash {
  let info: ReturnType<typeof lstatSync>;
  try {
    info = lstatSync(abs);
  } catch {
    return null;
  }
  if (info.isSymbolicLink()) return hashOf({ mode: "120000", bytes: Buffer.from(readlinkSync(abs), "utf8") });
  if (!info.isFile()) return NOT_A_FILE;
  return hashOf({ mode: (info.mode & 0o100) !== 0 ? "100755" : "100644", bytes: readFileSync(abs) });
}
