/**
 * Which folders a stored thread may work in. A transcript's header is a file: whoever can write it
 * could name `$HOME` as a thread's worktree (its tools, `@file:`, follows and `get_file` would then
 * count the user's files as the thread's own and ask nobody; a folder that is not there would be
 * made there), or a folder holding Claude Code settings with hooks or an `.mcp.json` as the folder
 * its session resumes in (the CLI runs them as it starts, whatever arguments it is given). So a
 * folder a header names is used only when it is the project's own folder (a Claude Code
 * session's) or, links resolved, a worktree tine made for this project: a folder of its own right
 * in this project's worktree folder, bearing tine's marker, or not there (tine makes it again
 * there, from the thread's snapshot). Any other is refused: the thread works in the project's
 * folder instead, and the user is told once, with the folder named (StoredNotices).
 */
import { lstatSync, realpathSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { StoredNotice } from "../chat/runner.ts";
import { projectKey } from "../core/project-key.ts";
import { hasMarker } from "./worktree.ts";

/** Where a stored thread may work: the project's folder, and the folder of the worktrees tine makes for it. */
export type StoredFolders = { readonly projectRoot: string; readonly worktrees: string };

/** This project's worktree folder (`<worktree_dir>/<project key>`): every worktree tine makes for it is right inside. */
export function projectWorktrees(dir: string, projectRoot: string): string {
  return join(dir, projectKey(projectRoot));
}

/** `path` with its links resolved; as written (made absolute) when it is not there. */
function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** Why stored worktree `path` is refused, or null: a worktree tine made for this project (in `worktrees`), or one it would make again there. */
export function worktreeRefused(path: string, worktrees: string): string | null {
  const outside = `it is not a worktree tine made for this project (those are in ${worktrees})`;
  const asked = resolve(path);
  const folder = real(worktrees);
  try {
    lstatSync(asked);
  } catch {
    // Not there: tine makes it again, right inside the worktree folder only.
    return real(dirname(asked)) === folder ? null : outside;
  }
  let found: string;
  try {
    found = realpathSync(asked);
  } catch {
    return `${outside}: it is a link that leads nowhere`;
  }
  if (dirname(found) !== folder) return found === asked ? outside : `${outside}: it leads to ${found}`;
  return hasMarker(found) ? null : `${outside}: it bears no mark of one`;
}

/** Why `cwd`, the folder a stored Claude Code session ran in, is refused, or null: the project's folder or one of its worktrees. */
export function sessionFolderRefused(cwd: string, folders: StoredFolders): string | null {
  if (real(cwd) === real(folders.projectRoot) || worktreeRefused(cwd, folders.worktrees) === null) return null;
  return "it is neither the project's folder nor a worktree tine made for it";
}

/**
 * Tells the user, once per thread in this Neovim, what of its stored header is not used: what its
 * runner runs without (told by its runner kind, chat/runner.ts `storedNotices`: a Claude Code
 * session's arguments or folder) when it is opened or forked without being opened, and a refused
 * worktree when it is first given a folder.
 */
export class StoredNotices {
  private readonly told = new Set<string>();

  constructor(private readonly tell: (text: string) => void) {}

  /** Thread `id`'s runner runs without what `notices` name. */
  runnerNotices(id: string, notices: readonly StoredNotice[]): void {
    for (const n of notices) this.once(`${id} ${n.key}`, n.text);
  }

  /** Thread `id` (titled `title`) works in the project's folder: its stored worktree `path` was refused (`why`). */
  worktreeRefused(id: string, title: string, path: string, why: string): void {
    this.once(
      `${id} worktree`,
      `tine: ${title}: works in the project's folder, not in its stored worktree ${JSON.stringify(path)}: ${why} (:help tine-trust)`,
    );
  }

  private once(key: string, text: string): void {
    if (this.told.has(key)) return;
    this.told.add(key);
    this.tell(text);
  }
}
