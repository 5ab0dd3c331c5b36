/**
 * The tools of tine's test MCP servers (stdio-server.mjs, http-server.mjs), on the SDK's own
 * Server: they echo, sleep (cancellable), fail, return an image, change their list, crash mid-call,
 * wait for a file, and tell a hash of an environment variable (never its value). What the tests
 * cannot see through the protocol (a start, a cancellation) is appended to $MCP_TEST_LOG.
 * $MCP_TEST_MORE_TOOLS (a JSON list of names) adds tools named so, whatever the names (empty,
 * alike once made names the API takes, long): each answers `ran <its name as JSON>`, but `big`
 * answers text of `bytes` bytes, its first line `BIG-HEAD` and its last `BIG-TAIL`.
 * $MCP_TEST_ELICIT (JSON: an `elicitation/create` request's params, sent as they are, however
 * malformed) adds the tool `ask`, which asks the user so in the middle of its call and answers (and
 * logs) what it got back; with $MCP_TEST_ELICIT_WITHDRAW_MS it withdraws the question after that
 * long (notifications/cancelled) and answers `withdrawn`.
 */
import { createHash } from "node:crypto";
import { appendFileSync, existsSync } from "node:fs";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ElicitResultSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

/** Appends a line to $MCP_TEST_LOG, when set. */
export function log(line) {
  const file = process.env.MCP_TEST_LOG;
  if (file) appendFileSync(file, `${line}\n`);
}

/** A 1×1 PNG. */
export const PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

const object = (properties = {}, required = []) => ({ type: "object", properties, required });

const TOOLS = [
  { name: "echo", description: "Echo the text back.", inputSchema: object({ text: { type: "string" } }, ["text"]) },
  { name: "sleep", description: "Wait for ms milliseconds.", inputSchema: object({ ms: { type: "number" } }, ["ms"]) },
  { name: "fail", description: "Always fails.", inputSchema: object() },
  { name: "image", description: "Returns a small image.", inputSchema: object() },
  { name: "change_list", description: "Adds a tool to this server's list.", inputSchema: object() },
  { name: "crash", description: "Exits in the middle of the call.", inputSchema: object() },
  { name: "wait_for", description: "Returns once the file exists.", inputSchema: object({ path: { type: "string" } }, ["path"]) },
  { name: "env_hash", description: "The sha256 of an environment variable.", inputSchema: object({ name: { type: "string" } }, ["name"]) },
];
/** The tools $MCP_TEST_MORE_TOOLS names. */
const MORE = JSON.parse(process.env.MCP_TEST_MORE_TOOLS ?? "[]").map((name) => ({
  name,
  description: `The tool named ${JSON.stringify(name)}.`,
  inputSchema: name === "big" ? object({ bytes: { type: "number" } }, ["bytes"]) : object(),
}));
const ELICIT = process.env.MCP_TEST_ELICIT ? JSON.parse(process.env.MCP_TEST_ELICIT) : null;
const ASK = { name: "ask", description: "Asks the user a question.", inputSchema: object() };
const ADDED = { name: "added_later", description: "Added by change_list.", inputSchema: object() };

const text = (t, isError = false) => ({ content: [{ type: "text", text: t }], ...(isError ? { isError: true } : {}) });

/** Resolves after `ms`, or at once when `signal` aborts (then `onAbort` runs). */
const wait = (ms, signal, onAbort) =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      onAbort();
      resolve();
    });
  });

/** Text of `bytes` bytes: `BIG-HEAD`, lines of x, `BIG-TAIL`. */
function bigText(bytes) {
  const head = "BIG-HEAD\n";
  const tail = "\nBIG-TAIL";
  const line = `${"x".repeat(99)}\n`;
  const middle = bytes - head.length - tail.length;
  return head + line.repeat(Math.floor(middle / line.length)) + "y".repeat(middle % line.length) + tail;
}

/** A server with the test tools; `state` (shared by the HTTP server's per-request servers) holds whether the list changed. */
export function toolServer(state = { changed: false }) {
  const server = new Server({ name: "tine-test", version: "1.0.0" }, { capabilities: { tools: { listChanged: true } } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [...TOOLS, ...MORE, ...(ELICIT ? [ASK] : []), ...(state.changed ? [ADDED] : [])],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const args = request.params.arguments ?? {};
    if (request.params.name === "big" && MORE.some((t) => t.name === "big")) return text(bigText(args.bytes));
    if (MORE.some((t) => t.name === request.params.name)) return text(`ran ${JSON.stringify(request.params.name)}`);
    switch (request.params.name) {
      case "echo":
        return text(`echo: ${args.text}`);
      case "sleep":
        log(`sleeping ${args.ms}`);
        await wait(args.ms, extra.signal, () => log(`cancelled sleep ${args.ms}`));
        return text(`slept ${args.ms} ms`);
      case "fail":
        return text("it failed, as it always does", true);
      case "image":
        return {
          content: [
            { type: "text", text: "a picture" },
            { type: "image", data: PNG_1X1, mimeType: "image/png" },
            { type: "resource_link", uri: "file:///tmp/picture.png", name: "picture", mimeType: "image/png" },
          ],
        };
      case "change_list":
        state.changed = true;
        await server.sendToolListChanged();
        return text("the list changed");
      case "crash":
        process.stderr.write("crashing on purpose\n");
        process.exit(3);
        return text("unreachable");
      case "wait_for":
        while (!existsSync(args.path) && !extra.signal.aborted) await wait(20, extra.signal, () => {});
        return text(`${args.path} is there`);
      case "env_hash": {
        const value = process.env[args.name];
        return text(value === undefined ? "unset" : createHash("sha256").update(value).digest("hex"));
      }
      case "ask": {
        const withdrawMs = Number(process.env.MCP_TEST_ELICIT_WITHDRAW_MS ?? 0);
        try {
          const answer = await extra.sendRequest(
            { method: "elicitation/create", params: ELICIT },
            ElicitResultSchema,
            withdrawMs ? { timeout: withdrawMs } : { timeout: 600_000 },
          );
          log(`elicit-answer ${JSON.stringify(answer)}`);
          return text(`answer: ${JSON.stringify(answer)}`);
        } catch (error) {
          log(`elicit-error ${error.message}`);
          return text(withdrawMs ? "withdrawn" : `elicitation failed: ${error.message}`, !withdrawMs);
        }
      }
      case "added_later":
        return text("the added tool ran");
      default:
        return text(`no tool ${request.params.name}`, true);
    }
  });
  return server;
}

/** Answers one HTTP request (its `body` read) with a fresh server of the tools over a stateless Streamable HTTP transport, closed with the response. */
export async function serveStateless(state, req, res, body) {
  const server = toolServer(state);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on("close", () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}
