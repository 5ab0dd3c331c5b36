/**
 * The parts of the MCP SDK the host uses (and tine's stdio transport and the bounded fetch its HTTP transports read through, built on its types), in one
 * module: scripts/build.mjs bundles it apart into dist/mcp-sdk.cjs, loaded by sdk.ts when a server
 * first starts, so start-up never loads it.
 */

export { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
export { Client } from "@modelcontextprotocol/sdk/client/index.js";
export { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
export { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
export { CallToolResultSchema, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
export { ServerSignIn } from "./auth/sign-in.ts";
export { boundedFetch } from "./bounded-fetch.ts";
export { StdioTransport } from "./stdio-transport.ts";
