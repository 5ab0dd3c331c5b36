/**
 * `@diff`, `@staged`, `@diff:<rev>`: the diffs a send reads through the thread's environment's git
 * (tools/project-git.ts: a read of the user's repository that runs none of its programs, in the
 * environment root, within the send's time limit). A revision is checked before it reaches git's
 * command line; only the project folder is read, whatever work tree the repository's config
 * names: see `projectWorkTree`.
 */
import { ContextGitTimeout, contextGit, type GitPlace, projectWorkTree } from "../tools/project-git.ts";
import { headAndTail } from "../util/head-and-tail.ts";

/** What a diff compares: the work tree with the index, the index with HEAD, or the work tree with a revision. */
export type DiffOf = { readonly type: "unstaged" } | { readonly type: "staged" } | { readonly type: "rev"; readonly rev: string };

/** A revision as git spells them (`HEAD~2`, `main...feature`, `@{upstream}`, `v1.0^`), never an option. */
const REV = /^(?!-)[\w./~^@{}:+-]+$/;

/** git's own words for a failure: the first line of what it said. */
function gitSaid(error: unknown): string {
  const e = error as { stderr?: string; message: string };
  return (e.stderr?.trim() || e.message).split("\n")[0]!;
}

/** The diff's text (its middle cut past `maxBytes`), or an error saying why there is none. */
export async function gitDiff(place: GitPlace, of: DiffOf, limits: { maxBytes: number; gitTimeoutMs: number }): Promise<string> {
  if (of.type === "rev" && !REV.test(of.rev)) throw new Error(`${JSON.stringify(of.rev)} is not a revision git takes`);
  const workTree = await projectWorkTree(place, limits.gitTimeoutMs);
  if (!workTree) throw new Error(`${place.root} is not in a git repository`);
  const which = of.type === "staged" ? ["--staged"] : of.type === "rev" ? [of.rev] : [];
  // Plain text for the model: no colour, and none of the user's diff programs run. Only the
  // project folder (`-- .`), its files named as the thread names them (`--relative`).
  const args = ["diff", "--no-color", "--no-ext-diff", "--no-textconv", "--relative", ...which, "--", "."];
  let diff: string;
  try {
    diff = (await contextGit(place, args, limits.gitTimeoutMs, { readsContents: true, workTree })).stdout.toString("utf8");
  } catch (error) {
    if (error instanceof ContextGitTimeout) throw error;
    throw new Error(of.type === "rev" ? `git does not know the revision ${of.rev}: ${gitSaid(error)}` : gitSaid(error));
  }
  return headAndTail(diff, Math.floor(limits.maxBytes / 2), Math.floor(limits.maxBytes / 2), "the diff") || "(no changes)";
}
