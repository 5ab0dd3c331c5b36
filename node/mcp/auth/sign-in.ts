/**
 * One remote server's sign-in: its state as `:Tine mcp` shows it, the SDK's OAuth client for its
 * transport (provider.ts), and the wait for the user's browser. When the server first asks for a
 * sign-in in a session, the page is opened (through the user's opener) and a start or call waits
 * for the callback; after that, or after a sign-out, it is opened again only when the user signs
 * in from `:Tine mcp`, so a browser never opens over and over on its own.
 */
import { auth, extractWWWAuthenticateParams, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { boundedFetch } from "../bounded-fetch.ts";
import { CallbackServer } from "./callback.ts";
import { type OAuthOptions, TineOAuthProvider } from "./provider.ts";
import { SignInFile, signInFile } from "./token-store.ts";

export type SignInState =
  /** The server has not asked for a sign-in (no OAuth, or not yet). */
  | { readonly type: "not-asked" }
  | { readonly type: "signed-in" }
  | { readonly type: "needs-sign-in"; readonly why: string }
  | { readonly type: "signing-in" }
  | { readonly type: "error"; readonly error: string };

export type SignInDeps = {
  /** tine's data folder (`data_dir`): the sign-ins are kept under it. */
  readonly dataDir: string;
  /** Shows the user the page to sign in on (their opener, lua/tine/mcp.lua). */
  readonly openUrl: (server: string, url: string) => void;
  readonly notify: (level: "info" | "error", text: string) => void;
  /** How long the callback is waited for. */
  readonly waitMs: number;
};

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

export class ServerSignIn {
  readonly provider: TineOAuthProvider;
  private readonly callback: CallbackServer;
  private current: SignInState = { type: "not-asked" };
  /** Whether the page may be opened without the user asking (once a session, and after they ask). */
  private mayOpen = true;
  /** The sign-in going on: the callback's wait, then the token's exchange. */
  private going: { readonly done: Promise<void>; readonly abort: AbortController } | null = null;
  /** Whether auth() ran in the current attempt (the server asked): its failure is the sign-in's. */
  private asked = false;

  constructor(
    private readonly name: string,
    private readonly url: URL,
    options: OAuthOptions,
    private readonly deps: SignInDeps,
  ) {
    this.callback = new CallbackServer(name);
    const file = new SignInFile(signInFile(deps.dataDir, url.href), url.href);
    this.provider = new TineOAuthProvider(url.href, file, this.callback, options, {
      redirect: (page, state) => this.redirected(page, state),
      problem: (text) => deps.notify("error", `tine: MCP server ${name}: ${text}; sign in again`),
      saved: () => this.idle(),
      asked: () => {
        this.asked = true;
      },
    });
  }

  get state(): SignInState {
    return this.current;
  }

  /** Whether the server asked for a sign-in in the last attempt (so its failure is not the transport's). */
  get involved(): boolean {
    return this.asked;
  }

  /** Its state in words, for `:Tine mcp` and what the model reads. */
  describe(): string {
    const s = this.current;
    switch (s.type) {
      case "not-asked":
        return "";
      case "signed-in":
        return "signed in";
      case "needs-sign-in":
        return `needs sign-in (${s.why})`;
      case "signing-in":
        return "signing in: waiting for your browser";
      case "error":
        return `sign-in failed: ${s.error}`;
    }
  }

  /**
   * Runs `attempt` (a connection); when the server wants a sign-in, waits for it (the page was
   * opened) and runs it again. Throws, saying why, when the user is not signed in.
   */
  async connect<T>(attempt: () => Promise<T>): Promise<T> {
    this.asked = false;
    try {
      const connected = await this.again(async (retry) => {
        try {
          return await attempt();
        } catch (error) {
          if (retry || error instanceof UnauthorizedError) throw error;
          if (this.asked && this.current.type !== "needs-sign-in") this.current = { type: "error", error: errorText(error) };
          throw this.asked ? new Error(`sign-in failed: ${errorText(error)}`) : error;
        }
      });
      if (this.provider.hasTokens) this.current = { type: "signed-in" };
      return connected;
    } finally {
      this.idle();
    }
  }

  /**
   * `attempt(false)`; when the server refused it for want of a sign-in (its token refused and not
   * refreshed, or more scope wanted: UnauthorizedError), `attempt(true)` once the sign-in going on
   * is done. The sign-in's failure is thrown (`signedIn`); a second refusal is the attempt's to say.
   * A call stopped (`signal`) while it waits for the sign-in stops waiting; the sign-in goes on.
   */
  async again<T>(attempt: (retry: boolean) => Promise<T>, signal?: AbortSignal): Promise<T> {
    try {
      return await attempt(false);
    } catch (error) {
      if (!(error instanceof UnauthorizedError)) throw error;
    }
    await untilAborted(this.signedIn(), signal);
    return attempt(true);
  }

  /** The callback listens only while a sign-in waits for it (auth() opens it before it knows whether one will). */
  idle(): void {
    if (!this.going) this.callback.close();
  }

  /** `base`, hearing which scope the server wants when it refuses a call for want of one (step-up). */
  watchScopes(base: FetchLike): FetchLike {
    return async (url, init) => {
      const response = await base(url, init);
      if (response.status === 403) {
        const { error, scope } = extractWWWAuthenticateParams(response);
        if (error === "insufficient_scope" && scope) this.provider.wants(scope);
      }
      return response;
    };
  }

  /** After the server refused what was kept (UnauthorizedError): the sign-in going on, waited for; else why there is none. */
  async signedIn(): Promise<void> {
    if (!this.going) throw new Error(this.describe() || "needs sign-in");
    await this.going.done;
  }

  /** The user signs in from `:Tine mcp`: the page may be opened (the caller starts the server again). */
  allowOpening(): void {
    this.mayOpen = true;
    this.going?.abort.abort(new Error("a new sign-in was started"));
  }

  /** The user signs out: what was kept is removed, and the page is opened only when they sign in again. */
  signOut(): void {
    this.mayOpen = false;
    this.going?.abort.abort(new Error("you signed out"));
    this.provider.forget();
    this.current = { type: "needs-sign-in", why: "you signed out; sign in from :Tine mcp" };
  }

  /** auth() wants the user at `page`: opened when it may be, and the callback is waited for. */
  private redirected(page: URL, state: string): void {
    // The page comes from the server's metadata: only a web page is opened (never a file or a program's URL).
    if (page.protocol !== "https:" && page.protocol !== "http:") {
      this.current = { type: "error", error: `its authorization page is not a web page (${page.protocol})` };
      this.callback.close();
      return;
    }
    // A step-up is asked for by a call the user made: its page opens whenever.
    if (!this.mayOpen && !this.provider.steppingUp) {
      this.current = { type: "needs-sign-in", why: "sign in from :Tine mcp" };
      this.callback.close();
      return;
    }
    this.mayOpen = false;
    const abort = new AbortController();
    const timer = setTimeout(
      () => abort.abort(new Error(`no sign-in came back within ${Math.round(this.deps.waitMs / 60000)} min`)),
      this.deps.waitMs,
    );
    timer.unref();
    const done = this.complete(this.callback.wait(state, abort.signal)).finally(() => {
      clearTimeout(timer);
      if (this.going?.done === done) this.going = null;
    });
    // Whoever waits hears how it went; nobody waiting is no unhandled rejection.
    done.catch(() => {});
    this.going = { done, abort };
    this.current = { type: "signing-in" };
    this.deps.notify(
      "info",
      `tine: MCP server ${this.name} needs you to sign in: its sign-in page is opened (what needs the server waits)`,
    );
    this.deps.openUrl(this.name, page.href);
  }

  /** The browser's answer: a code is exchanged for tokens (kept in the file); a refusal or a time-out says why. */
  private async complete(wait: Promise<import("./callback.ts").CallbackResult>): Promise<void> {
    let result: Awaited<typeof wait>;
    try {
      result = await wait;
    } catch (error) {
      if (this.current.type === "signing-in") this.current = { type: "needs-sign-in", why: errorText(error) };
      throw new Error(`needs sign-in: ${errorText(error)}`);
    }
    if (result.type === "refused") {
      this.current = { type: "needs-sign-in", why: `the sign-in was refused: ${result.error}` };
      this.deps.notify("error", `tine: MCP server ${this.name}: the sign-in was refused (${result.error})`);
      throw new Error(`needs sign-in: the sign-in was refused (${result.error})`);
    }
    try {
      const outcome = await auth(this.provider, { serverUrl: this.url, authorizationCode: result.code, fetchFn: boundedFetch() });
      if (outcome !== "AUTHORIZED") throw new Error("the authorization server did not give a token");
    } catch (error) {
      this.current = { type: "error", error: `no token: ${errorText(error)}` };
      this.deps.notify("error", `tine: MCP server ${this.name}: the sign-in failed: ${errorText(error)}`);
      throw new Error(`sign-in failed: ${errorText(error)}`);
    }
    this.current = { type: "signed-in" };
    this.deps.notify("info", `tine: MCP server ${this.name}: signed in`);
  }

  close(): void {
    this.going?.abort.abort(new Error("stopped"));
    this.callback.close();
  }
}

/** `waiting`, or a rejection as soon as `signal` aborts (what it waits for goes on). */
function untilAborted<T>(waiting: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return waiting;
  if (signal.aborted) return Promise.reject(new Error("was stopped while it waited for the sign-in"));
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(new Error("was stopped while it waited for the sign-in"));
    signal.addEventListener("abort", stop, { once: true });
    waiting.then(resolve, reject).finally(() => signal.removeEventListener("abort", stop));
  });
}
