/**
 * A Claude Code session run in a Neovim terminal, as a thread's agent: what runs the thread is the
 * CLI, not tine's API agent, but to the chat it is a thread like any other (listed, stored,
 * forked). Its conversation lives in the CLI's own transcript, so its history here is empty; a fork
 * is the CLI's own `--resume <id> --fork-session --session-id <new>`, taken in any state.
 */
import { randomUUID } from "node:crypto";
import type { Agent, AgentMsg, AgentStatus } from "../providers/agent.ts";
import { History } from "../providers/history.ts";
import type { UserBlock } from "../providers/native.ts";
import { forkCommand, resumeCommand, withSessionId } from "./command.ts";

export type TerminalState = "not-started" | "running" | "exited";

export class ClaudeCodeSession implements Agent {
  readonly kind = "claude-code" as const;
  readonly history = History.empty;
  readonly open = null;
  status: AgentStatus = { type: "idle" };
  terminal: TerminalState = "not-started";
  /** Busy or idle, as the session's transcript tells (null until it says). */
  activity: "busy" | "idle" | null = null;
  /** Typed into the CLI once it is ready (a fork's prompt). */
  pendingPrompt = "";

  private constructor(
    /** The user's command (session flags and all), kept so forks and resumes rebuild from it. */
    readonly command: readonly string[],
    readonly sessionId: string,
    /** What the terminal runs now. */
    readonly argv: readonly string[],
    private readonly dispatch: (msg: AgentMsg) => void,
  ) {}

  /** A new session: the command, with `--session-id` added unless it names one. */
  static start(command: readonly string[], dispatch: (msg: AgentMsg) => void): ClaudeCodeSession {
    const { argv, sessionId } = withSessionId(command, randomUUID());
    return new ClaudeCodeSession(command, sessionId, argv, dispatch);
  }

  /** A stored session opened again: `--resume <id>` with the base command. */
  static resume(command: readonly string[], sessionId: string, dispatch: (msg: AgentMsg) => void): ClaudeCodeSession {
    return new ClaudeCodeSession(command, sessionId, resumeCommand(command, sessionId), dispatch);
  }

  /** The CLI's process started or ended in its terminal. */
  setTerminal(state: TerminalState): void {
    this.terminal = state;
    this.status = state === "exited" ? { type: "stopped", stopReason: "end_turn" } : { type: "idle" };
    this.dispatch({ type: "status-changed", status: this.status });
  }

  setActivity(activity: "busy" | "idle"): void {
    if (this.activity === activity) return;
    this.activity = activity;
    this.dispatch({ type: "status-changed", status: this.status });
  }

  /** Before the CLI runs, text is kept to be typed once it is ready; after, the terminal is where to type. */
  send(blocks: UserBlock[]): void {
    const text = blocks.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
    if (this.terminal !== "not-started") throw new Error("tine: type in the Claude Code terminal");
    this.pendingPrompt = this.pendingPrompt ? `${this.pendingPrompt}\n${text}` : text;
  }

  abort(): void {}

  retry(): void {
    throw new Error("tine: a Claude Code thread is retried in its terminal");
  }

  rewind(): void {
    throw new Error("tine: a Claude Code thread cannot be rewound by tine");
  }

  replaceFailed(blocks: UserBlock[]): string {
    this.send(blocks);
    return "";
  }

  /** A fork: the base command resuming this session as a new one, whatever this one is doing. */
  clone(dispatch: (msg: AgentMsg) => void): ClaudeCodeSession {
    const newId = randomUUID();
    return new ClaudeCodeSession(this.command, newId, forkCommand(this.command, this.sessionId, newId), dispatch);
  }
}

export const isClaudeCode = (agent: Agent): agent is ClaudeCodeSession => (agent as { kind?: string }).kind === "claude-code";
