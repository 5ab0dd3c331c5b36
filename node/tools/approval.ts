/**
 * Which tool calls wait for the user's approval: the tools named in `tools_needing_approval`, and
 * any read (get_file, list_directory) of a path outside the working directory, after `..` and
 * symlinks are resolved, so `../..`, an absolute path or a link out of the project cannot read
 * what the user never meant to share.
 */
import { realpathSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";

const READS = new Set(["get_file", "list_directory"]);

/** The real path of `path`, or of its nearest existing ancestor joined with the rest. */
function realish(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    const parent = dirname(path);
    if (parent === path) return path;
    return resolve(realish(parent), path.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
  }
}

export function isInside(path: string, cwd: string): boolean {
  const root = realish(cwd);
  const target = realish(isAbsolute(path) ? path : resolve(cwd, path));
  const rel = relative(root, target);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

export function needsApproval(name: string, input: unknown, cwd: string, configured: readonly string[]): boolean {
  if (configured.includes(name)) return true;
  if (!READS.has(name)) return false;
  const path = (input as { path?: unknown } | null)?.path;
  return typeof path !== "string" || !isInside(path, cwd);
}
