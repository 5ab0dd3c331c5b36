/**
 * The MCP servers' tools as a ToolSource: offered to the model as `mcp__<server>__<tool>` with
 * their input schemas (sorted by name, so the list is stable), each call waiting for approval
 * unless `mcp_auto_approve` trusts its server or the tool, and run on its server.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { mcpNeedsApproval } from "../tools/approval.ts";
import type { Environment } from "../tools/environment.ts";
import { inputProblem } from "../tools/input-check.ts";
import type { OfferedTools, ToolOutcome, ToolSource, ToolSpec } from "../tools/source.ts";
import type { McpServers } from "./registry.ts";

const PREFIX = "mcp__";
/** The Messages API takes tool names of these characters only, at most 128. */
const API_NAME = /[^A-Za-z0-9_-]/g;
const MAX_NAME = 128;

/** The name the model calls a server's tool by. */
export function toolName(server: string, tool: string): string {
  return `${PREFIX}${server}__${tool.replace(API_NAME, "_")}`.slice(0, MAX_NAME);
}

/** A server's tool as the Messages API declares it. */
export function toSpec(server: string, tool: Tool): ToolSpec {
  const spec: ToolSpec = { name: toolName(server, tool.name), input_schema: tool.inputSchema };
  if (tool.description) spec.description = tool.description;
  return spec;
}

const aborted = (signal: AbortSignal) =>
  new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener("abort", () => resolve(), { once: true })));

export class McpTools implements ToolSource, OfferedTools {
  constructor(
    private readonly servers: McpServers,
    /** `mcp_auto_approve`: "server" (all its tools) or "server/tool". */
    private readonly autoApprove: readonly string[],
  ) {}

  /**
   * Starts every server not running (the first thread's first request waits for them, up to
   * mcp_timeout each) and offers the tools of those that are ready; a server that failed is left
   * out (the user was told).
   */
  async offered(signal: AbortSignal): Promise<readonly ToolSpec[]> {
    const servers = this.servers.all();
    if (!servers.length) return [];
    await Promise.race([Promise.all(servers.map((s) => s.ready())), aborted(signal)]);
    const specs = servers.flatMap((s) => (s.state.type === "ready" ? s.state.tools.map((t) => toSpec(s.name, t)) : []));
    return specs.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  owns(name: string): boolean {
    return name.startsWith(PREFIX);
  }

  /** The server and tool a call names: the longest server name that fits, and its tool whose API name it is. */
  private target(name: string): { server: string; tool: string } | null {
    const server = this.servers
      .all()
      .filter((s) => name.startsWith(`${PREFIX}${s.name}__`))
      .sort((a, b) => b.name.length - a.name.length)[0];
    if (!server) return null;
    const rest = name.slice(`${PREFIX}${server.name}__`.length);
    const tools = server.state.type === "ready" ? server.state.tools : [];
    return { server: server.name, tool: tools.find((t) => toolName(server.name, t.name) === name)?.name ?? rest };
  }

  /** Checked against the schema the server declared (a server that is not ready yet checks its own). */
  inputProblem(name: string, input: unknown): string | null {
    const target = this.target(name);
    const server = target && this.servers.get(target.server);
    const tool = server?.state.type === "ready" ? server.state.tools.find((t) => t.name === target!.tool) : undefined;
    return tool ? inputProblem(name, tool.inputSchema, input) : null;
  }

  needsApproval(name: string): boolean {
    const target = this.target(name);
    if (!target) return false; // answered "unknown" at once
    return mcpNeedsApproval(target.server, target.tool, this.autoApprove);
  }

  async run(name: string, input: unknown, _env: Environment, signal: AbortSignal): Promise<ToolOutcome> {
    const target = this.target(name);
    const server = target && this.servers.get(target.server);
    if (!target || !server) return { text: `Unknown tool: ${name} (no MCP server of that name is configured)`, isError: true };
    const args = typeof input === "object" && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
    try {
      return await server.call(target.tool, args, signal);
    } catch (error) {
      return { text: `The MCP call failed: ${error instanceof Error ? error.message : String(error)}`, isError: true };
    }
  }
}
