/**
 * One MCP server as the host holds it: its connection (a child process over stdio, or Streamable
 * HTTP with the SSE fallback), its state, the last lines of its stderr, and its tool calls with
 * their time limit and cancellation. It starts when first asked to (`ready`), and again after it
 * exited; the state says which. The SDK does the protocol.
 *
 * Over 300 lines: it is the one owner of a server's connection and its generation, which
 * starting, watching, calling and stopping all read and change, so they stay together.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { ToolOutcome } from "../tools/source.ts";
import { MAX_TIMER_MS, timerDelay } from "../util/timer.ts";
import type { ServerSignIn, SignInDeps } from "./auth/sign-in.ts";
import { CallClocks } from "./call-clocks.ts";
import { describeSpec, launchOf, type McpLaunch, type McpServerSpec } from "./config.ts";
import type { ElicitAnswer } from "./elicitations.ts";
import { MAX_MESSAGE_BYTES, RESULT_TOO_LARGE } from "./message-lines.ts";
import { toOutcome, tooLarge } from "./results.ts";
import { loadMcpSdk, type McpSdk } from "./sdk.ts";

/** Lines of a server's stderr kept for `:Tine mcp` (each cut to STDERR_LINE_CHARS). */
export const STDERR_LINES = 10;
const STDERR_LINE_CHARS = 400;

export type ServerState =
  | { readonly type: "stopped"; readonly why: "not started yet" | "stopped by you" }
  | { readonly type: "starting" }
  | { readonly type: "ready"; readonly tools: readonly Tool[] }
  /** It could not start, or it exited: it starts again on next use. */
  | { readonly type: "failed"; readonly error: string; readonly wasReady: boolean };

/** What the server tells the registry, for the user. */
export type ServerEvent =
  | { readonly type: "restarting"; readonly after: string }
  | { readonly type: "failed"; readonly error: string }
  | { readonly type: "tools-changed"; readonly added: readonly string[]; readonly removed: readonly string[] }
  /** About its sign-in (auth/sign-in.ts). */
  | { readonly type: "notice"; readonly level: "info" | "error"; readonly text: string };

export type ServerDeps = {
  /** The project folder: a stdio server's default cwd. */
  readonly root: string;
  /** Where `${VAR}` is read (Neovim's environment, which the host inherits). */
  readonly vars: Readonly<Record<string, string | undefined>>;
  /** What a project's file may not read of `vars` (they read as unset). */
  readonly denied: ReadonlySet<string>;
  /** The longest a start or a call may take (mcp_timeout). */
  readonly timeoutMs: number;
  readonly event: (event: ServerEvent) => void;
  /** The server asks the user (`elicitation/create`; `params` unchecked); `signal`: it withdrew the question. */
  readonly elicit: (params: unknown, signal: AbortSignal) => Promise<ElicitAnswer>;
  /** A remote server's sign-in: where it is kept, how its page is opened, how long it is waited for. */
  readonly signIn: Omit<SignInDeps, "notify">;
};

const CLIENT_INFO = { name: "tine.nvim", version: "0.1.0" };

/** A live connection: the generation tells a stale close from the current one's. */
type Live = {
  readonly client: Client;
  readonly transport: Transport;
  readonly generation: number;
  /**
   * Its tools, listed as it connected: a remote server may ask for a sign-in only once its tools
   * are asked for (not at `initialize`), and that sign-in is waited for as a start's is.
   */
  readonly tools: Tool[];
};

export class McpServer {
  private current: ServerState = { type: "stopped", why: "not started yet" };
  private live: Live | null = null;
  private starting: Promise<void> | null = null;
  private generation = 0;
  private readonly stderrLines: string[] = [];
  /** The pid of a stdio server's process, while it runs (stopped with the host). */
  private pid: number | null = null;
  /** A Streamable HTTP server's sign-in, made at its first start. */
  private signInOf: ServerSignIn | null = null;
  /** Its calls' mcp_timeout, standing still while its question waits for the user. */
  private readonly clocks = new CallClocks();

