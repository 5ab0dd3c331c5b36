/**
 * The built-in tools (get_file, list_directory, bash_command, edit_file) as a ToolSource: their
 * specs are specs.ts, what needs approval approval.ts, how they run run.ts.
 */
import { needsApproval } from "./approval.ts";
import type { Environment } from "./environment.ts";
import { runTool } from "./run.ts";
import type { ToolOutcome, ToolSource } from "./source.ts";
import { isToolName } from "./specs.ts";

/** `needingApproval`: the tools that always wait for the user (tools_needing_approval). */
export function builtinTools(needingApproval: readonly string[]): ToolSource {
  return {
    owns: isToolName,
    needsApproval: (name: string, input: unknown, env: Environment) => needsApproval(name, input, env, needingApproval),
    run: (name: string, input: unknown, env: Environment, signal: AbortSignal): Promise<ToolOutcome> => runTool(name, input, env, signal),
  };
}
