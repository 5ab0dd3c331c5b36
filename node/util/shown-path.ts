/**
 * A path as tine shows it to the user: below `folder` (the project, tine's data folder) it is named
 * from there, below the home folder with `~`, any other as it is. One rule for the list's worktree
 * rows and the instruction files a banner names.
 */
import { homedir } from "node:os";
import { relative, sep } from "node:path";
import { outside } from "./outside.ts";

/** Whether `path` lies below `folder`, not the folder itself, as spelled (compare real paths for where links lead). */
export const below = (folder: string, path: string): boolean => relative(folder, path) !== "" && !outside(folder, path);

export function shownPath(path: string, folder: string, home = homedir()): string {
  const from = (top: string) => relative(top, path).split(sep).join("/");
  if (below(folder, path)) return from(folder);
  if (home && below(home, path)) return `~/${from(home)}`;
  return path;
}
