/**
 * Signing in to a remote MCP server, against tine's real test OAuth server
 * (test/mcp-servers/oauth-server.mjs, the SDK's authorization server and bearer auth): the opener
 * does what a browser does (fetches the page and follows its redirect to tine's callback).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mcpServersOption } from "../config.ts";
import { type McpNotice, McpServers } from "../registry.ts";
import { signInDir, signInFile } from "./token-store.ts";

const OAUTH_SERVER = resolve(import.meta.dirname, "../../../test/mcp-servers/oauth-server.mjs");

let dir: string;
let logFile: string;
let notices: McpNotice[];
const children: ChildProcess[] = [];
const registries: McpServers[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tine-oauth-"));
  logFile = join(dir, "server.log");
  notices = [];
});
afterEach(async () => {
  for (const r of registries.splice(0)) for (const s of r.all()) await s.stop();
  for (const c of children.splice(0)) c.kill();
  rmSync(dir, { recursive: true, force: true });
});

async function oauthServer(env: Record<string, string> = {}): Promise<string> {
  const child = spawn(process.execPath, [OAUTH_SERVER], {
    env: { ...process.env, MCP_TEST_LOG: logFile, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  return new Promise<string>((done) => child.stdout!.once("data", (d: Buffer) => done(d.toString().trim())));
}

/** What a browser does with the page: fetches it and follows its redirects (to tine's callback); the callback's status. */
const browser = async (url: string) => (await fetch(url)).status;

function registry(url: string, openUrl: (server: string, url: string) => void, oauth: Record<string, unknown> = {}) {
  const spec = mcpServersOption({ remote: { url, ...(Object.keys(oauth).length ? { oauth } : {}) } }, "mcp_servers");
  if (!spec.ok) throw new Error("bad spec");
  const servers = new McpServers(spec.value, {
    root: dir,
    vars: {},
    denied: new Set(),
    timeoutMs: 20_000,
    notify: (n) => void notices.push(n),
    elicitationWaiting: () => {},
    projectFiles: false,
    dataDir: dir,
    openUrl,
  });
  registries.push(servers);
  return servers;
}

const serverLog = () => readFileSync(logFile, "utf8").split("\n").filter(Boolean);
const signal = () => new AbortController().signal;

