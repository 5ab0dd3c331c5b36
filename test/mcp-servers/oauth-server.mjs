/**
 * tine's test MCP server behind OAuth: one origin is both the authorization server (the SDK's
 * mcpAuthRouter: metadata, dynamic registration, authorize, token with PKCE, refresh) and the
 * protected MCP server at /mcp (the SDK's requireBearerAuth, which answers 401 with the protected
 * resource's metadata URL in WWW-Authenticate). Its tools are tools.mjs's. It prints its /mcp URL
 * on stdout once it listens. The user's consent is given at once (a redirect to the callback),
 * or refused with $OAUTH_TEST_DENY=1. With $OAUTH_TEST_STEP_UP=1 a call needs the scope mcp:write. For the tests: POST /test/expire makes every access token
 * expired (a refresh gets a new one), POST /test/revoke every token, refresh tokens too. What
 * the server sees of the flow (registered, authorize, token by grant, a refused token) is logged
 * to $MCP_TEST_LOG, never a token.
 */
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { InvalidGrantError, InvalidTokenError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
import { getOAuthProtectedResourceMetadataUrl, mcpAuthRouter } from "@modelcontextprotocol/sdk/server/auth/router.js";
import express from "express";
import { log, serveStateless } from "./tools.mjs";

const clients = new Map();
const codes = new Map();
/** Access tokens: token → { clientId, scopes, expiresAt }; refresh tokens: token → { clientId, scopes }. */
const access = new Map();
const refresh = new Map();

const issue = (clientId, scopes) => {
  const token = randomUUID();
  const refreshToken = randomUUID();
  access.set(token, { clientId, scopes, expiresAt: Date.now() + 3600_000 });
  refresh.set(refreshToken, { clientId, scopes });
  return { access_token: token, token_type: "bearer", expires_in: 3600, refresh_token: refreshToken, scope: scopes.join(" ") };
};

const provider = {
  clientsStore: {
    getClient: async (id) => clients.get(id),
    registerClient: async (client) => {
      clients.set(client.client_id, client);
      log(`registered ${client.client_name} ${client.redirect_uris.join(" ")}`);
      return client;
    },
  },
  async authorize(client, params, res) {
    log(`authorize ${params.scopes?.join(" ") ?? ""}`);
    if (!client.redirect_uris.includes(params.redirectUri)) throw new Error("unregistered redirect_uri");
    const target = new URL(params.redirectUri);
    if (params.state !== undefined) target.searchParams.set("state", params.state);
    if (process.env.OAUTH_TEST_DENY === "1") {
      target.searchParams.set("error", "access_denied");
      target.searchParams.set("error_description", "the user said no");
    } else {
      const code = randomUUID();
      codes.set(code, { client, params });
      target.searchParams.set("code", code);
    }
    res.redirect(target.href);
  },
  async challengeForAuthorizationCode(_client, code) {
    const data = codes.get(code);
    if (!data) throw new InvalidGrantError("unknown code");
    return data.params.codeChallenge;
  },
  async exchangeAuthorizationCode(client, code) {
    const data = codes.get(code);
    if (!data || data.client.client_id !== client.client_id) throw new InvalidGrantError("unknown code");
    codes.delete(code);
    log("token authorization_code");
    return issue(client.client_id, data.params.scopes ?? []);
  },
  async exchangeRefreshToken(client, refreshToken) {
    const data = refresh.get(refreshToken);
    if (!data || data.clientId !== client.client_id) {
      log("token refresh refused");
      throw new InvalidGrantError("unknown refresh token");
    }
    refresh.delete(refreshToken);
    log("token refresh_token");
    return issue(client.client_id, data.scopes);
  },
  async verifyAccessToken(token) {
    const data = access.get(token);
    if (!data || data.expiresAt < Date.now()) {
      log("access refused");
      throw new InvalidTokenError("unknown or expired token");
    }
    return { token, clientId: data.clientId, scopes: data.scopes, expiresAt: Math.floor(data.expiresAt / 1000) };
  },
};

const http = createServer();
http.listen(0, "127.0.0.1", () => {
  const base = new URL(`http://127.0.0.1:${http.address().port}`);
  const mcpUrl = new URL("/mcp", base);
  const app = express();
  // The resource offers mcp:tools; mcp:write (which the authorization server grants too) only when a call asks for it.
  app.get(new URL(getOAuthProtectedResourceMetadataUrl(mcpUrl)).pathname, (_req, res) =>
    res.json({ resource: mcpUrl.href, authorization_servers: [base.href], scopes_supported: ["mcp:tools"] }),
  );
  app.use(mcpAuthRouter({ provider, issuerUrl: base, resourceServerUrl: mcpUrl, scopesSupported: ["mcp:tools", "mcp:write"] }));
  app.post("/test/expire", (_req, res) => {
    for (const data of access.values()) data.expiresAt = 0;
    res.end("ok");
  });
  app.post("/test/revoke", (_req, res) => {
    access.clear();
    refresh.clear();
    res.end("ok");
  });
  const state = { changed: false };
  app.post(
    "/mcp",
    requireBearerAuth({ verifier: provider, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl) }),
    express.json(),
    async (req, res) => {
      // $OAUTH_TEST_STEP_UP: a call needs the scope mcp:write besides (403 insufficient_scope, as the spec's step-up).
      if (process.env.OAUTH_TEST_STEP_UP === "1" && req.body?.method === "tools/call" && !req.auth.scopes.includes("mcp:write")) {
        log("step-up asked");
        const metadata = getOAuthProtectedResourceMetadataUrl(mcpUrl);
        res.set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="mcp:tools mcp:write", resource_metadata="${metadata}"`);
        return void res.status(403).json({ error: "insufficient_scope" });
      }
      await serveStateless(state, req, res, req.body);
    },
  );
  app.all("/mcp", (_req, res) => res.status(405).end());
  http.on("request", app);
  log(`started ${process.pid}`);
  process.stdout.write(`${mcpUrl.href}\n`);
});
