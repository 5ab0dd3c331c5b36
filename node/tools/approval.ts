/**
 * Which tool calls wait for the user's approval: the tools named in `tools_needing_approval`, and
 * any read (get_file, list_directory) of a path outside the thread's environment, after `..` and
 * symlinks are resolved, so `../..`, an absolute path or a link out of the project cannot read
 * what the user never meant to share. Inside or out is the environment's to say. Every MCP call
 * waits unless `mcp_auto_approve` trusts its server or the tool. (A tool the user approved for
 * the rest of a thread, `A`, is the thread's to remember: chat/thread.ts.)
 *
 * A thread whose tools run confined (an unattended fork: Environment.confinement) waits for none
 * of that: inside the confinement nothing waits, tools_needing_approval included; a call that
 * leaves it waits, and says why (`outsideConfinement`).
 */
import type { Confinement, Environment } from "./environment.ts";
import type { Approval } from "./source.ts";

const READS = new Set(["get_file", "list_directory"]);

/** An MCP server's tool: trusted when `autoApprove` names its server ("server") or it ("server/tool"). */
export function mcpNeedsApproval(server: string, tool: string, autoApprove: readonly string[]): boolean {
  return !autoApprove.includes(server) && !autoApprove.includes(`${server}/${tool}`);
}

/**
 * Why a built-in tool's call leaves `confinement`, or null when it stays inside: an edit of a path
 * it may not write, a read of a hidden one, a command that asks for the network. Every other call
 * of those tools stays inside (a command runs in the sandbox; a read elsewhere is one its commands
 * could make too).
 */
export function outsideConfinement(name: string, input: unknown, confinement: Confinement): string | null {
  const fields = (input ?? {}) as { path?: unknown; network?: unknown };
  const path = typeof fields.path === "string" ? fields.path : null;
  switch (name) {
    case "edit_file":
      return path === null ? null : confinement.writeOutside(path);
    case "get_file":
    case "list_directory":
      return path === null ? null : confinement.readOutside(path);
    case "bash_command":
      return fields.network === true ? "it asks for the network, which the sandbox has not" : null;
    default:
      return null;
  }
}

export function needsApproval(name: string, input: unknown, env: Environment, configured: readonly string[]): Approval {
  if (env.confinement) {
    const leaves = outsideConfinement(name, input, env.confinement);
    return leaves === null ? false : { leaves };
  }
  if (configured.includes(name)) return true;
  if (!READS.has(name)) return false;
  const path = (input as { path?: unknown } | null)?.path;
  return typeof path !== "string" || !env.contains(path);
}
