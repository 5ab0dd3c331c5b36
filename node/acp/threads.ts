/**
 * ACP agents as the user reaches them: `:Tine agent <name>` (a new thread run by that agent) and
 * `:checkhealth tine` (each configured agent started once, its `initialize` answer shown). The
 * session is made before the thread, so its id is in the thread's stored header from the start;
 * whatever fails (not configured, not installed, initialize, session/new) is thrown as the user's
 * message and no thread is made.
 */
import type { RunnerStart } from "../chat/runner.ts";
import { localEnvironment } from "../tools/local-environment.ts";
import type { AcpAgents } from "./agent-pool.ts";
import { agentNames } from "./agents.ts";
import { environmentFiles } from "./files.ts";
import { type AgentSummary, healthLines } from "./summary.ts";

/** A thread made and shown: its id and buffers. */
export type Opened = { id: string; display: number; input: number };

export type AcpThreadHost = {
  /** Makes a thread (the `new-thread` message) and waits for its buffers. */
  create(fields: { runner: RunnerStart; placeholder?: string; minted?: { readonly id: string; readonly num: number } }): Promise<Opened>;
  mint(): { readonly id: string; readonly num: number };
};

/** One configured agent as `:checkhealth tine` shows it: its lines, or why it could not start. */
export type AgentHealth = { readonly name: string; readonly lines: string[] } | { readonly name: string; readonly error: string };

export class AcpThreads {
  constructor(
    private readonly host: AcpThreadHost,
    /** The agents' processes; new sessions work in its folder (the project's). */
    readonly pool: AcpAgents,
  ) {}

  /** The configured agents' names (`:Tine agent` completes them). */
  names(): string[] {
    return agentNames(this.pool.config);
  }

  /** `:Tine agent <name>`: a new thread run by agent `name`, in a new session of its (shared) process. */
  async open(name: string): Promise<Opened> {
    const conn = await this.pool.connection(name);
    const cwd = this.pool.cwd;
    const { sessionId, response } = await conn.newSession(cwd, this.pool.mcpServersFor(conn), environmentFiles(localEnvironment(cwd)));
    const mode = this.pool.modeOf(name);
    if (mode) await conn.setMode(sessionId, mode);
    const minted = this.host.mint();
    return this.host.create({
      runner: { kind: "acp", agent: name, sessionId, offer: response },
      placeholder: `${name} ${minted.num}`,
      minted,
    });
  }

  /** Each configured agent started once (apart from the threads' processes) and asked `initialize`. */
  async health(): Promise<AgentHealth[]> {
    return Promise.all(
      this.names().map(async (name): Promise<AgentHealth> => {
        try {
          const summary: AgentSummary = await this.pool.probe(name);
          return { name, lines: healthLines(summary) };
        } catch (error) {
          return { name, error: error instanceof Error ? error.message : String(error) };
        }
      }),
    );
  }
}
