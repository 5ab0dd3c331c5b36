/**
 * The agents' processes on this host: one process per configured agent, shared by all its threads
 * (each thread is one session of it). Why one, not one per thread: an agent is made to serve many
 * sessions over one connection (the spec's sessions), an adapter start costs a second or more and
 * a Node process's memory, and a fork is a request between two sessions of one process.
 *
 * A process starts when a thread first needs it (`connection`); when it ends on its own (a crash,
 * an exit mid-turn) every session on it is told (`SessionEvents.ended`), and the next request
 * starts it again: each thread then takes its session up again (resume or load, runner.ts).
 */
import type { McpServer, SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { type AcpAgentsConfig, launchOf } from "./agents.ts";
import { AcpConnection } from "./connection.ts";
import type { AcpError } from "./errors.ts";
import { type McpSource, sessionServers } from "./mcp-servers.ts";
import type { PendingPermission } from "./permissions.ts";

/** What one session's thread is told of what its agent sends. */
export type SessionEvents = {
  update(update: SessionUpdate): void;
  permission(permission: PendingPermission): void;
  /** The agent's process ended on its own: the session is gone with it until taken up again. */
  ended(error: AcpError): void;
};

/** An agent none of whose sessions listens yet (its updates go nowhere). */
const NO_LISTENERS: ReadonlyMap<string, SessionEvents> = new Map();

export class AcpAgents {
  /** The running (or starting) process of each agent, by configured name. */
  private readonly live = new Map<string, Promise<AcpConnection>>();
  private readonly started = new Map<string, AcpConnection>();
  /** Each agent's sessions' listeners, by session id. */
  private readonly sessions = new Map<string, Map<string, SessionEvents>>();
  /** tine's MCP servers, given to each session (none until the host says where they are). */
  private mcp: McpSource = { specs: () => [], denied: new Set() };

  constructor(
    readonly config: AcpAgentsConfig,
    /** The folder agents start in (the project's); each session names its own. */
    readonly cwd: string,
    private readonly log: (line: string) => void = () => {},
    private readonly host: Readonly<Record<string, string | undefined>> = process.env,
  ) {}

  /** The mode setup names for agent `name` (set after each session is made or taken up), or null. */
  modeOf(name: string): string | null {
    return Object.hasOwn(this.config, name) ? (this.config[name]?.mode ?? null) : null;
  }

  /** Where tine's MCP servers are: each session made, resumed, loaded or forked from now on gets them. */
  useMcp(source: McpSource): void {
    this.mcp = source;
  }

  /** tine's MCP servers in the shape `conn`'s agent takes (mcp-servers.ts); what is left out is logged. */
  mcpServersFor(conn: AcpConnection): McpServer[] {
    const { servers, left } = sessionServers(this.mcp.specs(), conn.summary.mcp, this.cwd, this.host, this.mcp.denied);
    for (const why of left) this.log(`acp agent ${conn.name}: MCP server left out of its sessions: ${why}`);
    return servers;
  }

  /** The running process of agent `name`, or null when none runs now. */
  current(name: string): AcpConnection | null {
    return this.started.get(name) ?? null;
  }

  /** Agent `name`'s process, started (and initialized) when none runs; rejects with a message for the user. */
  connection(name: string): Promise<AcpConnection> {
    const running = this.live.get(name);
    if (running) return running;
    const starting = this.start(name);
    this.live.set(name, starting);
    starting.catch(() => {
      if (this.live.get(name) === starting) this.live.delete(name);
    });
    return starting;
  }

  /** Tells `events` what agent `name` sends for session `sessionId`; returns the stop. */
  listen(name: string, sessionId: string, events: SessionEvents): () => void {
    const of = this.sessions.get(name) ?? new Map<string, SessionEvents>();
    this.sessions.set(name, of);
    of.set(sessionId, events);
    return () => {
      if (of.get(sessionId) === events) of.delete(sessionId);
    };
  }

  /** Starts agent `name` once, to show what it answers (`:checkhealth tine`), and stops it. */
  async probe(name: string): Promise<AcpConnection["summary"]> {
    const conn = await AcpConnection.start(launchOf(this.config, name, this.cwd, this.host), { onEvent: () => {} });
    await conn.close();
    return conn.summary;
  }

  /** Stops every agent (the host is going away). */
  closeAll(): Promise<void> {
    const all = [...this.started.values()];
    this.started.clear();
    this.live.clear();
    return Promise.all(all.map((c) => c.close())).then(() => {});
  }

  private async start(name: string): Promise<AcpConnection> {
    const launch = launchOf(this.config, name, this.cwd, this.host);
    const listeners = () => this.sessions.get(name) ?? NO_LISTENERS;
    let conn: AcpConnection | null = null;
    conn = await AcpConnection.start(launch, {
      onEvent: (event) => {
        switch (event.kind) {
          case "update":
            listeners().get(event.sessionId)?.update(event.update);
            return;
          case "permission": {
            const to = listeners().get(event.permission.sessionId);
            // A request for no session of tine's is not answered for the user: it is declined as cancelled.
            if (to) to.permission(event.permission);
            else event.permission.cancel();
            return;
          }
          case "noise":
            this.log(`acp agent ${name} wrote a line that is not JSON-RPC: ${event.line.slice(0, 200)}`);
            return;
          case "ended":
            if (conn === null || this.started.get(name) === conn) {
              this.started.delete(name);
              this.live.delete(name);
            }
            if (event.error) {
              const error = event.error;
              const told = [...listeners().values()];
              this.sessions.delete(name);
              for (const l of told) l.ended(error);
            }
            return;
        }
      },
    });
    this.started.set(name, conn);
    return conn;
  }
}
