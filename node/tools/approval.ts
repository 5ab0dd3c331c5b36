/**
 * Which tool calls wait for the user's approval: the tools named in `tools_needing_approval`, and
 * any read (get_file, list_directory) of a path outside the thread's environment, after `..` and
 * symlinks are resolved, so `../..`, an absolute path or a link out of the project cannot read
 * what the user never meant to share. Inside or out is the environment's to say.
 */
import type { Environment } from "./environment.ts";

const READS = new Set(["get_file", "list_directory"]);

export function needsApproval(name: string, input: unknown, env: Environment, configured: readonly string[]): boolean {
  if (configured.includes(name)) return true;
  if (!READS.has(name)) return false;
  const path = (input as { path?: unknown } | null)?.path;
  return typeof path !== "string" || !env.contains(path);
}
