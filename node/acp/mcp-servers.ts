/**
 * tine's MCP servers (setup's `mcp_servers`, and the project's files when turned on: node/mcp/) as
 * an agent's session gets them (`session/new`, resume, load, fork): in ACP's McpServer shape, their
 * `${VAR}` resolved as tine resolves them for its own use (a project's file never reads the host's
 * credentials), a stdio server always, an HTTP or SSE one only where the agent's mcpCapabilities
 * say it takes one. A server whose resolved values would carry the host's credentials (the API key)
 * is never given: the agent never gets the key through a server.
 */
import type { McpServer } from "@agentclientprotocol/sdk/unstable";
import { launchOf, type McpServerSpec, UnsetVariable } from "../mcp/config.ts";
import { HOST_CREDENTIALS } from "../tools/environment.ts";

/** Where the servers come from: their specs now, and what a project's file may not read. */
export type McpSource = {
  readonly specs: () => readonly McpServerSpec[];
  readonly denied: ReadonlySet<string>;
};

/** Which MCP transports the agent takes besides stdio (its `mcpCapabilities`). */
export type McpTransportsSaid = { readonly http: boolean; readonly sse: boolean };

type Values = Readonly<Record<string, string | undefined>>;

/** The servers given to a session, and those left out with why (for the log: values never appear). */
export function sessionServers(
  specs: readonly McpServerSpec[],
  can: McpTransportsSaid,
  root: string,
  values: Values,
  denied: ReadonlySet<string>,
): { servers: McpServer[]; left: string[] } {
  const secrets = HOST_CREDENTIALS.flatMap((k) => (values[k] ? [values[k]] : []));
  const servers: McpServer[] = [];
  const left: string[] = [];
  for (const spec of specs) {
    if (spec.kind === "http" && !(spec.sse ? can.sse : can.http)) {
      left.push(`${spec.name}: the agent takes no ${spec.sse ? "SSE" : "HTTP"} MCP server`);
      continue;
    }
    let server: McpServer;
    try {
      server = shapeOf(spec, root, values, denied);
    } catch (error) {
      if (!(error instanceof UnsetVariable)) throw error;
      left.push(`${spec.name}: ${error.message}`);
      continue;
    }
    if (secrets.some((secret) => JSON.stringify(server).includes(JSON.stringify(secret).slice(1, -1)))) {
      left.push(`${spec.name}: it would carry the host's credentials`);
      continue;
    }
    servers.push(server);
  }
  return { servers, left };
}

function shapeOf(spec: McpServerSpec, root: string, values: Values, denied: ReadonlySet<string>): McpServer {
  const launch = launchOf(spec, root, values, denied);
  const pairs = (table: Readonly<Record<string, string>>) => Object.entries(table).map(([name, value]) => ({ name, value }));
  switch (launch.kind) {
    case "stdio":
      return { name: spec.name, command: launch.command, args: launch.args, env: pairs(launch.env) };
    case "http":
      return { type: launch.sse ? "sse" : "http", name: spec.name, url: launch.url.href, headers: pairs(launch.headers) };
  }
}
