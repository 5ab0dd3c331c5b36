/**
 * Where the browser comes back after the user signs in: a server on 127.0.0.1 (a free port, or the
 * one the client was registered with), at /callback. It answers only the sign-in it waits for (its
 * `state`): another is refused and the wait goes on. Once answered it closes. It never keeps a
 * reference to the process (a host that exits does not wait for it).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";

/** What the browser brought back. */
export type CallbackResult = { readonly type: "code"; readonly code: string } | { readonly type: "refused"; readonly error: string };

export const CALLBACK_PATH = "/callback";

const page = (title: string, text: string) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><body style="font-family:sans-serif;margin:3em"><h1>${title}</h1><p>${text}</p></body>`;

/** Only what a page may show of a server's text: no markup. */
const plain = (text: string) => text.replace(/[<>&"']/g, " ").slice(0, 300);

type Waiting = { readonly state: string; readonly resolve: (result: CallbackResult) => void };

export class CallbackServer {
  private server: Server | null = null;
  private port: number | null = null;
  private waiting: Waiting | null = null;

  constructor(private readonly serverName: string) {}

  /** The redirect URL the authorization server is given (the server listens once `listen` resolved). */
  get url(): string | null {
    return this.port === null ? null : `http://127.0.0.1:${this.port}${CALLBACK_PATH}`;
  }

  /** Listening (on `preferred` when it is free, else on any free port); its port. */
  async listen(preferred?: number): Promise<number> {
    if (this.server && this.port !== null) return this.port;
    const tryPort = (port: number) =>
      new Promise<Server>((resolve, reject) => {
        const server = createServer((req, res) => this.answer(req, res));
        server.once("error", reject);
        server.listen(port, "127.0.0.1", () => resolve(server));
      });
    let server: Server;
    try {
      server = await tryPort(preferred ?? 0);
    } catch (error) {
      if (preferred === undefined) throw error;
      server = await tryPort(0);
    }
    server.unref();
    this.server = server;
    this.port = (server.address() as { port: number }).port;
    return this.port;
  }

  /** The browser's answer to the sign-in sent with `state`; `signal` gives up waiting (and closes). */
  wait(state: string, signal: AbortSignal): Promise<CallbackResult> {
    return new Promise((resolve, reject) => {
      const done = () => {
        this.waiting = null;
        this.close();
      };
      signal.addEventListener("abort", () => {
        done();
        reject(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)));
      });
      this.waiting = {
        state,
        resolve: (result) => {
          done();
          resolve(result);
        },
      };
    });
  }

  private answer(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const send = (status: number, title: string, text: string) => {
      // One answer per connection: a kept-alive one would reach this server after it closed.
      res.writeHead(status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", connection: "close" });
      res.end(page(title, text));
    };
    if (url.pathname !== CALLBACK_PATH || req.method !== "GET") {
      send(404, "Not found", "tine waits for a sign-in at /callback only.");
      return;
    }
    const waiting = this.waiting;
    const state = url.searchParams.get("state");
    if (!waiting || state !== waiting.state) {
      send(400, "Not this sign-in", "tine is not waiting for this sign-in (its state does not match). Start it again from :Tine mcp.");
      return;
    }
    const code = url.searchParams.get("code");
    const error = url.searchParams.get("error");
    if (error !== null || !code) {
      const why = [error ?? "no code was given", url.searchParams.get("error_description")].filter(Boolean).join(": ");
      send(200, "Sign-in refused", `The sign-in to ${plain(this.serverName)} did not go through (${plain(why)}). You can close this tab.`);
      waiting.resolve({ type: "refused", error: why });
      return;
    }
    send(200, "Signed in", `You are signed in to ${plain(this.serverName)}. You can close this tab and go back to Neovim.`);
    waiting.resolve({ type: "code", code });
  }

  close(): void {
    // A response being written ends first; idle keep-alive connections go now.
    this.server?.close();
    this.server?.closeIdleConnections();
    this.server = null;
    this.port = null;
  }
}
