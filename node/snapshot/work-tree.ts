/**
 * Which work tree tine takes from the user's repository. A repository's config is the project's
 * (untrusted): `core.worktree` in a cloned `.git/config` can aim git at any folder (`/`, the home
 * folder), and snapshots taken there would hold, and a restore write, files out of the project. So
 * the work tree git names is taken only when it is where the repository's `.git` is: a `.git`
 * folder that is the git dir, or a `.git` file pointing at it (a linked worktree, a submodule).
 */
import { readFileSync, realpathSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

/** Why `top` is not the work tree of git dir `gitDir` (both as git printed them), or null when it is. */
export function foreignWorkTree(top: string, gitDir: string): string | null {
  const dotGit = join(top, ".git");
  const owned = (() => {
    try {
      const real = realpathSync.native(gitDir);
      if (statSync(dotGit).isDirectory()) return realpathSync.native(dotGit) === real;
      const pointer = /^gitdir: (.+)$/m.exec(readFileSync(dotGit, "utf8"))?.[1]?.trim();
      return pointer !== undefined && realpathSync.native(resolve(top, pointer)) === real;
    } catch {
      return false;
    }
  })();
  return owned ? null : `the repository's work tree (${top}) is not where its .git is (its config's core.worktree?)`;
}