  constructor(
    readonly spec: McpServerSpec,
    private readonly deps: ServerDeps,
  ) {}

  get name(): string {
    return this.spec.name;
  }

  get state(): ServerState {
    return this.current;
  }

  /** Its last lines of stderr (stdio servers), oldest first. */
  get stderr(): readonly string[] {
    return this.stderrLines;
  }

  /** Its sign-in, once it has been started over Streamable HTTP. */
  get signIn(): ServerSignIn | null {
    return this.signInOf;
  }

  /** How it is started, as configured (no variable resolved). */
  get where(): string {
    return describeSpec(this.spec);
  }

  /**
   * Started (once, however many ask at the same time); the state says how it went. One the user
   * stopped stays stopped until they restart it.
   */
  ready(): Promise<void> {
    if (this.current.type === "ready" || (this.current.type === "stopped" && this.current.why === "stopped by you"))
      return Promise.resolve();
    this.starting ??= this.start().finally(() => {
      this.starting = null;
    });
    return this.starting;
  }

  private async start(): Promise<void> {
    const before = this.current;
    if (before.type === "failed" && before.wasReady) this.deps.event({ type: "restarting", after: before.error });
    this.current = { type: "starting" };
    const generation = ++this.generation;
    this.stderrLines.length = 0;
    try {
      const sdk = await loadMcpSdk();
      const launch = launchOf(this.spec, this.deps.root, this.deps.vars, this.deps.denied);
      const live = await this.connect(sdk, launch, generation);
      if (generation !== this.generation) {
        void live.client.close();
        return;
      }
      this.live = live;
      this.current = { type: "ready", tools: live.tools };
    } catch (error) {
      if (generation !== this.generation) return;
      const message = error instanceof Error ? error.message : String(error);
      void this.live?.client.close();
      this.live = null;
      this.current = { type: "failed", error: message, wasReady: false };
      this.deps.event({ type: "failed", error: message });
    }
  }

  /** Connects by the launch's transport; an HTTP server that refuses Streamable HTTP is tried over SSE. */
  private async connect(sdk: McpSdk, launch: McpLaunch, generation: number): Promise<Live> {
    const options = { timeout: timerDelay(this.deps.timeoutMs) };
    if (launch.kind === "stdio") {
      const transport = new sdk.StdioTransport(launch, (text) => this.keepStderr(text));
      const client = this.client(sdk, generation);
      this.watch(transport, generation);
      const live = await this.opened(client, transport, generation, options);
      this.pid = transport.pid;
      return live;
    }
    const requestInit = { headers: launch.headers };
    if (!launch.sse) {
      this.signInOf ??= new sdk.ServerSignIn(this.name, launch.url, launch.oauth, {
        ...this.deps.signIn,
        notify: (level, text) => this.deps.event({ type: "notice", level, text }),
      });
      const signIn = this.signInOf;
      try {
        // A server that asks for a sign-in is connected to again once the user signed in.
        return await signIn.connect(async () => {
          const authProvider = signIn.provider;
          const transport = new sdk.StreamableHTTPClientTransport(launch.url, {
            requestInit,
            fetch: signIn.watchScopes(sdk.boundedFetch()),
            authProvider,
          });
          const live = await this.opened(this.client(sdk, generation), transport, generation, options);
          this.watch(transport, generation);
          return live;
        });
      } catch (error) {
        if (signIn.involved) throw error;
        // The older HTTP+SSE transport, as the SDK's clients fall back to it.
        try {
          return await this.connectSse(sdk, launch, generation);
        } catch (sseError) {
          throw new Error(`Streamable HTTP: ${(error as Error).message}; SSE: ${(sseError as Error).message}`);
        }
      }
    }
    return this.connectSse(sdk, launch, generation);
  }

