/**
 * A fork's worktree on disk: a folder of its own holding every file of a snapshot (the user's
 * uncommitted changes included), with a git repository of its own, so the fork's tools (and its
 * `git status`) work there as in the project. Made and removed here; nothing else writes it.
 *
 * Why not `git worktree add`: that writes into the user's repository (its worktree list, and the
 * objects of a snapshot it never had). Here the user's repository is only read: the worktree's
 * own `.git` borrows objects from it (alternates), its HEAD is the user's HEAD commit (detached)
 * and its index that commit's tree, so `git status` there shows the uncommitted changes the user
 * had at the fork point. It borrows nothing from tine's store, whose housekeeping drops objects
 * no snapshot needs: what is committed there is written there. The files are written by git from tine's
 * store (read-tree + checkout-index through the store's index for this folder, which is then
 * ready for the next snapshot of it without reading a file again).
 */
import { copyFileSync, cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { SnapshotRepo } from "../snapshot/repo.ts";
import { type RunGit, splitNul } from "../tools/git.ts";
import { freeOn, isNoSpace, noSpaceLeft, writeError } from "../util/disk-space.ts";

/** What tine writes in a worktree's `.git`: whose it is and its fork point; a folder without it is never removed. */
export const MARKER = "tine-worktree";

/**
 * A worktree as the threads working in it store it: where, the snapshot it was made from (the fork
 * point), and whether its threads' tools run in the sandbox (an unattended fork's).
 */
export type StoredWorktree = { readonly path: string; readonly base: string; readonly unattended?: true };

/**
 * A conflicted merge waiting to be accepted (`:Tine merge done`), as the worktree's marker keeps
 * it: the folder merged into, its files left with conflicts, and the thread promoted into and the
 * fork's title (which a marker of an older tine lacks) for the line that thread's display shows.
 */
export type PendingMerge = {
  readonly into: string;
  readonly files: readonly string[];
  readonly parent?: string;
  readonly fork?: string;
};

type Marker = { readonly thread: string; readonly base: string; readonly project: string; readonly merge?: PendingMerge };

/** Files listed in the project's `.worktreeinclude` (git-ignored essentials such as `.env`), copied into every worktree. */
const INCLUDE_FILE = ".worktreeinclude";

/**
 * Makes worktree `path` (which must not exist) from snapshot `base` of `project`'s store, for
 * thread `thread`; returns the store's view of it. `include`: the folder whose `.worktreeinclude`
 * names the ignored files to copy in (the project's top folder). `git`: the worktree's environment's
 * (Environment.git), which runs its gits; the project's are read with the project's.
 */
export async function makeWorktree(
  project: SnapshotRepo,
  base: string,
  path: string,
  thread: string,
  git: RunGit = project.git,
): Promise<SnapshotRepo> {
  if (existsSync(path)) throw new Error(`tine: ${path} exists already: no worktree made there`);
  try {
    mkdirSync(path, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new Error(`tine: no worktree made: ${writeError(error, path)}`);
  }
  try {
    const view = project.view(path, git);
    const storeIndex = await view.checkout(base);
    const { objects, head } = await project.userHead();
    const gitDir = join(path, ".git");
    const env = { GIT_DIR: gitDir, GIT_WORK_TREE: path };
    await git(["init", "--quiet", "--template=", path], { cwd: path });
    writeFileSync(join(gitDir, "objects", "info", "alternates"), `${objects}\n`);
    if (head) {
      await git(["update-ref", "--no-deref", "HEAD", head], { cwd: path, env });
      // The files' stat data comes along: `git status` there reads only what differs from HEAD.
      copyFileSync(storeIndex, join(gitDir, "index"));
      await git(["read-tree", "-m", head], { cwd: path, env });
    }
    writeMarker(path, { thread, base, project: project.root });
    await copyIncluded(project, path);
    return view;
  } catch (error) {
    // git says only "unable to write file" (or "index file"): which disk filled, the worktree's or the store's?
    const store = dirname(project.gitDir);
    const full = (await filledUp(project, base, path)) ?? (await filledUp(project, base, store)) ?? (isNoSpace(error) ? path : null);
    rmSync(path, { recursive: true, force: true });
    throw full ? new Error(`tine: no worktree made: ${noSpaceLeft(full)}`) : error;
  }
}

/** `folder` when its disk filled up: not even the largest file of snapshot `base` fits there now; else null. */
async function filledUp(project: SnapshotRepo, base: string, folder: string): Promise<string | null> {
  const sizes = await project.fileSizes(base).catch(() => []);
  const { bytes, block } = freeOn(folder);
  return bytes < sizes.reduce((n, size) => Math.max(n, Math.ceil(size / block) * block), block) ? folder : null;
}

/** Copies the untracked files `.worktreeinclude` names (gitignore patterns) from the project to `to`, where `to` has none. */
async function copyIncluded(project: SnapshotRepo, to: string): Promise<void> {
  const from = project.root;
  if (!existsSync(join(from, INCLUDE_FILE))) return;
  const out = await project.git(["ls-files", "-z", "-o", "-i", "-X", INCLUDE_FILE], { cwd: from, user: true });
  for (const path of splitNul(out.stdout)) {
    const target = join(to, path);
    if (path.endsWith("/") || existsSync(target)) continue;
    mkdirSync(dirname(target), { recursive: true });
    if (lstatSync(join(from, path)).isSymbolicLink()) cpSync(join(from, path), target, { verbatimSymlinks: true });
    else copyFileSync(join(from, path), target);
  }
}

function markerPath(path: string): string {
  return join(path, ".git", MARKER);
}

function readMarker(path: string): Marker | null {
  try {
    return JSON.parse(readFileSync(markerPath(path), "utf8")) as Marker;
  } catch {
    return null;
  }
}

/** Whether folder `path` bears tine's marker: a worktree tine made (any other folder is not one). */
export function hasMarker(path: string): boolean {
  return readMarker(path) !== null;
}

function writeMarker(path: string, marker: Marker): void {
  writeFileSync(markerPath(path), `${JSON.stringify(marker)}\n`);
}

/** Notes (or clears, with null) a conflicted merge of the worktree's work, so it is found after a restart. */
export function setPendingMerge(path: string, merge: PendingMerge | null): void {
  const marker = readMarker(path);
  if (!marker) return;
  const { merge: _, ...rest } = marker;
  writeMarker(path, merge ? { ...rest, merge } : rest);
}

/** A worktree tine made, as found on disk: where, and what its marker says. */
export type FoundWorktree = {
  readonly path: string;
  readonly thread: string;
  readonly base: string;
  readonly merge: PendingMerge | null;
};

/** The worktrees tine made in `folder` (a project's); a folder without tine's marker is not one. */
export function worktreesIn(folder: string): FoundWorktree[] {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return []; // none made yet
  }
  return names.flatMap((name) => {
    const path = join(folder, name);
    const marker = readMarker(path);
    return marker ? [{ path, thread: marker.thread, base: marker.base, merge: marker.merge ?? null }] : [];
  });
}

/** Removes worktree `path` (and the store's index of it, `index`); a folder tine did not make (no marker) is left alone. True when removed. */
export function removeWorktree(path: string, index?: string): boolean {
  if (!readMarker(path)) return false;
  rmSync(path, { recursive: true, force: true });
  if (index) rmSync(index, { force: true });
  return true;
}
