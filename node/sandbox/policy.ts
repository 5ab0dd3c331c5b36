/**
 * What a sandboxed thread may write and may not read, as real paths: the one statement of the
 * policy, which both bubblewrap's mounts (bwrap.ts) and the host's own checks of in-process tool
 * writes and reads (sandbox-environment.ts) are made from, so the two cannot disagree.
 */
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join, resolve, sep } from "node:path";
import { isWithin, realish } from "../tools/local-environment.ts";

/** Folders under the home folder that hold credentials: never readable in the sandbox. */
export const HIDDEN_IN_HOME = [".ssh", ".gnupg", ".aws", ".config/gcloud", ".netrc"] as const;

export type PolicySettings = {
  /** The thread's worktree: the one folder its commands and file tools may change. */
  readonly root: string;
  /** tine's data folder (transcripts, snapshots): hidden from the sandbox. */
  readonly dataDir: string;
  /** More paths to hide (the sandbox_deny_read option): absolute, or `~/…`. */
  readonly denyRead?: readonly string[];
  /** The home folder whose credentials are hidden; the user's by default. */
  readonly home?: string;
};

/**
 * What the sandbox may do at a path and below it: "write"; "read-only" (what makes the host's own
 * git run something: the repository's hooks/ and config, the worktree's `.git` file and the
 * gitdir's `commondir`, which say where those are, so nothing written inside runs outside);
 * "hidden" (neither read nor written). Everything else is read-only.
 */
export type Access = "write" | "read-only" | "hidden";

/** One path's access, its real path (or, when missing, its absolute one). */
export type AccessRule = { readonly path: string; readonly access: Access };

export type SandboxPolicy = {
  /** The worktree's real path; commands start there. */
  readonly root: string;
  /**
   * The rules, a folder's before those of paths inside it: the deepest rule around a path decides
   * (a worktree inside tine's hidden data folder is writable; a hidden path inside it is hidden).
   * bwrap mounts them in this order, so its mounts and the host's checks agree.
   */
  readonly rules: readonly AccessRule[];
};

export function sandboxPolicy(settings: PolicySettings): SandboxPolicy {
  const home = settings.home ?? homedir();
  const root = realish(resolve(settings.root));
  const git = gitPaths(root);
  const denied = [...HIDDEN_IN_HOME.map((p) => join(home, p)), settings.dataDir, ...(settings.denyRead ?? [])].map((p) =>
    realish(resolve(home, p.startsWith("~/") ? p.slice(2) : p)),
  );
  const shown = git.borrowed.filter((path) => !denied.some((hidden) => isWithin(path, hidden)));
  const rules: AccessRule[] = [
    ...[root, ...git.writable].map((path) => ({ path, access: "write" as const })),
    ...[...git.readOnly, ...shown].map((path) => ({ path, access: "read-only" as const })),
    ...denied.map((path) => ({ path, access: "hidden" as const })),
  ];
  // By depth; on one path the stricter rule comes last and wins. The sort is stable.
  const depth = (path: string) => path.split(sep).length;
  const strictness: Record<Access, number> = { write: 0, "read-only": 1, hidden: 2 };
  rules.sort((a, b) => depth(a.path) - depth(b.path) || strictness[a.access] - strictness[b.access]);
  return { root, rules };
}

/** The access at `real` (a path with its links resolved): the deepest rule around it; read-only when none. */
export function accessAt(policy: SandboxPolicy, real: string): Access {
  let access: Access = "read-only";
  for (const rule of policy.rules) if (isWithin(real, rule.path)) access = rule.access;
  return access;
}

/**
 * The git paths a commit from `root` writes, and those that must stay read-only. A linked
 * worktree's `.git` is a file naming its gitdir (index, HEAD, its logs), whose `commondir` names
 * the repository (objects, refs, logs written; hooks/ and config never). A `.git` folder is the
 * repository itself, inside the worktree and so writable but for hooks/ and config.
 */
function gitPaths(root: string): { writable: string[]; readOnly: string[]; borrowed: string[] } {
  const dotGit = join(root, ".git");
  let isDir: boolean;
  try {
    isDir = lstatSync(dotGit).isDirectory();
  } catch {
    return { writable: [], readOnly: [], borrowed: [] }; // not a git worktree: nothing of git to give or guard
  }
  if (isDir) return { writable: [], readOnly: guarded(dotGit, true), borrowed: borrowed(dotGit) };
  const named = /^gitdir: (.+)$/m.exec(readFileSync(dotGit, "utf8"))?.[1]?.trim();
  if (!named) return { writable: [], readOnly: [dotGit], borrowed: [] };
  const gitDir = realish(resolve(root, named));
  let common = gitDir;
  try {
    common = realish(resolve(gitDir, readFileSync(join(gitDir, "commondir"), "utf8").trim()));
  } catch {
    // No commondir: the gitdir is the repository.
  }
  const writable = [gitDir, ...(common === gitDir ? [] : ["objects", "refs", "logs"].map((p) => join(common, p)))];
  // The repository's own folder stays read-only (only objects/, refs/ and logs/ are bound
  // writable), so a hooks/ it lacks cannot be made from inside.
  return {
    writable,
    readOnly: [dotGit, join(gitDir, "commondir"), join(gitDir, "config.worktree"), ...guarded(common, false)],
    borrowed: borrowed(common),
  };
}

/**
 * The object folders a repository borrows from (`objects/info/alternates`: a tine worktree's own
 * repository borrows the project's objects), readable inside: one under the host's /tmp would
 * otherwise be hidden by the sandbox's private /tmp, and every git command there would fail. The
 * file is writable from inside, so only what is a repository's objects folder counts (never a
 * socket's folder in /tmp), and never one the policy hides (sandboxPolicy).
 */
function borrowed(repo: string): string[] {
  let text: string;
  try {
    text = readFileSync(join(repo, "objects", "info", "alternates"), "utf8");
  } catch {
    return [];
  }
  const objects = join(repo, "objects");
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => realish(resolve(objects, line)))
    .filter((path) => basename(path) === "objects" && isDirectory(path) && existsSync(join(dirname(path), "HEAD")));
}

function isDirectory(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * A repository's hooks/ and config. When the repository lies inside the writable worktree
 * (`inWorktree`), a missing hooks/ is made, empty, so that it can be mounted read-only rather than
 * made from inside; a linked worktree's repository is never changed.
 */
function guarded(repo: string, inWorktree: boolean): string[] {
  if (inWorktree) mkdirSync(join(repo, "hooks"), { recursive: true });
  // The repository's other worktrees: their commondir and config.worktree say what git runs there.
  const others = inWorktree ? linkedGitDirs(repo).flatMap((d) => [join(d, "commondir"), join(d, "config.worktree")]) : [];
  return [realish(join(repo, "hooks")), realish(join(repo, "config")), ...others];
}

function linkedGitDirs(repo: string): string[] {
  try {
    return readdirSync(join(repo, "worktrees")).map((name) => join(repo, "worktrees", name));
  } catch {
    return [];
  }
}
