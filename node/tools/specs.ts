/** The client tools the agent may call, as the Messages API declares them. */
import type Anthropic from "@anthropic-ai/sdk";

export const TOOL_SPECS: readonly Anthropic.Messages.Tool[] = [
  {
    name: "get_file",
    description:
      "Read a text file (UTF-8, at most 256 KiB) from the project. Paths are relative to Neovim's working directory. " +
      "Binary files, devices and pipes are refused; read parts of a larger file with bash_command.",
    input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  },
  {
    name: "list_directory",
    description: "List the entries of a directory (directories end with /).",
    input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  },
  {
    name: "bash_command",
    description:
      "Run a shell command with bash in the project directory, without stdin; returns its output and exit code. " +
      "A long output keeps its start and end. The command is stopped after a time limit (2 minutes by default), " +
      "and anything it leaves running in the background is stopped when it returns. " +
      "In a sandboxed thread commands have no network: set `network` to true to ask the user for it.",
    input_schema: {
      type: "object",
      properties: { command: { type: "string" }, network: { type: "boolean" } },
      required: ["command"],
    },
  },
  {
    name: "edit_file",
    description:
      "Replace the exact text `find` with `replace` in a text file. `find` must occur exactly once. " +
      "A file with \\r\\n line endings keeps them (write `find` and `replace` with \\n). " +
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
