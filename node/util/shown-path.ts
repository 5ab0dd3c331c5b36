/**
 * A folder as a list row names it: short enough to read beside a thread's title. One inside
 * tine's data folder (a worktree fork's, by default) is named from there (`worktrees/…`), one in
 * the home folder with `~`, any other as it is.
 */
import { homedir } from "node:os";
import { isAbsolute, relative, sep } from "node:path";

export function shownPath(path: string, dataDir: string, home = homedir()): string {
  const inData = relative(dataDir, path);
  if (inData && inData !== ".." && !inData.startsWith(`..${sep}`) && !isAbsolute(inData)) return inData;
  if (home && path.startsWith(home + sep)) return `~${path.slice(home.length)}`;
  return path;
}