  private async connectSse(sdk: McpSdk, launch: Extract<McpLaunch, { kind: "http" }>, generation: number): Promise<Live> {
    const transport = new sdk.SSEClientTransport(launch.url, { requestInit: { headers: launch.headers }, fetch: sdk.boundedFetch() });
    const live = await this.opened(this.client(sdk, generation), transport, generation, { timeout: timerDelay(this.deps.timeoutMs) });
    this.watch(transport, generation);
    return live;
  }

  /** `client` connected over `transport`, its tools listed; closed again when either fails. */
  private async opened(client: Client, transport: Transport, generation: number, options: { timeout: number }): Promise<Live> {
    try {
      await client.connect(transport, options);
      return { client, transport, generation, tools: await this.listTools(client) };
    } catch (error) {
      void client.close();
      throw error;
    }
  }

  private client(sdk: McpSdk, generation: number): Client {
    const client = new sdk.Client(CLIENT_INFO, {
      // Form mode only: URL mode (the SDK has it) would open a server's page in the browser.
      capabilities: { elicitation: { form: {} } },
      listChanged: {
        tools: { onChanged: (error, tools) => !error && tools && this.toolsChanged(tools, generation) },
      },
    });
    // Not setRequestHandler: the SDK would refuse a malformed form itself, unseen; elicit-form.ts
    // reads it and the user is told. Any other method is still unknown.
    client.fallbackRequestHandler = async (request, extra) => {
      if (request.method !== "elicitation/create") throw new sdk.McpError(sdk.ErrorCode.MethodNotFound, "Method not found");
      this.clocks.questionOpened();
      try {
        return await this.deps.elicit(request.params, extra.signal);
      } finally {
        this.clocks.questionClosed();
      }
    };
    return client;
  }

  /** The connection closed: a server that exited (or dropped) is started again on next use. */
  private watch(transport: Transport, generation: number): void {
    const closed = transport.onclose;
    // The state first: the calls the SDK then fails read it to say the server exited.
    transport.onclose = () => {
      if (generation === this.generation) {
        this.live = null;
        this.pid = null;
        const last = this.stderrLines.at(-1);
        const error = `exited${last ? ` (its stderr ends: ${last})` : ""}`;
        if (this.current.type === "ready") this.current = { type: "failed", error, wasReady: true };
      }
      closed?.();
    };
  }

  private keepStderr(text: string): void {
    for (const line of text.split(/\r?\n/)) {
      if (!line.trim()) continue;
      this.stderrLines.push(line.length > STDERR_LINE_CHARS ? `${line.slice(0, STDERR_LINE_CHARS)}…` : line);
    }
    if (this.stderrLines.length > STDERR_LINES) this.stderrLines.splice(0, this.stderrLines.length - STDERR_LINES);
  }

