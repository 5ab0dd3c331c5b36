// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${VAR}" is what the config takes, written as a user writes it
/** MCP server config: setup's and the files' shapes into one spec, and `${VAR}` resolved only when a server starts. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { say } from "../core/checks.ts";
import {
  expandVars,
  launchOf,
  type McpServerSpec,
  mcpServersOption,
  mergeServers,
  readProjectFile,
  refusedVariables,
  serverTable,
  UnsetVariable,
} from "./config.ts";

const parse = (v: unknown) => {
  const checked = mcpServersOption(v, "config.mcp_servers");
  return checked.ok ? checked.value : say(checked.problem);
};

describe("mcp_servers from setup", () => {
  it("takes stdio servers (command list, env, cwd) and HTTP servers (url, headers); Lua's {} is none", () => {
    expect(parse([])).toEqual([]);
    expect(
      parse({ gh: { command: ["npx", "-y", "server"], env: { TOKEN: "${GH}" }, cwd: "tools" }, web: { url: "http://x/mcp" } }),
    ).toEqual([
      { kind: "stdio", name: "gh", from: "setup", command: "npx", args: ["-y", "server"], env: { TOKEN: "${GH}" }, cwd: "tools" },
      { kind: "http", name: "web", from: "setup", url: "http://x/mcp", headers: {}, sse: false },
    ]);
  });

  it("takes an HTTP server's oauth (a pre-registered client, scope, callback port), its ${VAR} resolved only at start", () => {
    const [spec] = parse({
      web: { url: "http://x/mcp", oauth: { client_id: "${ID}", client_secret: "${SECRET}", scope: "read", callback_port: 8765 } },
    }) as McpServerSpec[];
    expect(spec).toMatchObject({ oauth: { client_id: "${ID}", client_secret: "${SECRET}" } });
    const launch = launchOf(spec!, "/p", { ID: "client-1", SECRET: "s3" }, new Set());
    expect(launch).toMatchObject({ oauth: { clientId: "client-1", clientSecret: "s3", scope: "read", callbackPort: 8765 } });
    expect(launchOf((parse({ web: { url: "http://x/mcp" } }) as McpServerSpec[])[0]!, "/p", {}, new Set())).toMatchObject({
      oauth: { clientId: null, clientSecret: null, scope: null, callbackPort: null, clientMetadataUrl: null },
    });
    expect(parse({ web: { url: "u", oauth: { callback_port: 0 } } })).toMatch(
      /^config.mcp_servers.web.oauth.callback_port must be a whole number >= 1/,
    );
    expect(parse({ web: { url: "u", oauth: { token: "t" } } })).toBe(
      'config.mcp_servers.web.oauth has no "token" (it takes client_id, client_secret, scope, callback_port, client_metadata_url)',
    );
  });

  it("names what is wrong: a name unfit for tool names, a field, an empty command", () => {
    expect(parse({ "a.b": { url: "u" } })).toBe(
      'config.mcp_servers.a.b must be named with letters, digits, _ and - only (it goes into tool names) (got "a.b")',
    );
    expect(parse({ s: { command: [] } })).toMatch(/^config.mcp_servers.s.command must be a non-empty list/);
    expect(parse({ s: { url: "u", headers: { A: 1 } } })).toBe("config.mcp_servers.s.headers.A must be a string (got 1)");
    expect(parse({ s: { url: "u", nope: 1 } })).toMatch(/^config.mcp_servers.s has no "nope"/);
  });
});

describe("project files", () => {
  let dir = "";
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("read Claude Code's shape (command string and args, type http/sse); a missing file is none, a broken one says why", () => {
    dir = mkdtempSync(join(tmpdir(), "tine-mcp-config-"));
    expect(readProjectFile(dir, ".mcp.json")).toEqual({ servers: [] });
    mkdirSync(join(dir, ".tine"));
    writeFileSync(
      join(dir, ".tine/mcp.json"),
      JSON.stringify({ mcpServers: { fs: { command: "npx", args: ["-y", "fs"] }, old: { type: "sse", url: "http://o/sse" } } }),
    );
    expect(readProjectFile(dir, ".tine/mcp.json")).toEqual({
      servers: [
        { kind: "stdio", name: "fs", from: ".tine/mcp.json", command: "npx", args: ["-y", "fs"], env: {}, cwd: null },
        { kind: "http", name: "old", from: ".tine/mcp.json", url: "http://o/sse", headers: {}, sse: true },
      ],
    });
    writeFileSync(join(dir, ".mcp.json"), "{ not json");
    expect(readProjectFile(dir, ".mcp.json")).toMatchObject({ problem: expect.stringMatching(/^\.mcp\.json is not JSON/) });
  });

  it("merge with the first place winning a name", () => {
    const a = { kind: "http", name: "x", from: "setup", url: "a", headers: {}, sse: false } as const;
    const b = { ...a, from: ".mcp.json", url: "b" } as const;
    const c = { ...a, name: "y", from: ".mcp.json" } as const;
    expect(mergeServers([a], [b, c])).toEqual([a, c]);
  });
});

describe("${VAR}", () => {
  it("is read from the environment given, with ${VAR:-default}; an unset one names the variable only", () => {
    expect(expandVars("Bearer ${T}", { T: "abc" })).toBe("Bearer abc");
    expect(expandVars("${NONE:-fallback}/x", {})).toBe("fallback/x");
    expect(expandVars("no vars $HOME", {})).toBe("no vars $HOME");
    expect(() => expandVars("${MISSING}", { OTHER: "secret" })).toThrow(new UnsetVariable("${MISSING} is not set in Neovim's environment"));
  });

  it("is resolved in a launch only: the spec keeps what was written", () => {
    const specs = parse({ s: { command: ["${BIN}", "--token=${T}"], env: { K: "${T}" } } });
    if (typeof specs === "string") throw new Error(specs);
    const spec = specs[0]!;
    const launch = launchOf(spec, "/project", { BIN: "prog", T: "t0k" }, new Set(["T"]));
    expect(launch).toEqual({ kind: "stdio", command: "prog", args: ["--token=t0k"], env: { K: "t0k" }, cwd: "/project" });
    expect(JSON.stringify(spec)).not.toContain("t0k");
  });

  it("in a project's file never reads a denied variable: read as unset (its default, else empty), and named; setup's reads it", () => {
    const values = { ANTHROPIC_API_KEY: "sk-key", DENIED: "d3nied", OK: "fine" };
    const denied = new Set(["ANTHROPIC_API_KEY", "DENIED"]);
    const servers = {
      s: { command: "prog", args: ["--key=${ANTHROPIC_API_KEY}", "${DENIED:-dflt}"], env: { K: "${ANTHROPIC_API_KEY}", O: "${OK}" } },
      h: { type: "http", url: "https://x/${ANTHROPIC_API_KEY}", headers: { A: "Bearer ${DENIED}" } },
    };
    const project = serverTable(servers, "mcpServers", ".mcp.json");
    if (!project.ok) throw new Error(say(project.problem));
    const [s, h] = project.value;
    expect(launchOf(s!, "/p", values, denied)).toEqual({
      kind: "stdio",
      command: "prog",
      args: ["--key=", "dflt"],
      env: { K: "", O: "fine" },
      cwd: "/p",
    });
    expect(launchOf(h!, "/p", values, denied)).toMatchObject({ url: new URL("https://x/"), headers: { A: "Bearer " } });
    expect(refusedVariables(s!, denied)).toEqual(["ANTHROPIC_API_KEY", "DENIED"]);
    expect(refusedVariables(h!, denied)).toEqual(["ANTHROPIC_API_KEY", "DENIED"]);
    const setup = serverTable(servers, "mcp_servers", "setup");
    if (!setup.ok) throw new Error(say(setup.problem));
    expect(launchOf(setup.value[0]!, "/p", values, denied)).toMatchObject({ args: ["--key=sk-key", "d3nied"], env: { K: "sk-key" } });
    expect(refusedVariables(setup.value[0]!, denied)).toEqual([]);
  });
});
