/**
 * What a snapshot leaves out, and keeps as it is: the project's ignore rules as `git status`
 * applies them, for the private repository, which is not the project's (the project's
 * info/exclude, the user's excludes file, tine's data folder when it lies inside the project; the
 * .gitignore files are read from the work tree as usual), and the attributes that keep git from
 * changing the bytes it stores.
 */
import { readFileSync, realpathSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, relative, sep } from "node:path";

/** Attributes that would change the bytes git stores (EOL conversion, filters): a snapshot holds the files as they are. */
export const ATTRIBUTES = "* -text -eol -filter -ident -working-tree-encoding\n";

/**
 * The private repository's info/exclude for the project at `root`: its own info/exclude (in
 * `projectGitDir`), the user's excludes file, and `dataDir` when it lies inside the project.
 */
export function excludesText(root: string, projectGitDir: string, userExcludes: string, dataDir: string): string {
  const parts = [readOr(join(projectGitDir, "info", "exclude")), readOr(userExcludes)];
  const data = insideOf(root, dataDir);
  if (data !== null) parts.push(`/${data.split(sep).join("/")}/`);
  return `${parts.join("\n")}\n`;
}

/** Git's default user excludes file, when core.excludesFile names none. */
export function defaultExcludesFile(): string {
  const xdg = process.env["XDG_CONFIG_HOME"];
  return join(xdg && isAbsolute(xdg) ? xdg : join(homedir(), ".config"), "git", "ignore");
}

export function writeIfChanged(path: string, text: string): void {
  if (readOr(path) !== text) writeFileSync(path, text);
}

function readOr(path: string | null): string {
  if (!path) return "";
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

/** `inner` relative to `outer` when it lies inside it (links resolved), else null. */
function insideOf(outer: string, inner: string): string | null {
  let real = inner;
  try {
    real = realpathSync(inner);
  } catch {
    // not made yet: compared as given
  }
  const rel = relative(realpathSync(outer), real);
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel : null;
}
