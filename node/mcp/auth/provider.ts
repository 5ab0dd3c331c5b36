/**
 * The SDK's OAuth client, as tine fills it in for one remote server (its `auth()` does discovery,
 * registration, PKCE, scopes, step-up and refresh; this says where things are kept and how the
 * user is sent to sign in). The client and tokens go to the server's file (token-store.ts) and
 * nowhere else; the PKCE verifier, `state` and discovery live in memory for one sign-in.
 */
import { randomBytes } from "node:crypto";
import type { OAuthClientProvider, OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { CallbackServer } from "./callback.ts";
import type { SignInFile, StoredSignIn } from "./token-store.ts";

/** A server's `oauth` option, its values resolved: a client registered beforehand, the scope to ask for, the callback's port. */
export type OAuthOptions = {
  readonly clientId: string | null;
  readonly clientSecret: string | null;
  readonly scope: string | null;
  readonly callbackPort: number | null;
  /** An https URL of tine's client metadata document (SEP-991): the client id where the authorization server takes one. */
  readonly clientMetadataUrl: string | null;
};

export type ProviderHooks = {
  /** The user is to open `url` to sign in; `state` is what the callback must bring back. */
  readonly redirect: (url: URL, state: string) => void;
  /** The file could not be used (said once); the sign-in goes on as if there were none. */
  readonly problem: (text: string) => void;
  /** auth() runs: the server asked for a sign-in (or refused a token). */
  readonly asked: () => void;
  /** New tokens were kept (a refresh, a code exchanged). */
  readonly saved: () => void;
};

const CLIENT_NAME = "tine.nvim";

export class TineOAuthProvider implements OAuthClientProvider {
  private stored: StoredSignIn | null = null;
  private verifier: string | null = null;
  private discovery: OAuthDiscoveryState | undefined;
  private lastState: string | null = null;
  /** The scope a call needs beyond the kept tokens' (step-up), until tokens with it are saved. */
  private stepUp: string | null = null;
  readonly clientMetadataUrl: string | undefined;

  constructor(
    private readonly url: string,
    private readonly file: SignInFile,
    private readonly callback: CallbackServer,
    private readonly options: OAuthOptions,
    private readonly hooks: ProviderHooks,
  ) {
    this.clientMetadataUrl = options.clientMetadataUrl ?? undefined;
  }

  /** The file's content, read once (a problem is said once, and then it reads as empty). */
  private get kept(): StoredSignIn {
    if (!this.stored) {
      const read = this.file.read();
      if ("problem" in read) this.hooks.problem(read.problem);
      this.stored = "stored" in read ? read.stored : { url: this.url };
    }
    return this.stored;
  }

  private keep(change: Partial<StoredSignIn>): void {
    this.stored = { ...this.kept, ...change };
    this.file.write(this.stored);
  }

  /** Whether the file holds tokens (the server may still refuse them). */
  get hasTokens(): boolean {
    return this.kept.tokens !== undefined;
  }

  get redirectUrl(): string {
    // Read after clientInformation() has the callback listening (auth() asks for it first).
    return this.callback.url ?? `http://127.0.0.1:${this.options.callbackPort ?? this.kept.port ?? 0}/callback`;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: CLIENT_NAME,
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: this.options.clientSecret ? "client_secret_basic" : "none",
      ...(this.options.scope ? { scope: this.options.scope } : {}),
    };
  }

  state(): string {
    this.lastState = randomBytes(24).toString("base64url");
    return this.lastState;
  }

  /**
   * auth() asks this before it reads the redirect URL: so the callback listens here, on the port
   * the client was registered with when it is free. A registration for another port is not used
   * (the flow registers again), as authorization servers match the redirect URL exactly.
   */
  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    await this.callback.listen(this.options.callbackPort ?? this.kept.port);
    if (this.options.clientId)
      return { client_id: this.options.clientId, ...(this.options.clientSecret ? { client_secret: this.options.clientSecret } : {}) };
    const client = this.kept.client;
    if (!client) return undefined;
    const uris = "redirect_uris" in client ? client.redirect_uris : undefined;
    return uris && !uris.includes(this.redirectUrl) && !this.kept.tokens?.refresh_token ? undefined : client;
  }

  saveClientInformation(client: OAuthClientInformationMixed): void {
    // A client given in the options is the user's to keep; only one registered here is stored.
    if (this.options.clientId) return;
    const port = Number(new URL(this.redirectUrl).port);
    this.keep({ client, ...(port ? { port } : {}) });
  }

  /**
   * The kept tokens. While a step-up is wanted, without the refresh token: auth() would refresh
   * instead of asking the user, and a refresh does not widen the scope.
   */
  tokens(): OAuthTokens | undefined {
    const tokens = this.kept.tokens;
    if (!tokens || this.stepUp === null) return tokens;
    const { refresh_token: _, ...rest } = tokens;
    return rest;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.stepUp = null;
    this.keep({ tokens });
    this.hooks.saved();
  }

  /** The server wants `scope` for a call (403 insufficient_scope): a step-up, unless the kept tokens have it all. */
  wants(scope: string): void {
    const granted = new Set((this.kept.tokens?.scope ?? "").split(" "));
    if (scope.split(" ").some((s) => s && !granted.has(s))) this.stepUp = scope;
  }

  /** Whether the next sign-in is a step-up a call waits for. */
  get steppingUp(): boolean {
    return this.stepUp !== null;
  }

  redirectToAuthorization(url: URL): void {
    this.hooks.redirect(url, this.lastState ?? url.searchParams.get("state") ?? "");
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (this.verifier === null) throw new Error("no sign-in was started");
    return this.verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }

  /** auth() asks this first, each time it runs. */
  discoveryState(): OAuthDiscoveryState | undefined {
    this.hooks.asked();
    return this.discovery;
  }

  /** The server said what was kept is no longer good: it is forgotten (the file too, for `all`). */
  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    switch (scope) {
      case "all":
        this.forget();
        return;
      case "client":
      case "tokens": {
        const { [scope]: _, ...rest } = this.kept;
        this.stored = rest;
        this.file.write(rest);
        return;
      }
      case "verifier":
        this.verifier = null;
        return;
      case "discovery":
        this.discovery = undefined;
        return;
    }
  }

  /** Signed out: nothing is kept, in memory or in the file. */
  forget(): void {
    this.stored = { url: this.url };
    this.stepUp = null;
    this.verifier = null;
    this.discovery = undefined;
    this.file.remove();
  }
}
