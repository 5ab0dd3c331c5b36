/**
 * tine's test MCP server over stdio (tools.mjs): `node test/mcp-servers/stdio-server.mjs`. With
 * $MCP_TEST_RECORD set, it writes there what it was started with (its arguments and environment).
 */
import { writeFileSync } from "node:fs";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { log, toolServer } from "./tools.mjs";

if (process.env.MCP_TEST_RECORD)
  writeFileSync(process.env.MCP_TEST_RECORD, JSON.stringify({ argv: process.argv.slice(2), env: process.env }));
log(`started ${process.pid}`);
process.stderr.write("test server up\n");
await toolServer().connect(new StdioServerTransport());