describe("signing in to a remote MCP server", () => {
  it("discovers, registers, opens the page, takes the code at its callback, and keeps the tokens in a 0600 file", async () => {
    const url = await oauthServer();
    const opened: string[] = [];
    const servers = registry(url, (_server, page) => {
      opened.push(page);
      void browser(page);
    });
    const server = servers.get("remote")!;
    await server.ready();
    expect(server.describe()).toBe("ready with 8 tools");
    expect(servers.report()[0]).toMatchObject({ signin: "signed in", signin_state: "signed-in" });
    expect(opened).toHaveLength(1);
    const page = new URL(opened[0]!);
    expect(page.searchParams.get("code_challenge_method")).toBe("S256");
    expect(page.searchParams.get("scope")).toBe("mcp:tools");
    expect(page.searchParams.get("redirect_uri")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(serverLog()).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^registered tine\.nvim http:\/\/127\.0\.0\.1:\d+\/callback$/),
        "token authorization_code",
      ]),
    );
    const file = signInFile(dir, url);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(readFileSync(file, "utf8"));
    expect(stored.tokens.access_token).toEqual(expect.any(String));
    // Nothing the user was told holds a token.
    expect(JSON.stringify(notices)).not.toContain(stored.tokens.access_token);
    expect(JSON.stringify(notices)).not.toContain(stored.tokens.refresh_token);
    const result = await server.call("echo", { text: "hi" }, signal());
    expect(result).toEqual({ text: "echo: hi", isError: false });

    // Signing out forgets the tokens; the server needs a sign-in from :Tine mcp, and no page opens by itself.
    servers.act("remote", "sign-out");
    await expect.poll(() => servers.report()[0], { timeout: 15_000 }).toMatchObject({ state: "failed", signin_state: "needs-sign-in" });
    expect(readFileSync(file, "utf8")).not.toContain(stored.tokens.access_token);
    expect(opened).toHaveLength(1);
    servers.act("remote", "sign-in");
    await expect.poll(() => servers.report()[0], { timeout: 15_000 }).toMatchObject({ state: "ready", signin_state: "signed-in" });
    expect(opened).toHaveLength(2);

    // Another session: the kept tokens, no page.
    const again = registry(url, () => expect.fail("no page opens when the tokens are good"));
    await again.get("remote")!.ready();
    expect(again.get("remote")!.describe()).toBe("ready with 8 tools");
  });

  it("refreshes an expired token without the user; a revoked one needs a sign-in from :Tine mcp, and the call says so", async () => {
    const url = await oauthServer();
    let opens = 0;
    let callback = "";
    const servers = registry(url, (_s, page) => {
      opens++;
      callback = new URL(page).searchParams.get("redirect_uri")!;
      void browser(page);
    });
    const server = servers.get("remote")!;
    await server.ready();
    await fetch(new URL("/test/expire", url), { method: "POST" });
    expect(await server.call("echo", { text: "after expiry" }, signal())).toEqual({ text: "echo: after expiry", isError: false });
    expect(serverLog()).toContain("token refresh_token");
    expect(opens).toBe(1);
    // The callback listens only while a sign-in waits (auth() opened it again before it refreshed).
    await expect(fetch(callback)).rejects.toThrow();

    await fetch(new URL("/test/revoke", url), { method: "POST" });
    const refused = await server.call("echo", { text: "after revoke" }, signal());
    expect(refused).toEqual({ text: "The MCP server remote needs sign-in (sign in from :Tine mcp)", isError: true });
    expect(servers.report()[0]).toMatchObject({ signin_state: "needs-sign-in" });
    expect(opens).toBe(1);

    // The user signs in from :Tine mcp: the page opens, and the server is ready again.
    servers.act("remote", "sign-in");
    await expect.poll(() => server.state.type, { timeout: 15_000 }).toBe("ready");
    expect(opens).toBe(2);
    expect(await server.call("echo", { text: "signed in again" }, signal())).toEqual({ text: "echo: signed in again", isError: false });
  });

  it("steps up when a call needs more scope: the page opens again for it, and the call is made again", async () => {
    const url = await oauthServer({ OAUTH_TEST_STEP_UP: "1" });
    const opened: string[] = [];
    const servers = registry(url, (_s, page) => {
      opened.push(page);
      void browser(page);
    });
    const server = servers.get("remote")!;
    await server.ready();
    expect(new URL(opened[0]!).searchParams.get("scope")).toBe("mcp:tools");
    expect(await server.call("echo", { text: "more scope" }, signal())).toEqual({ text: "echo: more scope", isError: false });
    expect(opened).toHaveLength(2);
    expect(new URL(opened[1]!).searchParams.get("scope")).toBe("mcp:tools mcp:write");
    expect(serverLog().filter((l) => l === "step-up asked")).toHaveLength(1);
  });

  it("a call stopped while it waits for a step-up sign-in stops waiting, and says so", async () => {
    const url = await oauthServer({ OAUTH_TEST_STEP_UP: "1" });
    let opens = 0;
    const servers = registry(url, (_s, page) => {
      // The first sign-in is made; the step-up's page is left unanswered (the user is away).
      if (++opens === 1) void browser(page);
    });
    const server = servers.get("remote")!;
    await server.ready();
    const stop = new AbortController();
    const call = server.call("echo", { text: "more scope" }, stop.signal);
    await expect.poll(() => opens, { timeout: 15_000 }).toBe(2);
    stop.abort();
    expect(await call).toEqual({ text: "The MCP server remote was stopped while it waited for the sign-in", isError: true });
  });

  it("refuses a callback with another state and keeps waiting for the right one", async () => {
    const url = await oauthServer();
    const statuses: number[] = [];
    const servers = registry(url, (_s, page) => {
      void (async () => {
        const redirect = new URL(page).searchParams.get("redirect_uri")!;
        statuses.push(await browser(`${redirect}?code=forged&state=not-the-one`));
        statuses.push(await browser(page));
      })();
    });
    const server = servers.get("remote")!;
    await server.ready();
    expect(statuses).toEqual([400, 200]);
    expect(server.describe()).toBe("ready with 8 tools");
    expect(serverLog()).not.toContain("forged");
  });

  it("says so when the user refuses consent, and the server waits for a sign-in from :Tine mcp", async () => {
    const url = await oauthServer({ OAUTH_TEST_DENY: "1" });
    const servers = registry(url, (_s, page) => void browser(page));
    const server = servers.get("remote")!;
    await server.ready();
    expect(server.state).toMatchObject({
      type: "failed",
      error: expect.stringContaining("the sign-in was refused (access_denied: the user said no)"),
    });
    expect(servers.report()[0]).toMatchObject({ signin_state: "needs-sign-in" });
    expect(notices).toContainEqual({
      level: "error",
      text: "tine: MCP server remote: the sign-in was refused (access_denied: the user said no)",
    });
    expect(readdirSync(signInDir(dir)).map((f) => JSON.parse(readFileSync(join(signInDir(dir), f), "utf8")).tokens)).toEqual([undefined]);
  });

  it("says the authorization server cannot be reached, and does not fall back to SSE", async () => {
    // A server that asks for OAuth, its authorization server on a port nobody listens on.
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", () => r()));
    const deadPort = (closed.address() as { port: number }).port;
    await new Promise((r) => closed.close(r));
    const asking: Server = createServer((req, res) => {
      if (req.url?.startsWith("/.well-known/oauth-protected-resource"))
        return void res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ resource: `http://127.0.0.1:${port}/mcp`, authorization_servers: [`http://127.0.0.1:${deadPort}`] }));
      res.writeHead(401, { "www-authenticate": 'Bearer error="invalid_token"' }).end();
    });
    await new Promise<void>((r) => asking.listen(0, "127.0.0.1", () => r()));
    const port = (asking.address() as { port: number }).port;
    try {
      const servers = registry(`http://127.0.0.1:${port}/mcp`, () => expect.fail("no page without an authorization server"));
      const server = servers.get("remote")!;
      await server.ready();
      expect(server.state).toMatchObject({ type: "failed", error: expect.stringMatching(/^sign-in failed: /) });
      expect(servers.report()[0]).toMatchObject({ signin_state: "error" });
      expect(server.describe()).not.toContain("SSE");
    } finally {
      asking.close();
    }
  });

  it("opens only a web page: an authorization endpoint of another scheme is refused", async () => {
    const asking: Server = createServer((req, res) => {
      const base = `http://127.0.0.1:${port}`;
      const json = (v: unknown) => void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(v));
      if (req.url?.startsWith("/.well-known/oauth-protected-resource"))
        return json({ resource: `${base}/mcp`, authorization_servers: [base] });
      if (req.url?.startsWith("/.well-known/oauth-authorization-server"))
        return json({
          issuer: base,
          authorization_endpoint: "file:///etc/hostname",
          token_endpoint: `${base}/token`,
          registration_endpoint: `${base}/register`,
          response_types_supported: ["code"],
          code_challenge_methods_supported: ["S256"],
        });
      if (req.url === "/register") return json({ client_id: "c1", redirect_uris: [] });
      res.writeHead(401, { "www-authenticate": 'Bearer error="invalid_token"' }).end();
    });
    await new Promise<void>((r) => asking.listen(0, "127.0.0.1", () => r()));
    const port = (asking.address() as { port: number }).port;
    try {
      const servers = registry(`http://127.0.0.1:${port}/mcp`, () => expect.fail("no page but a web page opens"));
      await servers.get("remote")!.ready();
      expect(servers.report()[0]).toMatchObject({ signin: "sign-in failed: its authorization page is not a web page (file:)" });
    } finally {
      asking.close();
    }
  });

  it("does not use a token file others may read, or one that is corrupt: it says so and signs in afresh", async () => {
    const url = await oauthServer();
    const file = signInFile(dir, url);
    mkdirSync(signInDir(dir), { recursive: true, mode: 0o700 });
    writeFileSync(file, JSON.stringify({ url, tokens: { access_token: "planted", token_type: "bearer" } }), { mode: 0o644 });
    chmodSync(file, 0o644);
    const servers = registry(url, (_s, page) => void browser(page));
    await servers.get("remote")!.ready();
    expect(servers.get("remote")!.describe()).toBe("ready with 8 tools");
    expect(notices).toContainEqual({
      level: "error",
      text: expect.stringMatching(/may be read by others \(mode 644\), so it is not used; sign in again$/),
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, "utf8")).not.toContain("planted");

    writeFileSync(file, "{corrupt");
    const again = registry(url, (_s, page) => void browser(page));
    await again.get("remote")!.ready();
    expect(again.get("remote")!.describe()).toBe("ready with 8 tools");
    expect(notices).toContainEqual({ level: "error", text: expect.stringMatching(/is not JSON, so it is not used; sign in again$/) });
  });
});
