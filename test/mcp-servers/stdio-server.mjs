/** tine's test MCP server over stdio (tools.mjs): `node test/mcp-servers/stdio-server.mjs`. */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { log, toolServer } from "./tools.mjs";

log(`started ${process.pid}`);
process.stderr.write("test server up\n");
await toolServer().connect(new StdioServerTransport());
