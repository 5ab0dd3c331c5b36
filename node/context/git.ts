/**
 * `git diff` for mentions (`@diff`, `@staged`, `@diff:<rev>`), run in the thread's environment
 * root without a shell: a revision is checked before it reaches git's command line.
 */
import { execFile } from "node:child_process";
import { toolEnv } from "../tools/local-shell.ts";
import { headAndTail } from "../util/head-and-tail.ts";

/** What a diff compares: the work tree with the index, the index with HEAD, or the work tree with a revision. */
export type DiffOf = { readonly type: "unstaged" } | { readonly type: "staged" } | { readonly type: "rev"; readonly rev: string };

/** A revision as git spells them (`HEAD~2`, `main...feature`, `@{upstream}`, `v1.0^`), never an option. */
const REV = /^(?!-)[\w./~^@{}:+-]+$/;

function git(root: string, args: readonly string[]): Promise<{ ok: true; out: string } | { ok: false; err: string }> {
  return new Promise((done) => {
    execFile(
      "git",
      ["--no-pager", "-c", "core.quotepath=off", ...args],
      { cwd: root, maxBuffer: 256 * 1024 * 1024, encoding: "utf8", env: toolEnv([]) }, // git never sees the host's credentials, as no tool process does
      (error, stdout, stderr) =>
        done(error ? { ok: false, err: (stderr || error.message).trim().split("\n")[0]! } : { ok: true, out: stdout }),
    );
  });
}

/** The diff's text (its middle cut past `maxBytes`), or an error saying why there is none. */
export async function gitDiff(root: string, of: DiffOf, maxBytes: number): Promise<string> {
  if (of.type === "rev" && !REV.test(of.rev)) throw new Error(`${JSON.stringify(of.rev)} is not a revision git takes`);
  const top = await git(root, ["rev-parse", "--show-toplevel"]);
  if (!top.ok) throw new Error(`${root} is not in a git repository`);
  const which = of.type === "staged" ? ["--staged"] : of.type === "rev" ? [of.rev] : [];
  // Plain text for the model: no colour, and none of the user's diff programs run.
  const diff = await git(root, ["diff", "--no-color", "--no-ext-diff", "--no-textconv", ...which, "--"]);
  if (!diff.ok) throw new Error(of.type === "rev" ? `git does not know the revision ${of.rev}: ${diff.err}` : diff.err);
  return headAndTail(diff.out, Math.floor(maxBytes / 2), Math.floor(maxBytes / 2), "the diff") || "(no changes)";
}
