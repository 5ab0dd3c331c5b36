/**
 * Restoring the project's files to a snapshot: what a restore would change (the plan, shown
 * before anything is written), and writing exactly the files the plan names. A safety snapshot is
 * taken first, so the restore can be undone byte for byte. Files the user changed since the
 * thread's last snapshot are named and left alone unless the caller says to overwrite them; files
 * too big to be recorded are never touched; nothing is written through a link out of the project
 * (those files are skipped and named, links.ts).
 */
import { existsSync, lstatSync, mkdirSync, realpathSync, unlinkSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import type { FileChange, SnapshotId } from "../core/code-marks.ts";
import { replaceFile, replaceWithLink } from "../util/atomic-write.ts";
import { outside } from "../util/outside.ts";
import type { CodeSnapshots, StoredFile } from "./code.ts";
import { throughOutsideLinks } from "./links.ts";
import type { KeptFile, RestoreUndo } from "./undo-record.ts";

/** What a restore to `target` would do, seen from the files now (`safety`). */
export type RestorePlan = {
  readonly root: string;
  readonly target: SnapshotId;
  /** The files as they are now: what `restore undo` brings back. */
  readonly safety: SnapshotId;
  /** Files the restore writes (or deletes), with +/− from now to the snapshot. */
  readonly files: readonly FileChange[];
  /** Of those, files changed since the thread's last snapshot (by hand, or by something else): left alone unless overwritten. */
  readonly changedSince: readonly string[];
};

/**
 * How a restore went: the files written, those left alone (changed since, and not overwritten),
 * and those skipped (under a link out of the project, and such links).
 */
export type RestoreDone = { readonly written: readonly string[]; readonly left: readonly string[]; readonly skipped: readonly string[] };

/** How writing files went: those written (or removed), and those skipped as under a link out of the project. */
export type Written = { readonly written: readonly string[]; readonly skipped: readonly string[] };

/**
 * The plan to bring the files back to `target`; `latest`: the thread's last snapshot (a file that
 * differs from it now was changed since). Takes the safety snapshot.
 */
export async function planRestore(snapshots: CodeSnapshots, target: SnapshotId, latest: SnapshotId | null): Promise<RestorePlan> {
  const root = await snapshots.root();
  const safety = await snapshots.take("undo");
  if (!root || !safety) throw new Error("tine: code snapshots are off: nothing can be restored");
  // Files too big to be recorded (now or then) are not the snapshot's to decide.
  const unrecorded = new Set([...safety.skipped, ...(await snapshots.skippedIn(target))]);
  const files = (target === safety.id ? [] : await snapshots.changes(safety.id, target)).filter((f) => !unrecorded.has(f.path));
  const since =
    latest && latest !== safety.id ? new Set((await snapshots.changes(latest, safety.id)).map((f) => f.path)) : new Set<string>();
  return { root, target, safety: safety.id, files, changedSince: files.map((f) => f.path).filter((p) => since.has(p)) };
}

/** Writes the plan's files as `plan.target` holds them (all of them with `overwrite`, else not those changed since). */
export async function applyRestore(snapshots: CodeSnapshots, plan: RestorePlan, overwrite: boolean): Promise<RestoreDone> {
  const left = overwrite ? [] : plan.changedSince;
  const skip = new Set(left);
  const paths = plan.files.map((f) => f.path).filter((p) => !skip.has(p));
  return { ...(await writeFiles(snapshots, plan.root, plan.target, paths)), left };
}

/**
 * Makes `paths` (relative to `root`) what snapshot `id` holds: written with their mode, or
 * removed where it holds none; except those through a link out of the project, which are skipped.
 */
export async function writeFiles(snapshots: CodeSnapshots, root: string, id: SnapshotId, paths: readonly string[]): Promise<Written> {
  const skipped = throughOutsideLinks(root, paths);
  const written = paths.filter((p) => !skipped.includes(p));
  const stored = await snapshots.read(id, written);
  for (const path of written) writeStored(root, path, stored.get(path) ?? null);
  return { written, skipped };
}

/** Puts back what `undo` kept: the files its snapshot holds, or the files it kept itself. */
export async function writeUndone(snapshots: CodeSnapshots, root: string, undo: RestoreUndo): Promise<Written> {
  switch (undo.kind) {
    case "snapshot":
      return writeFiles(snapshots, root, undo.safety, undo.paths);
    case "files":
      return writeKept(root, undo.files);
  }
}

/** As `writeFiles`, from files kept as they are rather than a snapshot. */
function writeKept(root: string, files: readonly KeptFile[]): Written {
  const skipped = throughOutsideLinks(
    root,
    files.map((f) => f.path),
  );
  const kept = files.filter((f) => !skipped.includes(f.path));
  for (const f of kept) writeStored(root, f.path, f.file);
  return { written: kept.map((f) => f.path), skipped };
}

/**
 * Makes `path` (relative to `root`) hold `file`, or removes it (null). Each file is replaced whole
 * (util/atomic-write.ts): a write cut off leaves the file as it was, never empty or half-written.
 */
export function writeStored(root: string, path: string, file: StoredFile | null): void {
  const abs = join(root, path);
  refuseOutside(root, abs);
  if (!file) {
    if (exists(abs)) unlinkSync(abs);
    return;
  }
  mkdirSync(dirname(abs), { recursive: true });
  // A link in the way is replaced by the file (the rename replaces the link), never written through.
  if (file.mode === "120000") replaceWithLink(abs, file.bytes.toString("utf8"));
  else replaceFile(abs, file.bytes, file.mode === "100755" ? 0o755 : 0o644);
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** A path whose folder leads out of the project through a link is never written (one that became so since it was skipped is refused). */
function refuseOutside(root: string, abs: string): void {
  let dir = dirname(abs);
  while (!existsSync(dir)) dir = dirname(dir);
  if (outside(realpathSync(root), realpathSync(dir)))
    throw new Error(`tine: ${relative(root, abs)} leads out of the project through a link: not restored`);
}
