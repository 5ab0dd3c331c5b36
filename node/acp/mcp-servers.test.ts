import assert from "node:assert/strict";
import { describe, it } from "vitest";
import type { McpServerSpec } from "../mcp/config.ts";
import { sessionServers } from "./mcp-servers.ts";

const stdio = (name: string, env: Record<string, string>, from: McpServerSpec["from"] = "setup"): McpServerSpec => ({
  kind: "stdio",
  name,
  from,
  command: "node",
  args: ["srv.mjs"],
  env,
  cwd: null,
});
const http = (name: string, sse: boolean): McpServerSpec => ({
  kind: "http",
  name,
  from: "setup",
  url: "http://127.0.0.1:9/mcp",
  headers: { "x-token": `\${TOKEN}` },
  sse,
});
const values = { TOKEN: "t0k", ANTHROPIC_API_KEY: "sk-secret-1", HOME: "/h" };
const denied = new Set(["ANTHROPIC_API_KEY"]);

describe("tine's MCP servers as an agent's session gets them", () => {
  it("stdio always, its variables resolved, env as name/value pairs; HTTP and SSE only where the agent takes them", () => {
    const specs = [stdio("a", { HOME: `\${HOME}` }), http("h", false), http("s", true)];
    const none = sessionServers(specs, { http: false, sse: false }, "/p", values, denied);
    assert.deepEqual(none.servers, [{ name: "a", command: "node", args: ["srv.mjs"], env: [{ name: "HOME", value: "/h" }] }]);
    assert.equal(none.left.length, 2);
    const both = sessionServers(specs, { http: true, sse: true }, "/p", values, denied);
    assert.deepEqual(
      both.servers.slice(1).map((s) => ("type" in s && s.type !== "acp" ? [s.type, s.name, s.headers] : null)),
      [
        ["http", "h", [{ name: "x-token", value: "t0k" }]],
        ["sse", "s", [{ name: "x-token", value: "t0k" }]],
      ],
    );
  });

  it("never the API key: a server whose values would carry it is left out, saying why but not the value", () => {
    const { servers, left } = sessionServers(
      [
        stdio("setupKey", { K: `\${ANTHROPIC_API_KEY}` }),
        stdio("projectKey", { K: `\${ANTHROPIC_API_KEY:-x}` }, ".mcp.json"),
        stdio("unset", { K: `\${NOPE}` }),
      ],
      { http: false, sse: false },
      "/p",
      values,
      denied,
    );
    // A project's file reads it as unset (its default); setup's is refused here, as the agent must never get it.
    assert.deepEqual(
      servers.map((s) => s.name),
      ["projectKey"],
    );
    assert.deepEqual(JSON.stringify(servers).includes("sk-secret-1"), false);
    assert.equal(left.length, 2);
    assert.ok(left.every((l) => !l.includes("sk-secret-1")));
    assert.match(left[0]!, /setupKey: it would carry the host's credentials/);
    assert.match(left[1]!, /unset: .*NOPE/);
  });
});
