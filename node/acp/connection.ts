/**
 * One agent process and the ACP connection over its stdio, through the SDK (`client()` and
 * `ndJsonStream`; the fork is on the SDK's unstable entry point). It starts the agent, says
 * `initialize` with what tine serves (text file reads and writes, per session, through the
 * session's AcpFiles; no terminal: tine has none to lend an agent yet), and gives its caller
 * sessions, prompts, cancel, resume/load/fork where the agent can, and what the agent sends
 * (`session/update`, `session/request_permission`) as typed events. Whatever the agent does
 * (not installed, fails initialize, exits mid-turn, writes noise, never answers), the caller gets
 * an AcpError, never a crash, and the agent's process group is stopped.
 */
import { Readable, Writable } from "node:stream";
import type {
  ClientConnection,
  InitializeResponse,
  McpServer,
  NewSessionResponse,
  PromptResponse,
  SessionConfigOption,
  SessionUpdate,
} from "@agentclientprotocol/sdk/unstable";
import { type AcpSdk, loadAcpSdk } from "./acp-sdk.ts";
import { AgentProcess } from "./agent-process.ts";
import type { AcpLaunch } from "./agents.ts";
import { AcpError, sayEnd, withTail } from "./errors.ts";
import { takeCheckedUpdates } from "./fast-updates.ts";
import type { AcpFiles } from "./files.ts";
import { PendingPermission } from "./permissions.ts";
import { type PromptPart, promptBlocks } from "./prompt-blocks.ts";
import { SdkUpdates } from "./sdk-updates.ts";
import { messageLines } from "./stdout-lines.ts";
import { type AgentSummary, summaryOf } from "./summary.ts";

/** What the agent sends its client, for the caller. */
export type AcpEvent =
  | { readonly kind: "update"; readonly sessionId: string; readonly update: SessionUpdate }
  /** Waits for the caller's answer (`select`, `cancel`); never answered by tine itself. */
  | { readonly kind: "permission"; readonly permission: PendingPermission }
  /** A line on stdout that is not a message: dropped (and logged). */
  | { readonly kind: "noise"; readonly line: string }
  /** The agent's process ended; `error` is null when tine closed it. */
  | { readonly kind: "ended"; readonly error: AcpError | null };

export type AcpOptions = {
  readonly onEvent: (event: AcpEvent) => void;
  /** How long `initialize` may take (the agent's start included). */
  readonly initializeTimeoutMs?: number;
  /** How long a request other than a prompt may take (a prompt runs until the turn ends or is cancelled). */
  readonly requestTimeoutMs?: number;
};

/** A session the agent made (new, forked) or took up (resumed, loaded). */
export type AcpSession = { readonly sessionId: string; readonly response: Omit<NewSessionResponse, "sessionId"> };

const DEFAULT_INITIALIZE_TIMEOUT_MS = 30_000;
const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** After the connection closed, how long the process may take to be seen exiting before the error is worded without it. */
const EXIT_NOTICE_MS = 2000;

export class AcpConnection {
  private readonly files = new Map<string, AcpFiles>();
  private readonly permissions = new Set<PendingPermission>();
  private closing = false;

  private constructor(
    /** The configured name (messages say it); the launch itself, its resolved env included, stays with the process. */
    readonly name: string,
    private readonly process: AgentProcess,
    private readonly connection: ClientConnection,
    private readonly options: AcpOptions,
    readonly summary: AgentSummary,
    private readonly sdk: AcpSdk,
  ) {}

