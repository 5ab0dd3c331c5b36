/**
 * The files of a project, as a user means them: what `git` would track or add (ignored files and
 * `.git` left out), as paths relative to the project's root with `/` separators, sorted. Mentions
 * (`@file:` and its globs) and their completion both read this one list. The local way an
 * Environment lists them (`listProjectFiles` there): git's list through the environment's git, else
 * a walk of the folders on this machine.
 */

import { readdir, readFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import ignore, { type Ignore } from "ignore";
import { splitNul } from "./git.ts";
import { ContextGitTimeout, contextGit, type GitPlace, projectWorkTree } from "./project-git.ts";

/** Past this many files the list stops (and says so): a mention never walks a whole disk. */
export const MAX_PROJECT_FILES = 200_000;

export type ProjectFiles = {
  /** Relative paths, sorted. */
  readonly files: readonly string[];
  /** The list stopped at MAX_PROJECT_FILES. */
  readonly truncated: boolean;
  /** How the list was made: git's own view of the tree, or a walk honouring `.gitignore` files. */
  readonly source: "git" | "walk";
};

/**
 * The project's files under `root`: git's list inside a work tree, else a walk of the folders.
 * Rejects with a ContextGitTimeout when git takes longer than `gitTimeoutMs` (a walk instead could be as slow).
 */
export async function listProjectFiles(place: GitPlace, gitTimeoutMs: number): Promise<ProjectFiles> {
  const fromGit = await gitFiles(place, gitTimeoutMs);
  if (fromGit) return finish(fromGit, "git");
  return finish(await walk(place.root), "walk");
}

function finish(files: string[], source: ProjectFiles["source"]): ProjectFiles {
  const truncated = files.length > MAX_PROJECT_FILES;
  const kept = truncated ? files.slice(0, MAX_PROJECT_FILES) : files;
  kept.sort();
  return { files: kept, truncated, source };
}

/**
 * Tracked and untracked, not ignored files of the project folder (relative to it: ls-files lists
 * the folder it runs in); null when `root` is not in a work tree, git is missing, or the
 * repository's work tree is elsewhere (its index names files of another folder: the walk lists
 * this one's instead). See `projectWorkTree`.
 */
async function gitFiles(place: GitPlace, gitTimeoutMs: number): Promise<string[] | null> {
  try {
    const workTree = await projectWorkTree(place, gitTimeoutMs);
    if (!workTree) return null;
    const args = ["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--deduplicate", "--", "."];
    const listed = await contextGit(place, args, gitTimeoutMs, { workTree });
    return splitNul(listed.stdout).filter((p) => p.length > 0);
  } catch (error) {
    if (error instanceof ContextGitTimeout) throw error;
    return null;
  }
}

/** Folders a walk never enters: a VCS's own, and dependency trees nobody mentions by hand. */
const NEVER_ENTERED = new Set([".git", ".hg", ".svn", "node_modules"]);

async function walk(root: string): Promise<string[]> {
  const out: string[] = [];
  // Each folder is read with the rules of the `.gitignore` files above it and its own.
  const pending: { dir: string; rules: readonly Ignore[] }[] = [{ dir: root, rules: [] }];
  while (pending.length > 0 && out.length <= MAX_PROJECT_FILES) {
    const { dir, rules: above } = pending.pop()!;
    const own = await gitignoreOf(dir);
    const rules = own ? [...above, own] : above;
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (entry.isDirectory() && NEVER_ENTERED.has(entry.name)) continue;
      const path = join(dir, entry.name);
      const rel = relative(root, path).split(sep).join("/");
      const asked = entry.isDirectory() ? `${rel}/` : rel;
      if (rules.some((r) => r.ignores(relativeTo(r, root, asked)))) continue;
      if (entry.isDirectory()) pending.push({ dir: path, rules });
      else if (entry.isFile() || entry.isSymbolicLink()) out.push(rel);
    }
  }
  return out;
}

/** Each rule set remembers the folder of its `.gitignore`: paths are asked relative to it. */
const baseOf = new WeakMap<Ignore, string>();

async function gitignoreOf(dir: string): Promise<Ignore | null> {
  const text = await readFile(join(dir, ".gitignore"), "utf8").catch(() => null);
  if (text === null) return null;
  const rules = ignore().add(text);
  baseOf.set(rules, dir);
  return rules;
}

function relativeTo(rules: Ignore, root: string, relFromRoot: string): string {
  const base = baseOf.get(rules) ?? root;
  const rel = relative(base, join(root, relFromRoot)).split(sep).join("/");
  return relFromRoot.endsWith("/") ? `${rel}/` : rel;
}
