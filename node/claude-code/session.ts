/**
 * A Claude Code session run in a Neovim terminal, as a thread's runner: what runs the thread is the
 * CLI, not tine's API agent, but to the chat it is a thread like any other (listed, stored,
 * forked). Its conversation lives in the CLI's own transcript, so its history here is empty and it
 * has no `conversation` tine drives (the user types in its terminal); a fork
 * is the CLI's own `--resume <id> --fork-session --session-id <new>`, taken in any state. A fork
 * into a worktree of its own is the session copied into the folder Claude Code uses for the
 * worktree (under the new id) and resumed there, once the session is between turns (the worktree
 * is made from the files then). Whether it works or waits is read from that transcript while its
 * terminal runs.
 */
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import type { Runner, RunnerTraits, Surface, ThreadStatus } from "../chat/runner.ts";
import type { AgentMsg, AgentStatus, CloneOptions } from "../core/agent.ts";
import { History } from "../core/history.ts";
import type { RunnerSpec } from "../core/runner-spec.ts";
import { type Activity, lastPromptOf, watchActivity } from "./activity.ts";
import { baseCommand, forkCommand, resumeCommand, withSessionId } from "./command.ts";
import { copySession } from "./copy-session.ts";

/** How the list marks a thread run by Claude Code. */
export const CLAUDE_LABEL = "[claude] ";

export type TerminalState = "not-started" | "running" | "exited";

/** What every Claude Code session of this host shares: the configured command, the project, and where transcripts are. */
export type ClaudeCodeSetup = {
  /** `claude_command` from setup: the program (and arguments) every session runs. */
  readonly command: readonly string[];
  /** The project's folder: where a session runs unless it was forked into a worktree. */
  readonly cwd: string;
  /** The transcript of session `sessionId` run in folder `cwd` (Claude Code keeps them by folder). */
  readonly transcriptPath: (cwd: string, sessionId: string) => string;
};

export const CLAUDE_CODE_TRAITS: RunnerTraits = {
  // Idle prompts and reports would be typed into someone else's program.
  forkLifecycle: false,
  // The CLI keeps it (a fork in a worktree brings back its code only; else it ends in its terminal).
  ownConversation: "its own Claude Code session",
  // Its conversation is in the CLI's file from the start: the thread is stored at once.
  storedAtOnce: true,
  // The CLI runs its own tools: no sandbox of tine's confines them.
  toolsThroughTine: false,
};

export class ClaudeCodeSession implements Runner {
  readonly history = History.empty;
  readonly open = null;
  readonly traits = CLAUDE_CODE_TRAITS;
  readonly label = CLAUDE_LABEL;
  /** tine drives none: the user types in its terminal (see `surface.input` for a fork's prompt). */
  readonly conversation = null;
  status: AgentStatus = { type: "idle" };
  terminal: TerminalState = "not-started";
  /** Busy or idle, as the session's transcript tells (null until it says). */
  activity: Activity | null = null;
  /** Typed into the CLI once it is ready (a fork's prompt). */
  private pendingPrompt = "";
  private stopWatching: (() => void) | null = null;
  /** The first prompt typed in this terminal was told (it names a thread with a placeholder title). */
  private prompted = false;
  /** Called when its session is between turns again (forks into a worktree wait for that). */
  private turnEnded: (() => void)[] = [];

  private constructor(
    private readonly setup: ClaudeCodeSetup,
    /** What the user added to the configured command (session flags and all). */
    private readonly args: readonly string[],
    readonly sessionId: string,
    /** What the terminal runs. */
    private readonly argv: readonly string[],
    private readonly dispatch: (msg: AgentMsg) => void,
    /** The folder its CLI runs in: the project's, or a worktree's. */
    private readonly cwd: string,
  ) {}

  /** A new session: the command, with `--session-id` added unless the user's arguments name one. */
  static start(setup: ClaudeCodeSetup, args: readonly string[], dispatch: (msg: AgentMsg) => void): ClaudeCodeSession {
    const { argv, sessionId } = withSessionId([...setup.command, ...args], randomUUID());
    return new ClaudeCodeSession(setup, args, sessionId, argv, dispatch, setup.cwd);
  }

  /** A session continued (a stored thread opened again, an export): `--resume <id>` with the base command, in `cwd`. */
  static resume(
    setup: ClaudeCodeSetup,
    args: readonly string[],
    sessionId: string,
    dispatch: (msg: AgentMsg) => void,
    cwd = setup.cwd,
  ): ClaudeCodeSession {
    return new ClaudeCodeSession(setup, args, sessionId, resumeCommand([...setup.command, ...args], sessionId), dispatch, cwd);
  }

