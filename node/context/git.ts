/**
 * The git a send runs for its mentions (`@diff`, `@staged`, `@diff:<rev>`, the file list of an
 * `@file:` glob): a read of the user's repository that runs none of its programs (the one rule of
 * snapshot/git.ts), in the thread's environment root without a shell, and within the send's time
 * limit (`context_git_timeout`, each git on its own): Neovim waits for the send, so a git that
 * hangs must not hold it. A revision is checked before it reaches git's command line. It reads
 * only the project folder (the environment root), whatever work tree the repository's config
 * names: see `projectWorkTree`.
 */
import { realpathSync } from "node:fs";
import { outside } from "../snapshot/links.ts";
import { type GitResult, GitTimeout } from "../tools/git.ts";
import { localGit as git } from "../tools/local-git.ts";
import { headAndTail } from "../util/head-and-tail.ts";

/** What a diff compares: the work tree with the index, the index with HEAD, or the work tree with a revision. */
export type DiffOf = { readonly type: "unstaged" } | { readonly type: "staged" } | { readonly type: "rev"; readonly rev: string };

/** A revision as git spells them (`HEAD~2`, `main...feature`, `@{upstream}`, `v1.0^`), never an option. */
const REV = /^(?!-)[\w./~^@{}:+-]+$/;

/** Why a send's git gave no answer in time, for the user: the error the mention reports. */
export class ContextGitTimeout extends Error {
  constructor(timeoutMs: number) {
    super(`git did not answer within ${timeoutMs / 1000} s (context_git_timeout) and was stopped`);
  }
}

/**
 * Runs `git args…` for a send in `root` (`readsContents`: it hashes work tree files, see GitRun;
 * `workTree`: the checked work tree it reads, see `projectWorkTree`); rejects with a
 * ContextGitTimeout past `timeoutMs`, or with git's error (a GitError; ENOENT: no git).
 */
export async function contextGit(
  root: string,
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
export async function projectWorkTree(root: string, timeoutMs: number): Promise<ProjectWorkTree | null> {
  let top: string;
  try {
    top = (await contextGit(root, ["rev-parse", "--show-toplevel"], timeoutMs)).stdout.toString("utf8").replace(/\n$/, "");
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

/** git's own words for a failure: the first line of what it said. */
function gitSaid(error: unknown): string {
  const e = error as { stderr?: string; message: string };
  return (e.stderr?.trim() || e.message).split("\n")[0]!;
}

/** The diff's text (its middle cut past `maxBytes`), or an error saying why there is none. */
export async function gitDiff(root: string, of: DiffOf, limits: { maxBytes: number; gitTimeoutMs: number }): Promise<string> {
  if (of.type === "rev" && !REV.test(of.rev)) throw new Error(`${JSON.stringify(of.rev)} is not a revision git takes`);
  const workTree = await projectWorkTree(root, limits.gitTimeoutMs);
  if (!workTree) throw new Error(`${root} is not in a git repository`);
  const which = of.type === "staged" ? ["--staged"] : of.type === "rev" ? [of.rev] : [];
  // Plain text for the model: no colour, and none of the user's diff programs run. Only the
  // project folder (`-- .`), its files named as the thread names them (`--relative`).
  const args = ["diff", "--no-color", "--no-ext-diff", "--no-textconv", "--relative", ...which, "--", "."];
  let diff: string;
  try {
    diff = (await contextGit(root, args, limits.gitTimeoutMs, { readsContents: true, workTree })).stdout.toString("utf8");
  } catch (error) {
    if (error instanceof ContextGitTimeout) throw error;
    throw new Error(of.type === "rev" ? `git does not know the revision ${of.rev}: ${gitSaid(error)}` : gitSaid(error));
  }
  return headAndTail(diff, Math.floor(limits.maxBytes / 2), Math.floor(limits.maxBytes / 2), "the diff") || "(no changes)";
}
