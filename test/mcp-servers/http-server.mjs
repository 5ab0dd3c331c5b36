/**
 * tine's test MCP server over Streamable HTTP on loopback (tools.mjs), stateless: a server per
 * request, at /mcp; at /sse, the older HTTP+SSE transport only (where a client falls back to it).
 * It prints its /mcp URL on stdout once it listens. A request without the header
 * `x-test-token: $MCP_TEST_TOKEN` is refused (401), so a test sees the header reach it. A call of
 * `endless` (listed when $MCP_TEST_MORE_TOOLS names it) is answered, at /mcp, by an event that never
 * ends, until the client closes it; then `endless cut after <bytes>` is logged.
 */
import { createServer } from "node:http";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { log, serveStateless, toolServer } from "./tools.mjs";

const state = { changed: false };
/** The older HTTP+SSE transport's sessions (GET /sse opens one, POST /messages?sessionId= speaks in it). */
const sse = new Map();
const http = createServer(async (req, res) => {
  if (req.headers["x-test-token"] !== process.env.MCP_TEST_TOKEN) return void res.writeHead(401).end("wrong token");
  if (req.url === "/sse" && req.method === "GET") {
    const transport = new SSEServerTransport("/messages", res);
    sse.set(transport.sessionId, transport);
    res.on("close", () => sse.delete(transport.sessionId));
    return void (await toolServer(state).connect(transport));
  }
  if (req.url?.startsWith("/messages") && req.method === "POST") {
    const transport = sse.get(new URL(req.url, "http://localhost").searchParams.get("sessionId"));
    return void (transport ? await transport.handlePostMessage(req, res) : res.writeHead(404).end());
  }
  if (req.url !== "/mcp") return void res.writeHead(405).end();
  if (req.method !== "POST") return void res.writeHead(405).end();
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  if (body.method === "tools/call" && body.params?.name === "endless") return void endless(body.id, res);
  await serveStateless(state, req, res, body);
});

/** Answers request `id` with an event whose text never ends, written as fast as the client reads, until it closes. */
function endless(id, res) {
  res.writeHead(200, { "content-type": "text/event-stream" });
  let sent = 0;
  const write = (text) => {
    sent += Buffer.byteLength(text);
    return res.write(text);
  };
  res.on("close", () => log(`endless cut after ${sent}`));
  write(`event: message\ndata: {"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"`);
  const more = "x".repeat(64 * 1024);
  const pump = () => {
    while (!res.destroyed && write(more));
  };
  res.on("drain", pump);
  pump();
}
http.listen(0, "127.0.0.1", () => {
  log(`started ${process.pid}`);
  process.stdout.write(`http://127.0.0.1:${http.address().port}/mcp\n`);
});
