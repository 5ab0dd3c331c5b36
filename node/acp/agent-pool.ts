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
import { oneLine } from "../core/one-line.ts";
import { reportLater } from "../util/report-later.ts";
import { type AcpAgentsConfig, launchOf } from "./agents.ts";
import { AcpConnection } from "./connection.ts";
import type { AcpError } from "./errors.ts";
import { type McpSource, sessionServers } from "./mcp-servers.ts";
import type { PendingPermission } from "./permissions.ts";
import { isSessionState } from "./transcript.ts";

/** What one session's thread is told of what its agent sends. */
export type SessionEvents = {
  update(update: SessionUpdate): void;
  permission(permission: PendingPermission): void;
  /** The agent's process ended on its own: the session is gone with it until taken up again. */
  ended(error: AcpError): void;
};

/** An agent none of whose sessions listens yet. */
const NO_LISTENERS: ReadonlyMap<string, SessionEvents> = new Map();

/** How many sessions' early updates are held, and how many each: a session nobody comes for (its thread failed to open) costs at most this much. */
const HELD_SESSIONS = 16;
const HELD_UPDATES = 64;
/** How many closed sessions are remembered as closed (older ones' stray updates may be held again, within the bounds above). */
const STOPPED_SESSIONS = 1024;

const sessionKey = (name: string, sessionId: string) => `${name}\0${sessionId}`;

/** An agent's process: starting (`conn` null until it has), or running. */
type Agent = { readonly starting: Promise<AcpConnection>; conn: AcpConnection | null };

export class AcpAgents {
  /** The running (or starting) process of each agent, by configured name. */
  private readonly agents = new Map<string, Agent>();
  /** Each agent's sessions' listeners, by session id. */
  private readonly sessions = new Map<string, Map<string, SessionEvents>>();
  /** Each agent's updates for sessions no thread listens to yet, by session id, oldest session first. */
  private readonly held = new Map<string, Map<string, SessionUpdate[]>>();
  /**
   * Sessions whose thread stopped listening (closed): what they still send (a cancelled turn's
   * tail) is dropped, not held for a later take-up that would draw it into the transcript.
   */
  private readonly stopped = new Set<string>();
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
    return this.agents.get(name)?.conn ?? null;
  }

  /** Agent `name`'s process, started (and initialized) when none runs; rejects with a message for the user. */
  connection(name: string): Promise<AcpConnection> {
    const running = this.agents.get(name);
    if (running) return running.starting;
    const agent: Agent = { starting: this.start(name, () => agent), conn: null };
    this.agents.set(name, agent);
    agent.starting.then(
      (conn) => {
        agent.conn = conn;
      },
      () => {
        if (this.agents.get(name) === agent) this.agents.delete(name);
      },
    );
    return agent.starting;
  }

  /**
   * Tells `events` what agent `name` sends for session `sessionId`, first what it sent before
   * anyone listened (held); returns the stop.
   */
  listen(name: string, sessionId: string, events: SessionEvents): () => void {
    const of = this.sessions.get(name) ?? new Map<string, SessionEvents>();
    this.sessions.set(name, of);
    of.set(sessionId, events);
    this.stopped.delete(sessionKey(name, sessionId));
    const early = this.held.get(name)?.get(sessionId) ?? [];
    this.held.get(name)?.delete(sessionId);
    for (const update of early)
      try {
        events.update(update);
      } catch (error) {
        // A listener that threw still listens, and the caller still gets its stop.
        reportLater(error);
      }
    return () => {
      if (of.get(sessionId) !== events) return;
      of.delete(sessionId);
      this.stopped.add(sessionKey(name, sessionId));
      if (this.stopped.size > STOPPED_SESSIONS) this.stopped.delete(this.stopped.values().next().value!);
    };
  }

  /**
   * Keeps a state update of a session nobody listens to yet (what an agent says as soon as it has
   * answered `session/new` or `session/fork`: Claude's adapter announces its commands then, before
   * tine has made the thread that listens), for its thread (listen); drops the rest. Not its
   * conversation: a fork's replay of the source's messages (OpenCode sends one) is already the
   * fork's copied history.
   */
  private hold(name: string, sessionId: string, update: SessionUpdate): void {
    if (!isSessionState(update) || this.stopped.has(sessionKey(name, sessionId))) return;
    const of = this.held.get(name) ?? new Map<string, SessionUpdate[]>();
    this.held.set(name, of);
    const updates = of.get(sessionId) ?? [];
    if (updates.length === 0) {
      of.set(sessionId, updates);
      // Logged while within bounds: an agent making up session ids does not flood the log.
      if (of.size > HELD_SESSIONS) of.delete(of.keys().next().value!);
      else this.log(`acp agent ${name}: session ${oneLine(sessionId, 80)} spoke before its thread listened; kept for it`);
    }
    if (updates.length < HELD_UPDATES) updates.push(update);
  }

  /** Starts agent `name` once, to show what it answers (`:checkhealth tine`), and stops it. */
  async probe(name: string): Promise<AcpConnection["summary"]> {
    const conn = await AcpConnection.start(launchOf(this.config, name, this.cwd, this.host), { onEvent: () => {} });
    await conn.close();
    return conn.summary;
  }

  /** Stops every agent (the host is going away). */
  closeAll(): Promise<void> {
    const all = [...this.agents.values()].flatMap((a) => (a.conn ? [a.conn] : []));
    this.agents.clear();
    return Promise.all(all.map((c) => c.close())).then(() => {});
  }

  /** Starts agent `name`'s process, `self()` its entry in `agents` (what its end removes, if still there). */
  private start(name: string, self: () => Agent): Promise<AcpConnection> {
    const launch = launchOf(this.config, name, this.cwd, this.host);
    const listeners = () => this.sessions.get(name) ?? NO_LISTENERS;
    return AcpConnection.start(launch, {
      onEvent: (event) => {
        switch (event.kind) {
          case "update": {
            const to = listeners().get(event.sessionId);
            if (to) to.update(event.update);
            else this.hold(name, event.sessionId, event.update);
            return;
          }
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
            if (this.agents.get(name) === self()) {
              this.agents.delete(name);
              this.held.delete(name);
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
  }
}
