/**
 * The MCP servers' tools as a ToolSource: offered to the model as `mcp__<server>__<tool>`, each
 * name one tool's (tool-names.ts), with their input schemas (sorted by name, so the list is
 * stable), each call waiting for approval
 * unless `mcp_auto_approve` trusts its server or the tool, and run on its server.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { mcpNeedsApproval } from "../tools/approval.ts";
import type { Environment } from "../tools/environment.ts";
import { inputProblem } from "../tools/input-check.ts";
import type { OfferedTools, ToolCaller, ToolOutcome, ToolSource, ToolSpec } from "../tools/source.ts";
import type { McpServers } from "./registry.ts";
import { isMcpName, McpToolNames, type McpToolRef, spelledFor } from "./tool-names.ts";

/** A server's tool as the Messages API declares it, under the name it is offered as. */
function toSpec(name: string, tool: Tool): ToolSpec {
  const spec: ToolSpec = { name, input_schema: tool.inputSchema };
  if (tool.description) spec.description = tool.description;
  return spec;
}

const aborted = (signal: AbortSignal) =>
  new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener("abort", () => resolve(), { once: true })));

export class McpTools implements ToolSource, OfferedTools {
  private readonly names = new McpToolNames();

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
    const specs = servers.flatMap((s) =>
      s.state.type === "ready" ? this.names.name(s.name, s.state.tools).map(({ name, tool }) => toSpec(name, tool)) : [],
    );
    return specs.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  owns(name: string): boolean {
    return isMcpName(name);
  }

  /**
   * The tool a name calls: the one it was offered as; else (a call this host never offered, as
   * after a restart) the one it is named for among the tools of the servers ready now.
   */
  private target(name: string): McpToolRef | undefined {
    const offered = this.names.target(name);
    if (offered) return offered;
    for (const s of this.servers.all()) if (s.state.type === "ready") this.names.name(s.name, s.state.tools);
    return this.names.target(name);
  }

  /** The configured server a name is spelled for, and the rest of the name. */
  private spelled(name: string) {
    return spelledFor(
      name,
      this.servers.all().map((s) => s.name),
    );
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
    if (target) return mcpNeedsApproval(target.server, target.tool, this.autoApprove);
    // Not known until its server starts: only trusting the whole server lets it run unasked.
    const spelled = this.spelled(name);
    return spelled !== null && !this.autoApprove.includes(spelled.server);
  }

  async run(name: string, input: unknown, _env: Environment, signal: AbortSignal, caller?: ToolCaller): Promise<ToolOutcome> {
    let target = this.target(name);
    const spelled = target ? null : this.spelled(name);
    if (spelled) {
      // Its server is not running: started, its tools are named, and then the name is known or not.
      await this.servers.get(spelled.server)?.ready();
      target = this.target(name);
    }
    const server = target && this.servers.get(target.server);
    if (!target || !server)
      return {
        text: spelled
          ? `Unknown tool: ${name} (the MCP server ${spelled.server} offers no tool of that name)`
          : `Unknown tool: ${name} (no MCP server of that name is configured)`,
        isError: true,
      };
    const args = typeof input === "object" && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
    const { tool } = target;
    try {
      return await this.servers.elicitations.during(server.name, caller?.thread, () => server.call(tool, args, signal));
    } catch (error) {
      return { text: `The MCP call failed: ${error instanceof Error ? error.message : String(error)}`, isError: true };
    }
  }
}
