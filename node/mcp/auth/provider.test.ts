/** The SDK's OAuth client as tine fills it in: where the client and tokens go, and what it gives auth() back. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CallbackServer } from "./callback.ts";
import { type OAuthOptions, TineOAuthProvider } from "./provider.ts";
import { SignInFile, signInFile } from "./token-store.ts";

const URL_A = "https://mcp.example.com/mcp";
const NONE: OAuthOptions = { clientId: null, clientSecret: null, scope: null, callbackPort: null, clientMetadataUrl: null };
let dir: string;
let callback: CallbackServer;
let problems: string[];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tine-provider-"));
  callback = new CallbackServer("remote");
  problems = [];
});
afterEach(() => {
  callback.close();
  rmSync(dir, { recursive: true, force: true });
});

const file = () => new SignInFile(signInFile(dir, URL_A), URL_A);
const provider = (options: OAuthOptions = NONE) =>
  new TineOAuthProvider(URL_A, file(), callback, options, {
    redirect: () => {},
    problem: (text) => void problems.push(text),
    asked: () => {},
    saved: () => {},
  });

describe("tine's OAuth client provider", () => {
  it("listens for the callback before auth() reads the redirect URL, and keeps a registration with its port", async () => {
    const p = provider();
    expect(await p.clientInformation()).toBeUndefined();
    expect(p.redirectUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(p.clientMetadata).toMatchObject({ redirect_uris: [p.redirectUrl], token_endpoint_auth_method: "none" });
    p.saveClientInformation({ client_id: "c1", redirect_uris: [p.redirectUrl] });
    const port = Number(new URL(p.redirectUrl).port);
    expect(JSON.parse(readFileSync(file().path, "utf8"))).toEqual({
      url: URL_A,
      client: { client_id: "c1", redirect_uris: [p.redirectUrl] },
      port,
    });
    // Another session listens on the same port, so the registration is used again.
    callback.close();
    const again = provider();
    expect(await again.clientInformation()).toEqual({ client_id: "c1", redirect_uris: [`http://127.0.0.1:${port}/callback`] });
  });

  it("registers again when the registered port is taken (authorization servers match the redirect URL exactly)", async () => {
    const busy = new CallbackServer("other");
    const port = await busy.listen();
    try {
      file().write({ url: URL_A, client: { client_id: "old", redirect_uris: [`http://127.0.0.1:${port}/callback`] }, port });
      const p = provider();
      expect(await p.clientInformation()).toBeUndefined();
      expect(p.redirectUrl).not.toBe(`http://127.0.0.1:${port}/callback`);
    } finally {
      busy.close();
    }
  });

  it("gives a client from the options as it is, and never stores it", async () => {
    const p = provider({ ...NONE, clientId: "pre", clientSecret: "s3", callbackPort: null, scope: "read" });
    expect(await p.clientInformation()).toEqual({ client_id: "pre", client_secret: "s3" });
    expect(p.clientMetadata).toMatchObject({ token_endpoint_auth_method: "client_secret_basic", scope: "read" });
    p.saveClientInformation({ client_id: "pre", client_secret: "s3", issuer: "https://as" } as never);
    expect(file().read()).toEqual({ stored: { url: URL_A } });
  });

  it("gives auth() the client metadata URL of the options (SEP-991), none without it", () => {
    expect(provider({ ...NONE, clientMetadataUrl: "https://tine.example/client.json" }).clientMetadataUrl).toBe(
      "https://tine.example/client.json",
    );
    expect(provider().clientMetadataUrl).toBeUndefined();
  });

  it("hides the refresh token while a step-up is wanted (a refresh would not widen the scope), until new tokens come", () => {
    const p = provider();
    p.saveTokens({ access_token: "a", token_type: "bearer", refresh_token: "r", scope: "mcp:tools" });
    p.wants("mcp:tools");
    expect(p.steppingUp).toBe(false);
    p.wants("mcp:tools mcp:write");
    expect(p.steppingUp).toBe(true);
    expect(p.tokens()).toEqual({ access_token: "a", token_type: "bearer", scope: "mcp:tools" });
    p.saveTokens({ access_token: "b", token_type: "bearer", refresh_token: "r2", scope: "mcp:tools mcp:write" });
    expect(p.steppingUp).toBe(false);
    expect(p.tokens()).toMatchObject({ refresh_token: "r2" });
  });

  it("forgets what the server says is no longer good, and everything on sign-out", () => {
    const p = provider();
    p.saveClientInformation({ client_id: "c1", redirect_uris: [] });
    p.saveTokens({ access_token: "a", token_type: "bearer" });
    p.invalidateCredentials("tokens");
    expect(file().read()).toEqual({ stored: { url: URL_A, client: { client_id: "c1", redirect_uris: [] } } });
    p.saveTokens({ access_token: "a", token_type: "bearer" });
    p.invalidateCredentials("client");
    expect(file().read()).toEqual({ stored: { url: URL_A, tokens: { access_token: "a", token_type: "bearer" } } });
    p.invalidateCredentials("all");
    expect(file().read()).toEqual({ stored: { url: URL_A } });
    expect(p.hasTokens).toBe(false);
  });

  it("says once that a file cannot be used, and reads it as empty", () => {
    file().write({ url: URL_A, tokens: { access_token: "a", token_type: "bearer" } });
    rmSync(file().path);
    writeFileSync(file().path, "{oops", { mode: 0o600 });
    const p = provider();
    expect(p.tokens()).toBeUndefined();
    expect(p.hasTokens).toBe(false);
    expect(problems).toEqual([expect.stringContaining("is not JSON")]);
  });
});
