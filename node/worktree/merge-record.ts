/**
 * A promote's merge under way, recorded on disk before its first file is written and removed after
 * its last: if the host dies in between (kill -9, a crash, power), the next host finds it and rolls
 * the merge back (merge-recovery.ts). One file per fork, `tine-merges/<fork id>.json` in the
 * project's snapshot store: never in a folder a thread works in, where an agent's tools could
 * write one. Written whole and synced (temporary file, fsync, rename, fsync of the folder); read
 * back field by field, and a record that is not one tine wrote is ignored.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import type { SnapshotId } from "../core/code-marks.ts";
import { isThreadId } from "../core/ids.ts";
import { isProjectPath, isSha } from "../snapshot/undo-record.ts";
import { type FileHash, isFileHash } from "./file-hash.ts";

/**
 * A file the merge writes or removes (relative to the folder it writes into): what it held before
 * (`ours`) and what the merge makes of it (`merged`), as hashes. Undone, only a file still as the
 * merge made it is put back; one the user changed since is left alone.
 */
export type MergedFile = { readonly path: string; readonly ours: FileHash; readonly merged: FileHash };

/** What the next host needs to undo a merge cut off: whose, where it wrote, and what the files were before. */
export type MergeUnderWay = {
  /** The fork being promoted. */
  readonly fork: string;
  readonly forkTitle: string;
  readonly parentTitle: string;
  /** The folder the merge writes into (the parent's): the project's, or a worktree of it. */
  readonly into: string;
  /** Snapshot of `into` taken just before the merge: what the files go back to. */
  readonly ours: SnapshotId;
  /** Every file the merge writes or removes. */
  readonly files: readonly MergedFile[];
  /** The host doing it: while it runs, its merge is not another host's to undo. */
  readonly pid: number;
};

const fileOf = (dir: string, fork: string) => join(dir, `${fork}.json`);

/** Records `merge` in `dir` (made when missing), synced to disk before this returns. */
export function recordMerge(dir: string, merge: MergeUnderWay): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = fileOf(dir, merge.fork);
  const temp = `${file}.${process.pid}.tmp`;
  try {
    const fd = openSync(temp, "w", 0o600);
    try {
      writeSync(fd, JSON.stringify(merge));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  syncFolder(dir);
}

/** The merge of fork `fork` is over (written whole, or undone): its record goes. */
export function mergeOver(dir: string, fork: string): void {
  rmSync(fileOf(dir, fork), { force: true });
  syncFolder(dir);
}

/** The merges recorded in `dir` (none when it does not exist); files that are not records tine wrote are left out. */
export function mergesUnderWay(dir: string): MergeUnderWay[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    if (!name.endsWith(".json")) return [];
    try {
      const merge = parse(JSON.parse(readFileSync(join(dir, name), "utf8")));
      return merge && `${merge.fork}.json` === name ? [merge] : [];
    } catch {
      return [];
    }
  });
}

const isText = (v: unknown): v is string => typeof v === "string" && v.length <= 1000;

function parse(data: unknown): MergeUnderWay | null {
  if (typeof data !== "object" || data === null) return null;
  const { fork, forkTitle, parentTitle, into, ours, files, pid } = data as Record<string, unknown>;
  if (!isThreadId(fork) || !isText(forkTitle) || !isText(parentTitle) || !isSha(ours)) return null;
  if (typeof into !== "string" || !isAbsolute(into) || into.includes("\0")) return null;
  if (!Array.isArray(files) || !files.every(isMergedFile) || !Number.isSafeInteger(pid) || (pid as number) <= 0) return null;
  return {
    fork,
    forkTitle,
    parentTitle,
    into,
    ours,
    files: files.map(({ path, ours, merged }) => ({ path, ours, merged })),
    pid: pid as number,
  };
}

function isMergedFile(v: unknown): v is MergedFile {
  if (typeof v !== "object" || v === null) return false;
  const { path, ours, merged } = v as Record<string, unknown>;
  return isProjectPath(path) && isFileHash(ours) && isFileHash(merged);
}

/** A rename or removal in `dir` survives a power cut once the folder itself is synced. */
function syncFolder(dir: string): void {
  let fd: number | null = null;
  try {
    fd = openSync(dir, "r");
    fsyncSync(fd);
  } catch {
    // Some systems cannot sync a folder: the rename is still atomic against a killed process.
  } finally {
    if (fd !== null) closeSync(fd);
  }
}
