/**
 * The git that reads the project for a thread (a send's mentions, completion's lists): a read of
 * the user's repository that runs none of its programs (GitRun.user), through the environment's
 * git in its root, within a time limit (`context_git_timeout`, each git on its own: Neovim waits on
 * it, so a git that hangs must not hold it). It reads only the project folder (the environment
 * root), whatever work tree the repository's config names: see `projectWorkTree`.
 */
import { realpathSync } from "node:fs";
import { outside } from "../util/outside.ts";
import { type GitResult, GitTimeout, type RunGit } from "./git.ts";

/** Where a project's git runs: an environment's root and its git (an Environment is one). */
export type GitPlace = { readonly root: string; readonly git: RunGit };

/** Why a send's git gave no answer in time, for the user: the error the mention reports. */
export class ContextGitTimeout extends Error {
  constructor(timeoutMs: number) {
    super(`git did not answer within ${timeoutMs / 1000} s (context_git_timeout) and was stopped`);
  }
}

/**
 * Runs `git args…` for a send in the environment's root (`readsContents`: it hashes work tree files, see GitRun;
 * `workTree`: the checked work tree it reads, see `projectWorkTree`); rejects with a
 * ContextGitTimeout past `timeoutMs`, or with git's error (a GitError; ENOENT: no git).
 */
export async function contextGit(
  { root, git }: GitPlace,
  args: readonly string[],
  timeoutMs: number,
  { readsContents = false, workTree }: { readsContents?: boolean; workTree?: ProjectWorkTree } = {},
): Promise<GitResult> {
  const env = workTree ? { GIT_WORK_TREE: workTree.path } : undefined;
  try {
    return await git(["--no-pager", "-c", "core.quotepath=off", ...args], { cwd: root, env, user: true, readsContents, timeoutMs });
  } catch (error) {
    if (error instanceof GitTimeout) throw new ContextGitTimeout(timeoutMs);
    throw error;
  }
}

/** The work tree of the project's repository, checked to be the project folder or one above it (links resolved). */
export type ProjectWorkTree = { readonly path: string };

/** The project's repository has its work tree elsewhere than the project folder or above it: git reads nothing there. */
class WorkTreeElsewhere extends Error {
  constructor(root: string, workTree: string) {
    super(
      `the repository's work tree (${workTree}) is neither the project folder (${root}) nor a folder above it (its config's core.worktree?): tine's git reads only the project`,
    );
  }
}

/**
 * The work tree a send's git may read for the project in `root`: null outside a repository (or
 * without git, or in a bare one); rejects with a WorkTreeElsewhere or a ContextGitTimeout.
 *
 * A repository's config is the project's (untrusted): `core.worktree` can aim git at any folder,
 * `/` included, and a diff then prints that folder's files. So the work tree git finds is taken
 * only when it is the project folder or above it; every git that reads files afterwards is pinned
 * to it (GIT_WORK_TREE: a config changed meanwhile cannot move it; `-c core.worktree=` cannot do
 * that, git takes the work tree from the repository's own config file) and limited to the project
 * folder by a pathspec (`-- .` from the project folder: with the project inside the pinned work
 * tree, `.` is the project, never the whole work tree).
 */
export async function projectWorkTree(place: GitPlace, timeoutMs: number): Promise<ProjectWorkTree | null> {
  const { root } = place;
  let top: string;
  try {
    top = (await contextGit(place, ["rev-parse", "--show-toplevel"], timeoutMs)).stdout.toString("utf8").replace(/\n$/, "");
  } catch (error) {
    if (error instanceof ContextGitTimeout) throw error;
    return null;
  }
  if (!top) return null;
  const [realTop, realRoot] = [realpathOr(top), realpathOr(root)];
  if (outside(realTop, realRoot)) throw new WorkTreeElsewhere(root, realTop);
  return { path: realTop };
}

function realpathOr(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}
