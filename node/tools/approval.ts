/**
 * Which tool calls wait for the user's approval: the tools named in `tools_needing_approval`, and
 * any read (get_file, list_directory) of a path outside the thread's environment, after `..` and
 * symlinks are resolved, so `../..`, an absolute path or a link out of the project cannot read
 * what the user never meant to share. Inside or out is the environment's to say. Every MCP call
 * waits unless `mcp_auto_approve` trusts its server or the tool. (A tool the user approved for
 * the rest of a thread, `A`, is the thread's to remember: chat/thread.ts.)
 */
import type { Environment } from "./environment.ts";

const READS = new Set(["get_file", "list_directory"]);

/** An MCP server's tool: trusted when `autoApprove` names its server ("server") or it ("server/tool"). */
export function mcpNeedsApproval(server: string, tool: string, autoApprove: readonly string[]): boolean {
  return !autoApprove.includes(server) && !autoApprove.includes(`${server}/${tool}`);
}

export function needsApproval(name: string, input: unknown, env: Environment, configured: readonly string[]): boolean {
  if (configured.includes(name)) return true;
  if (!READS.has(name)) return false;
  const path = (input as { path?: unknown } | null)?.path;
  return typeof path !== "string" || !env.contains(path);
}