  /** Starts agent `launch` and initializes it; rejects with an AcpError (its process stopped) when it cannot. */
  static async start(launch: AcpLaunch, options: AcpOptions): Promise<AcpConnection> {
    const sdk = await loadAcpSdk();
    const { client, ndJsonStream, PROTOCOL_VERSION, RequestError } = sdk;
    const agent = new AgentProcess(launch);
    const started = await new Promise<boolean>((resolve) => {
      agent.child.once("spawn", () => resolve(true));
      void agent.ended.then(() => resolve(false));
    });
    if (!started) {
      const why = agent.startError?.code === "ENOENT" ? "was not found" : `could not be run (${agent.startError?.message ?? "it exited"})`;
      throw new AcpError(
        "not-installed",
        `tine: ACP agent "${launch.name}": \`${launch.program}\` ${why}: install it, or set acp_agents.${launch.name}.command`,
      );
    }
    let self: AcpConnection | null = null;
    const filesFor = (me: AcpConnection | null, sessionId: string) => {
      if (!me) throw RequestError.invalidParams({ sessionId }, "tine serves files only once the agent is initialized");
      return me.filesFor(sessionId);
    };
    const pending: AcpEvent[] = [];
    const emit = (event: AcpEvent): void => {
      if (self) options.onEvent(event);
      else pending.push(event);
    };
    const sdkUpdates = new SdkUpdates();
    const app = client({ name: "tine" })
      .onRequest("session/request_permission", ({ params, signal }) => {
        const permission = new PendingPermission(params, signal);
        self?.permissions.add(permission);
        void permission.answer.then(() => self?.permissions.delete(permission));
        emit({ kind: "permission", permission });
        return permission.answer.then((outcome) => ({ outcome }));
      })
      .onRequest("fs/read_text_file", async ({ params }) => ({
        content: await filesFor(self, params.sessionId).readTextFile(params.path, params.line ?? null, params.limit ?? null),
      }))
      .onRequest("fs/write_text_file", async ({ params }) => {
        await filesFor(self, params.sessionId).writeTextFile(params.path, params.content);
        return {};
      })
      .onNotification("session/update", ({ params }) => {
        sdkUpdates.handled();
        emit({ kind: "update", sessionId: params.sessionId, update: params.update });
      })
      // Extension notifications (`_auth/status_update`, …) are not tine's business.
      .onNotification("*", () => {});
    const stdout = (Readable.toWeb(agent.child.stdout) as ReadableStream<Uint8Array>)
      // Less noise, and less the text chunks and tool calls, which skip the SDK's schema check (fast-updates.ts: checked by hand, in order).
      .pipeThrough(
        messageLines(
          (line) => emit({ kind: "noise", line }),
          takeCheckedUpdates({
            waiting: () => sdkUpdates.waiting(),
            update: (sessionId, update) => emit({ kind: "update", sessionId, update }),
            passed: (message) => sdkUpdates.passed(message),
          }),
        ),
      );
    const messages = ndJsonStream(Writable.toWeb(agent.child.stdin) as WritableStream<Uint8Array>, stdout);
    const connection = app.connect({ writable: messages.writable, readable: sdkUpdates.reading(messages.readable) });
    const timeout = options.initializeTimeoutMs ?? DEFAULT_INITIALIZE_TIMEOUT_MS;
    let answer: InitializeResponse;
    try {
      answer = await within(
        connection.agent.request("initialize", {
          protocolVersion: PROTOCOL_VERSION,
          // Notices: the agent's own words (a model fallback, a billing note) come apart from the model's reply, shown in the banner.
          clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false, session: { notices: {} } },
          clientInfo: { name: "tine.nvim", version: "0" },
        }),
        timeout,
        () => new AcpError("timed-out", `tine: ACP agent "${launch.name}" did not answer initialize within ${timeout / 1000} s`),
      );
    } catch (error) {
      connection.close();
      await agent.stop();
      if (error instanceof AcpError) throw error;
      const detail = agent.end ? `it ${sayEnd(agent.end)}` : describe(error);
      throw new AcpError(
        "initialize-failed",
        `tine: ACP agent "${launch.name}" failed to initialize: ${detail}${withTail(agent.stderrTail())}`,
      );
    }
    self = new AcpConnection(launch.name, agent, connection, options, summaryOf(launch.name, answer), sdk);
    const me = self;
    void agent.ended.then((end) => {
      connection.close();
      for (const p of me.permissions) p.cancel();
      options.onEvent({
        kind: "ended",
        error: me.closing ? null : new AcpError("exited", `tine: ACP agent "${launch.name}" ${sayEnd(end)}${withTail(agent.stderrTail())}`),
      });
    });
    for (const event of pending) options.onEvent(event);
    return self;
  }

  get pid(): number | undefined {
    return this.process.pid;
  }

  /** `session/new` in `cwd` (absolute) with these MCP servers; the session's files are served through `files`. */
  async newSession(cwd: string, mcpServers: McpServer[], files: AcpFiles): Promise<AcpSession> {
    const { sessionId, ...response } = await this.call("session/new", this.connection.agent.request("session/new", { cwd, mcpServers }));
    this.files.set(sessionId, files);
    return { sessionId, response };
  }

  /**
   * One prompt turn: resolves when it ends (its stopReason "cancelled" after `cancel`). Each part
   * goes as the agent's promptCapabilities allow (promptBlocks).
   */
  prompt(sessionId: string, parts: readonly PromptPart[]): Promise<PromptResponse> {
    const prompt = promptBlocks(parts, this.summary.prompt);
    return this.call("session/prompt", this.connection.agent.request("session/prompt", { sessionId, prompt }), null);
  }

  /** `session/set_mode`: one of the modes the session's answer listed (`response.modes`). */
  async setMode(sessionId: string, modeId: string): Promise<void> {
    await this.call("session/set_mode", this.connection.agent.request("session/set_mode", { sessionId, modeId }));
  }

  /** `session/set_config_option`: one of the values a select option offered; the agent's options as they are then. */
  async setConfigOption(sessionId: string, configId: string, value: string): Promise<SessionConfigOption[]> {
    const req = this.connection.agent.request("session/set_config_option", { sessionId, configId, value });
    return (await this.call("session/set_config_option", req)).configOptions;
  }

  /** `session/cancel`: the turn ends with "cancelled"; its pending permissions are answered "cancelled" first, as the spec says. */
  async cancel(sessionId: string): Promise<void> {
    // The cancel goes out ahead of the permissions' answers (the SDK writes in order): an agent that
    // reads a "cancelled" answer before it knows the turn is cancelled takes it as a refusal and goes on.
    const sent = this.connection.agent.notify("session/cancel", { sessionId }).catch(() => {});
    for (const p of this.permissions) if (p.sessionId === sessionId) p.cancel();
    await sent;
  }

  /** `session/resume` (no history replayed); only when the agent says it can (summary.resume). */
  async resumeSession(sessionId: string, cwd: string, mcpServers: McpServer[], files: AcpFiles): Promise<AcpSession> {
    this.files.set(sessionId, files);
    const response = await this.call("session/resume", this.connection.agent.request("session/resume", { sessionId, cwd, mcpServers }));
    return { sessionId, response };
  }

  /** `session/load`: the agent replays the conversation as updates before it answers; only when summary.load. */
  async loadSession(sessionId: string, cwd: string, mcpServers: McpServer[], files: AcpFiles): Promise<AcpSession> {
    this.files.set(sessionId, files);
    const response = await this.call("session/load", this.connection.agent.request("session/load", { sessionId, cwd, mcpServers }));
    return { sessionId, response: response ?? {} };
  }

  /**
   * `session/fork` (unstable): a new session with the source's conversation, up to the agent
   * message `atMessageId` (the Claude and Codex adapters' `_meta.jetbrains.air.fork`) or whole.
   * The Claude adapter's fork takes a prompt only once resumed (`resumeSession`).
   */
  async forkSession(sessionId: string, cwd: string, mcpServers: McpServer[], files: AcpFiles, atMessageId?: string): Promise<AcpSession> {
    const _meta = atMessageId === undefined ? undefined : { jetbrains: { air: { fork: { version: 1, messageId: atMessageId } } } };
    const { sessionId: forkId, ...response } = await this.call(
      "session/fork",
      this.connection.agent.request("session/fork", { sessionId, cwd, mcpServers, ...(_meta ? { _meta } : {}) }),
    );
    this.files.set(forkId, files);
    return { sessionId: forkId, response };
  }

  /** Stops the agent and everything it started; pending requests reject with a "closed" AcpError. */
  async close(): Promise<void> {
    this.closing = true;
    for (const p of this.permissions) p.cancel();
    this.connection.close();
    await this.process.stop();
  }

  /** `request` as tine's caller sees it: an AcpError on any failure, a time limit unless `timeoutMs` is null. */
  private async call<T>(method: string, request: Promise<T>, timeoutMs: number | null = this.timeout): Promise<T> {
    const name = this.name;
    try {
      return timeoutMs === null
        ? await request
        : await within(
            request,
            timeoutMs,
            () => new AcpError("timed-out", `tine: ACP agent "${name}" did not answer ${method} within ${timeoutMs / 1000} s`),
          );
    } catch (error) {
      if (error instanceof AcpError) throw error;
      if (error instanceof this.sdk.RequestError && !this.connection.signal.aborted) {
        throw new AcpError("refused", `tine: ACP agent "${name}" refused ${method}: ${error.message}`);
      }
      if (this.closing) throw new AcpError("closed", `tine: ACP agent "${name}" was closed during ${method}`);
      const end = this.process.end ?? (await Promise.race([this.process.ended, delay(EXIT_NOTICE_MS)]));
      if (end)
        throw new AcpError("exited", `tine: ACP agent "${name}" ${sayEnd(end)} during ${method}${withTail(this.process.stderrTail())}`);
      throw new AcpError("exited", `tine: ACP agent "${name}" stopped answering during ${method}: ${describe(error)}`);
    }
  }

  /** The files of a session of this connection; any other session is refused. */
  private filesFor(sessionId: string): AcpFiles {
    const files = this.files.get(sessionId);
    if (!files) throw this.sdk.RequestError.invalidParams({ sessionId }, `tine serves files only to its own sessions, not to ${sessionId}`);
    return files;
  }

  private get timeout(): number {
    return this.options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  }
}

/** `promise`, or `timedOut()` thrown once `ms` have passed. */
function within<T>(promise: Promise<T>, ms: number, timedOut: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timedOut()), ms);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

const delay = (ms: number) => new Promise<null>((resolve) => setTimeout(() => resolve(null), ms).unref());

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));