  private async listTools(client: Client): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, { timeout: timerDelay(this.deps.timeoutMs) });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  }

  private toolsChanged(tools: readonly Tool[], generation: number): void {
    if (generation !== this.generation || this.current.type !== "ready") return;
    const before = new Set(this.current.tools.map((t) => t.name));
    const after = new Set(tools.map((t) => t.name));
    this.current = { type: "ready", tools };
    this.deps.event({
      type: "tools-changed",
      added: [...after].filter((n) => !before.has(n)),
      removed: [...before].filter((n) => !after.has(n)),
    });
  }

  /**
   * Calls `tool`, starting the server first when it is not running. Past the time limit, or when
   * `signal` aborts, the call is cancelled through the protocol (the SDK sends
   * notifications/cancelled) and answered so.
   */
  async call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolOutcome> {
    await this.ready();
    const signIn = this.signInOf;
    if (!signIn) return this.callOnce(tool, args, signal, true);
    return signIn
      .again((retry) => this.callOnce(tool, args, signal, retry), signal)
      .catch((why: Error) => ({ text: `The MCP server ${this.name} ${why.message}`, isError: true }));
  }

  /**
   * One try of `call`, on the server as it is now. A refusal for want of a sign-in is thrown
   * (the sign-in's to answer) unless `last`.
   */
  private async callOnce(tool: string, args: Record<string, unknown>, signal: AbortSignal, last: boolean): Promise<ToolOutcome> {
    // Again: after a sign-in, the server may have exited meanwhile.
    await this.ready();
    const live = this.live;
    if (this.current.type !== "ready" || !live)
      return { text: `The MCP server ${this.name} is not running: ${this.describe()}`, isError: true };
    const sdk = await loadMcpSdk();
    // tine's own clock, not the SDK's: it stands still while the server's question waits for the user.
    const timedOut = new AbortController();
    const clock = this.clocks.start(this.deps.timeoutMs, () => timedOut.abort());
    try {
      const result = await live.client.callTool({ name: tool, arguments: args }, sdk.CallToolResultSchema, {
        signal: AbortSignal.any([signal, timedOut.signal]),
        timeout: MAX_TIMER_MS,
      });
      // A server of the protocol's first version may answer in its old shape.
      return "toolResult" in result ? { text: JSON.stringify(result.toolResult), isError: false } : toOutcome(result);
    } catch (error) {
      if (signal.aborted) return { text: "[aborted: the call was cancelled]", isError: true };
      if (timedOut.signal.aborted)
        return {
          text: `[timed out: no result after ${Math.round(this.deps.timeoutMs / 1000)} s (mcp_timeout), so the call was cancelled]`,
          isError: true,
        };
      if (error instanceof sdk.UnauthorizedError && !last) throw error;
      const data =
        error instanceof sdk.McpError && error.code === RESULT_TOO_LARGE ? (error.data as { bytes?: unknown; cut?: unknown }) : undefined;
      // `cut`: an HTTP server's answer, read up to the bound and no further (bounded-fetch.ts).
      if (typeof data?.bytes === "number") return tooLarge(data.bytes, MAX_MESSAGE_BYTES, data.cut === true);
      // Read again: the connection may have closed while the call ran.
      const now = this.state;
      if (now.type === "failed")
        return { text: `The MCP server ${this.name} ${now.error} during the call; it starts again on its next use`, isError: true };
      if (live.generation !== this.generation) return { text: `The MCP server ${this.name} was stopped during the call`, isError: true };
      return { text: error instanceof Error ? error.message : String(error), isError: true };
    } finally {
      clock.stop();
    }
  }

  /** Its state in words (`:Tine mcp`, errors the model reads). */
  describe(): string {
    const s = this.current;
    switch (s.type) {
      case "stopped":
        return s.why;
      case "starting":
        return this.signInOf?.state.type === "signing-in" ? "waiting for you to sign in (in your browser)" : "starting";
      case "ready":
        return `ready with ${s.tools.length} tool${s.tools.length === 1 ? "" : "s"}`;
      case "failed":
        return `failed: ${s.error}`;
    }
  }

  /** Stopped by the user: it stays stopped until `restart`. */
  async stop(): Promise<void> {
    const live = this.live;
    this.generation++;
    this.live = null;
    this.pid = null;
    this.starting = null;
    this.current = { type: "stopped", why: "stopped by you" };
    this.signInOf?.close();
    await live?.client.close().catch(() => {});
  }

  /** Stopped and started again (`:Tine mcp`). */
  async restart(): Promise<void> {
    const closing = this.stop();
    this.current = { type: "stopped", why: "not started yet" };
    const started = this.ready();
    await closing;
    await started;
  }

  /** The host exits: a stdio server's process is ended now (nothing asynchronous runs any more). */
  killNow(): void {
    if (this.pid === null) return;
    try {
      process.kill(this.pid, "SIGTERM");
    } catch {
      // already gone
    }
    this.pid = null;
  }
}