  get spec(): RunnerSpec {
    const where = this.cwd === this.setup.cwd ? {} : { cwd: this.cwd };
    return { kind: "claude-code", args: this.args, sessionId: this.sessionId, ...where };
  }

  private get transcript(): string {
    return this.setup.transcriptPath(this.cwd, this.sessionId);
  }

  get surface(): Surface {
    return {
      type: "terminal",
      argv: this.argv,
      cwd: this.cwd,
      firstInput: this.pendingPrompt,
      input: (text) => this.input(text),
      started: () => this.started(),
      exited: () => this.exited(),
    };
  }

  threadStatus(): ThreadStatus {
    // A Claude Code thread's state is its terminal's.
    return this.terminal === "exited" ? "exited" : this.terminal === "running" ? "running" : "idle";
  }

  statusDetail(): string {
    return this.terminal === "running" && this.activity ? ` (${this.activity})` : "";
  }

  /** The CLI runs in its terminal: its transcript tells when it works and when it waits. */
  private started(): void {
    if (this.terminal !== "not-started") return;
    this.setTerminal("running");
    this.stopWatching = watchActivity(this.transcript, (activity, tail) => this.setActivity(activity, tail));
  }

  private exited(): void {
    this.close();
    this.setTerminal("exited");
  }

  close(): void {
    this.stopWatching?.();
    this.stopWatching = null;
    this.endTurn(); // nothing will tell any more: a fork waiting for it goes on (and finds the thread gone)
  }

  betweenTurns(): Promise<void> | null {
    if (!this.midTurn()) return null;
    return new Promise((resolve) => this.turnEnded.push(resolve));
  }

  /** While its CLI runs and its transcript says it works; a terminal not running has no turn under way. */
  midTurn(): boolean {
    return this.terminal === "running" && this.activity === "busy";
  }

  private endTurn(): void {
    const waiting = this.turnEnded;
    this.turnEnded = [];
    for (const resolve of waiting) resolve();
  }

  private setTerminal(state: TerminalState): void {
    this.terminal = state;
    if (state === "exited") this.endTurn();
    this.status = state === "exited" ? { type: "stopped", stopReason: "end_turn" } : { type: "idle" };
    this.dispatch({ type: "status-changed", status: this.status });
  }

  private setActivity(activity: Activity, tail: string): void {
    if (this.activity === activity) return;
    this.activity = activity;
    if (activity === "idle") this.endTurn();
    this.dispatch({ type: "status-changed", status: this.status });
    // The first activity seen here follows the first prompt typed: it is the transcript's last (a
    // resumed or forked session holds its source's before it). A turn may be over before the
    // transcript is polled, so idle counts too.
    const prompt = this.prompted ? null : lastPromptOf(tail);
    if (prompt) {
      this.prompted = true;
      this.dispatch({ type: "prompted", text: prompt });
    }
  }

  /** Before the CLI runs, text is kept to be typed once it is ready; after, the terminal is where to type. */
  private input(text: string): void {
    if (this.terminal !== "not-started") throw new Error("tine: type in the Claude Code terminal");
    this.pendingPrompt = this.pendingPrompt ? `${this.pendingPrompt}\n${text}` : text;
  }

  /**
   * A fork: in this session's folder, the base command resuming this session as a new one,
   * whatever this one is doing. In another folder (`root`: a worktree of its own), the session is
   * copied into the folder Claude Code keeps that one's sessions in, under the new id, and resumed
   * there (the caller waited for `betweenTurns`); a session with no transcript yet starts afresh.
   */
  clone(dispatch: (msg: AgentMsg) => void, options: CloneOptions = {}): ClaudeCodeSession {
    const newId = randomUUID();
    const base = [...this.setup.command, ...this.args];
    const root = options.root ?? this.cwd;
    if (root === this.cwd)
      return new ClaudeCodeSession(this.setup, this.args, newId, forkCommand(base, this.sessionId, newId), dispatch, root);
    if (!existsSync(this.transcript)) {
      return new ClaudeCodeSession(this.setup, this.args, newId, withSessionId(baseCommand(base), newId).argv, dispatch, root);
    }
    copySession(this.transcript, this.sessionId, this.setup.transcriptPath(root, newId), newId);
    return new ClaudeCodeSession(this.setup, this.args, newId, resumeCommand(base, newId), dispatch, root);
  }
}
