/**
 * The git a send runs for its mentions (`@diff`, `@staged`, `@diff:<rev>`, the file list of an
 * `@file:` glob): a read of the user's repository that runs none of its programs (the one rule of
 * snapshot/git.ts), in the thread's environment root without a shell, and within the send's time
 * limit (`context_git_timeout`): Neovim waits for the send, so a git that hangs must not hold it.
 * A revision is checked before it reaches git's command line.
 */
import { type GitResult, GitTimeout, git } from "../snapshot/git.ts";
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
 * Runs `git args…` for a send in `root` (`readsContents`: it hashes work tree files, see GitRun);
 * rejects with a ContextGitTimeout past `timeoutMs`, or with git's error (a GitError; ENOENT: no git).
 */
export async function contextGit(root: string, args: readonly string[], timeoutMs: number, readsContents = false): Promise<GitResult> {
  try {
    return await git(["--no-pager", "-c", "core.quotepath=off", ...args], { cwd: root, user: true, readsContents, timeoutMs });
  } catch (error) {
    if (error instanceof GitTimeout) throw new ContextGitTimeout(timeoutMs);
    throw error;
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
  const run = async (args: readonly string[], readsContents = false) => {
    try {
      return (await contextGit(root, args, limits.gitTimeoutMs, readsContents)).stdout.toString("utf8");
    } catch (error) {
      if (error instanceof ContextGitTimeout) throw error;
      return { failed: gitSaid(error) };
    }
  };
  if (typeof (await run(["rev-parse", "--show-toplevel"])) !== "string") throw new Error(`${root} is not in a git repository`);
  const which = of.type === "staged" ? ["--staged"] : of.type === "rev" ? [of.rev] : [];
  // Plain text for the model: no colour, and none of the user's diff programs run.
  const diff = await run(["diff", "--no-color", "--no-ext-diff", "--no-textconv", ...which, "--"], true);
  if (typeof diff !== "string")
    throw new Error(of.type === "rev" ? `git does not know the revision ${of.rev}: ${diff.failed}` : diff.failed);
  return headAndTail(diff, Math.floor(limits.maxBytes / 2), Math.floor(limits.maxBytes / 2), "the diff") || "(no changes)";
}
