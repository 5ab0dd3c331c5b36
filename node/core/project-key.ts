/**
 * The name a project's data goes under (its transcripts, its snapshot store, its worktrees): the
 * folder's name, made safe for a file name, and a digest of its whole path.
 */
import { basename } from "node:path";
import { sha256Hex } from "../util/sha256.ts";

export function projectKey(cwd: string): string {
  const name =
    basename(cwd)
      .replace(/[^A-Za-z0-9._-]/g, "_")
      .slice(0, 40) || "root";
  return `${name}-${sha256Hex(cwd).slice(0, 12)}`;
}
