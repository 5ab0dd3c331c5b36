/**
 * A local HTTP mock of the Anthropic Messages API. It speaks the same SSE event stream, replies
 * from a per-test script, can hold a stream open at a chosen step until the test releases it,
 * injects HTTP errors (with any headers) and dropped or reset connections, and records (and checks) every request body.
 * A thread's title request (node/providers/title.ts, told by its system prompt) is kept apart, in
 * `titleRequests`, and answered from its own script (`title`): it never takes a reply scripted for
 * a thread, nor counts among `requests`, whenever it comes.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type Anthropic from "@anthropic-ai/sdk";
import { TITLE_SYSTEM_PROMPT } from "../../node/providers/title.ts";
import { checkRequest } from "./api-rules.ts";
import { type Reply, textReply } from "./script.ts";

type Json = Record<string, unknown>;

type Recorded = {
  readonly headers: IncomingMessage["headers"];
  readonly violations: string[];
};

/**
 * A request as it arrived, its body typed as the SDK's request: tine sends plain Messages API
 * requests; the Claude Code CLI sends beta ones (`?beta=true`), told apart by `beta`.
 */
export type RecordedRequest =
  | (Recorded & { readonly beta: false; readonly body: Anthropic.Messages.MessageCreateParams })
  | (Recorded & { readonly beta: true; readonly body: Anthropic.Beta.Messages.MessageCreateParams });

type Deferred = { promise: Promise<void>; resolve: () => void };
function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

export class MockAnthropic {
  readonly requests: RecordedRequest[] = [];
  /** Title requests, apart from `requests`. */
  readonly titleRequests: RecordedRequest[] = [];
  private readonly queue: Reply[] = [];
  private readonly titles: Reply[] = [];
  private titleFallback: ((req: RecordedRequest) => Reply) | null = null;
  private fallback: ((req: RecordedRequest) => Reply) | null = null;
  private readonly holds = new Map<string, { reached: Deferred; released: Deferred }>();
  private readonly requestWaiters: { count: number; resolve: () => void }[] = [];
  private readonly sockets = new Set<import("node:net").Socket>();
  private server: Server;
  url = "";

  private constructor() {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.on("connection", (s) => {
      this.sockets.add(s);
      s.on("close", () => this.sockets.delete(s));
    });
  }

  static async start(port = 0): Promise<MockAnthropic> {
    const mock = new MockAnthropic();
    await new Promise<void>((resolve) => mock.server.listen(port, "127.0.0.1", resolve));
    mock.url = `http://127.0.0.1:${(mock.server.address() as AddressInfo).port}`;
    return mock;
  }

  /** Replies are used in order, one per request. */
  reply(...replies: Reply[]): this {
    this.queue.push(...replies);
    return this;
  }

  /** Answers the next title request with `title` (or that reply). Unscripted, one fails (not retried): the thread keeps its title. */
  title(title: string | Reply): this {
    this.titles.push(typeof title === "string" ? textReply(title) : title);
    return this;
  }

  /** Answers title requests when none is scripted (the demo). */
  otherwiseTitle(fallback: (req: RecordedRequest) => Reply): this {
    this.titleFallback = fallback;
    return this;
  }

  /** Used when the queue is empty. */
  otherwise(fallback: (req: RecordedRequest) => Reply): this {
    this.fallback = fallback;
    return this;
  }

  private hold(name: string) {
    let h = this.holds.get(name);
    if (!h) {
      h = { reached: deferred(), released: deferred() };
      this.holds.set(name, h);
    }
    return h;
  }

  reached(name: string): Promise<void> {
    return this.hold(name).reached.promise;
  }

  release(name: string): void {
    this.hold(name).released.resolve();
  }

  /** Resolves once `count` requests have arrived in all. */
  waitForRequests(count: number): Promise<RecordedRequest[]> {
    if (this.requests.length >= count) return Promise.resolve(this.requests.slice());
    return new Promise((resolve) => this.requestWaiters.push({ count, resolve: () => resolve(this.requests.slice()) }));
  }

  /** Every problem the API-rules checker found in any request so far. */
  violations(): string[] {
    return [
      ...this.requests.flatMap((r, i) => r.violations.map((v) => `request ${i}: ${v}`)),
      ...this.titleRequests.flatMap((r, i) => r.violations.map((v) => `title request ${i}: ${v}`)),
    ];
  }

  async close(): Promise<void> {
    for (const h of this.holds.values()) h.released.resolve();
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.method !== "POST" || !req.url?.startsWith("/v1/messages")) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: req.url } }));
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Json;
    const beta = req.url.includes("beta=true");
    const violations = checkRequest(body, { beta });
    // The body is what the client sent; checkRequest has just checked it against the API's rules.
    const recorded: RecordedRequest = beta
      ? { beta, body: body as unknown as Anthropic.Beta.Messages.MessageCreateParams, headers: req.headers, violations }
      : { beta, body: body as unknown as Anthropic.Messages.MessageCreateParams, headers: req.headers, violations };
    if (!beta && body["system"] === TITLE_SYSTEM_PROMPT) {
      this.titleRequests.push(recorded);
      await this.answer(
        req,
        res,
        this.titles.shift() ??
          this.titleFallback?.(recorded) ??
          errorReply(500, "api_error", "mock: no title scripted", { "x-should-retry": "false" }),
      );
      return;
    }
    this.requests.push(recorded);
    for (const w of this.requestWaiters.filter((w) => this.requests.length >= w.count)) {
      this.requestWaiters.splice(this.requestWaiters.indexOf(w), 1);
      w.resolve();
    }
    // Not to be retried: a test that did not script a reply fails at once, with this message.
    const reply =
      this.queue.shift() ??
      this.fallback?.(recorded) ??
      errorReply(500, "api_error", "mock: no reply scripted", { "x-should-retry": "false" });
    await this.answer(req, res, reply);
  }

  private async answer(req: IncomingMessage, res: ServerResponse, reply: Reply): Promise<void> {
    switch (reply.kind) {
      case "drop":
        req.socket.destroy();
        return;
      case "reset":
        req.socket.resetAndDestroy();
        return;
      case "http-error":
        res.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
        res.end(JSON.stringify({ type: "error", error: { type: reply.errorType, message: reply.message } }));
        return;
      case "stream":
        res.writeHead(200, {
          "content-type": "text/event-stream",
          "cache-control": "no-cache",
          "request-id": `req_${this.requests.length}`,
        });
        res.flushHeaders();
        for (const step of reply.steps) {
          if ("hold" in step) {
            const h = this.hold(step.hold);
            h.reached.resolve();
            await h.released.promise;
          } else if ("drop" in step) {
            res.socket?.destroy();
            return;
          } else if ("pause" in step) {
            await new Promise((resolve) => setTimeout(resolve, step.pause));
          } else {
            if (res.destroyed) return;
            res.write(`event: ${String(step.event["type"])}\ndata: ${JSON.stringify(step.event)}\n\n`);
          }
        }
        res.end();
    }
  }
}

export function errorReply(status: number, errorType: string, message: string, headers?: Record<string, string>): Reply {
  return { kind: "http-error", status, errorType, message, headers };
}
