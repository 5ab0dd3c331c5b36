/** The client tools the agent may call, as the Messages API declares them. */
import type Anthropic from "@anthropic-ai/sdk";

export const TOOL_SPECS: readonly Anthropic.Messages.Tool[] = [
  {
    name: "get_file",
    description: "Read a text file from the project. Paths are relative to Neovim's working directory.",
    input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  },
  {
    name: "list_directory",
    description: "List the entries of a directory (directories end with /).",
    input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  },
  {
    name: "bash_command",
    description: "Run a shell command with bash in the project directory; returns its output and exit code.",
    input_schema: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
  },
  {
    name: "edit_file",
    description:
      "Replace the exact text `find` with `replace` in a file. `find` must occur exactly once. " +
      "With an empty `find` and a file that does not exist, creates the file with `replace`.",
    input_schema: {
      type: "object",
      properties: { path: { type: "string" }, find: { type: "string" }, replace: { type: "string" } },
      required: ["path", "find", "replace"],
    },
  },
];

export type ToolName = "get_file" | "list_directory" | "bash_command" | "edit_file";
export const isToolName = (name: string): name is ToolName => TOOL_SPECS.some((t) => t.name === name);
