/**
 * The MCP SDK, loaded on first use: the host's start-up is a measured target, and most sessions
 * start no MCP server. In the build, `./sdk-entry.ts` is dist/mcp-sdk.cjs (scripts/build.mjs).
 */
export type McpSdk = typeof import("./sdk-entry.ts");

let loading: Promise<McpSdk> | null = null;

export function loadMcpSdk(): Promise<McpSdk> {
  loading ??= import("./sdk-entry.ts");
  return loading;
}
