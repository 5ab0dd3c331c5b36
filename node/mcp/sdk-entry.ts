/**
 * The parts of the MCP SDK the host uses, in one module: scripts/build.mjs bundles it apart into
 * dist/mcp-sdk.cjs, loaded by sdk.ts when a server first starts, so start-up never loads it.
 */
export { Client } from "@modelcontextprotocol/sdk/client/index.js";
export { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
export { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
export { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
export { CallToolResultSchema, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
