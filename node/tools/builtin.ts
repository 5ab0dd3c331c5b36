/**
 * The built-in tools (get_file, list_directory, bash_command, edit_file) as a ToolSource: their
 * specs are specs.ts, what needs approval approval.ts, how they run run.ts.
 */
import { needsApproval } from "./approval.ts";
import type { Environment } from "./environment.ts";
import { inputProblem } from "./input-check.ts";
import { runTool } from "./run.ts";
import type { Approval, ToolOutcome, ToolSource } from "./source.ts";
import { isToolName, TOOL_SPECS } from "./specs.ts";

/** `needingApproval`: the tools that always wait for the user (tools_needing_approval). */
export function builtinTools(needingApproval: readonly string[]): ToolSource {
  return {
    owns: isToolName,
    inputProblem: (name: string, input: unknown) => {
      const spec = TOOL_SPECS.find((t) => t.name === name);
      return spec ? inputProblem(name, spec.input_schema, input) : null;
    },
    needsApproval: (name: string, input: unknown, env: Environment): Approval => needsApproval(name, input, env, needingApproval),
    run: (name: string, input: unknown, env: Environment, signal: AbortSignal): Promise<ToolOutcome> => runTool(name, input, env, signal),
  };
}
