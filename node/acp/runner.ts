/**
 * A thread run by an ACP agent: one session of the agent's shared process (agent-pool.ts). Its
 * conversation lives in the agent; tine holds and draws what the agent streamed (transcript.ts
 * folds `session/update` into the History tine's own threads have), so the view, the store and
 * `messages()` take it like any thread's. A send is `session/prompt`, `<C-c>` is `session/cancel`,
 * the agent's permission requests wait for the user (`questions`), never answered for them.
 *
 * The session is taken up lazily: made by acp/threads.ts before the thread exists (its id is in the
 * stored header from the start), or, for a stored thread opened again or a thread whose agent
 * ended, resumed (`session/resume`) or else loaded (`session/load`, its replay dropped: tine holds
 * the transcript) when the thread is opened or next sends. What fails is said in the thread (its
 * banner, or the turn's error) and the thread stays usable: sending again tries again.
 */
import type { PermissionOptionKind } from "@agentclientprotocol/sdk/unstable";
import type { PreparedFork, QuestionAnswer, Runner, RunnerQuestion, RunnerQuestions, RunnerTraits, ThreadStatus } from "../chat/runner.ts";
import type { AgentMsg, AgentStatus, CloneOptions } from "../core/agent.ts";
import type { History } from "../core/history.ts";
import type { ModelChoice } from "../core/model-choice.ts";
import type { UserBlock } from "../core/native.ts";
import type { RunnerSpec } from "../core/runner-spec.ts";
import { NOTHING_REPORTED, type ReportedUsage, reportedOf } from "../usage/reported.ts";
import type { AcpAgents } from "./agent-pool.ts";
import type { AcpConnection } from "./connection.ts";
import type { AcpFiles } from "./files.ts";
import { AcpForkSession, prepareAcpFork } from "./fork-session.ts";
import type { PendingPermission } from "./permissions.ts";
import { type PromptPart, promptParts } from "./prompt-blocks.ts";
import { AcpTranscript } from "./transcript.ts";
import { oneLine, stopOf, textOf } from "./turn-words.ts";

/** What a thread of an ACP agent is like. */
export const acpTraits = (): RunnerTraits => ACP_TRAITS;

const ACP_TRAITS: RunnerTraits = {
  // Its forks end as tine's do: a report asks the fork for a summary (a prompt in its session), idle clocks prompt it.
  forkLifecycle: true,
  ownConversation: null,
  storedAtOnce: false,
  // The agent runs its own tools (its file reads and writes come through the thread's folder).
  toolsThroughTine: false,
};

/** What every ACP thread on this host shares. */
export type AcpRunnerSetup = {
  readonly pool: AcpAgents;
  /** The project's folder: a session's folder unless its spec names another. */
  readonly cwd: string;
  /** The files served to a session working in `cwd`. */
  readonly files: (cwd: string) => AcpFiles;
};

/** The label before its title in the list; `≈`: an approximate fork (fork-way.ts). */
export const acpLabel = (agent: string, approximate = false) => `[${agent}${approximate ? " ≈" : ""}] `;

const ANSWER_KINDS: { readonly [K in QuestionAnswer]: PermissionOptionKind } = {
  allow_once: "allow_once",
  allow_always: "allow_always",
  reject_once: "reject_once",
};

export class AcpRunner implements Runner {
  readonly traits: RunnerTraits;
  readonly surface = { type: "transcript" } as const;
  readonly open = null;
  readonly conversation = this;
  readonly label: string;
  status: AgentStatus = { type: "idle" };
  readonly questions: RunnerQuestions;
  private transcript: AcpTranscript;
  /** The process its session is live on, or null: to be taken up (again) before the next prompt. */
  private attached: AcpConnection | null;
  private stopListening: () => void = () => {};
  private readonly waiting: PendingPermission[] = [];
  /** What went wrong outside a turn (its agent ended, its session could not be taken up), shown in its banner. */
  private trouble: string | null = null;
  /** Updates of a session/load's replay are dropped: the transcript is tine's. */
  private replaying = false;
  /** The user cancelled before the agent began the turn (it was still starting). */
  private cancelled = false;
  private closed = false;
  private turnEnded: (() => void)[] = [];
  private takingUp: Promise<AcpConnection> | null = null;
  /** What its next prompt waits for: the files recorded before the agent can change them (RunnerCore.recordBeforeTurn). */
  private recorded: Promise<void> = Promise.resolve();

  constructor(
    private readonly setup: AcpRunnerSetup,
    readonly agent: string,
    readonly sessionId: string,
    private readonly dispatch: (msg: AgentMsg) => void,
    history: History,
    /** The process the session was just made on (a new thread), or null: taken up when opened. */
    attached: AcpConnection | null,
    /** Its folder when not the project's. */
    private readonly cwd?: string,
    /** A seeded fork (fork-session.ts): what it loses, and the conversation its first prompt carries (null once sent). */
    private readonly seeded: { readonly note: string; seed: string | null } | null = null,
  ) {
    this.label = acpLabel(agent, seeded !== null);
    this.traits = acpTraits();
    this.transcript = new AcpTranscript(history);
    this.attached = attached;
    if (attached) this.listen();
    else void this.session().catch(() => {});
    this.questions = { pending: () => this.pendingQuestions(), answer: (toolId, kind) => this.answerQuestion(toolId, kind) };
  }

  get spec(): RunnerSpec {
    return {
      kind: "acp",
      agent: this.agent,
      sessionId: this.sessionId,
      ...(this.cwd ? { cwd: this.cwd } : {}),
      ...(this.seeded ? { approximate: true } : {}),
    };
  }

  get history(): History {
    return this.transcript.history;
  }
  get settledLength(): number {
    return this.transcript.settledLength;
  }

  /** The agent chooses its own model. */
  readonly modelName = null;

  /** The context and cost its agent last said (`usage_update`); its turns' tokens are in the history. */
  reportedUsage(): ReportedUsage {
    const said = this.transcript.state.context;
    return said ? reportedOf(said) : NOTHING_REPORTED;
  }

  banner(): readonly string[] {
    const s = this.attached?.summary;
    const who = s?.name ? ` (${oneLine(s.name)}${s.version ? ` ${oneLine(s.version)}` : ""})` : "";
    const state = this.takingUp ? " · taking its session up…" : "";
    const lines = [`◆ Run by the ACP agent "${this.agent}"${who} · session ${this.sessionId}${state}`];
    if (this.seeded) lines.push(this.seeded.note);
    if (this.trouble) lines.push(`⚠ ${this.trouble} · sending again tries again`);
    return lines;
  }

  threadStatus(): ThreadStatus {
    if (this.waiting.length) return "waiting";
    if (this.status.type === "streaming") return "streaming";
    if (this.status.type === "error") return "error";
    return "idle";
  }

  statusDetail(): string {
    return "";
  }

  betweenTurns(): Promise<void> | null {
    if (this.status.type !== "streaming") return null;
    return new Promise((resolve) => this.turnEnded.push(resolve));
  }

  midTurn(): false {
    return false;
  }

  close(): void {
    this.closed = true;
    for (const p of this.waiting.splice(0)) p.cancel();
    if (this.status.type === "streaming") void this.attached?.cancel(this.sessionId);
    this.stopListening();
  }

  /** A fork's runner, on the session `prepareFork` made (the fork flow hands it back). */
  clone(dispatch: (msg: AgentMsg) => void, options?: CloneOptions): Runner {
    const made = options?.prepared;
    if (!(made instanceof AcpForkSession) || made.agent !== this.agent)
      throw new Error(`tine: a fork of a thread run by ${this.agent} is made ready by the fork flow first`);
    const seeded = made.seeded ? { note: made.seeded.note, seed: made.seeded.seed } : null;
    const cwd = made.cwd === this.setup.cwd ? undefined : made.cwd;
    return new AcpRunner(this.setup, this.agent, made.sessionId, dispatch, made.history, made.conn, cwd, seeded);
  }

  prepareFork(at: number | undefined, forkCwd: string | null): Promise<PreparedFork> {
    const cwd = forkCwd ?? this.cwd ?? this.setup.cwd;
    return prepareAcpFork(
      {
        agent: this.agent,
        sessionId: this.sessionId,
        cwd,
        files: this.setup.files(cwd),
        history: this.history,
        settledLength: this.transcript.settledLength,
        busy: this.status.type === "streaming" || this.waiting.length > 0,
        session: () => this.session(),
        connection: () => this.setup.pool.connection(this.agent),
        mode: this.setup.pool.modeOf(this.agent),
        mcpServers: (conn) => this.setup.pool.mcpServersFor(conn),
      },
      at,
    ).then(({ atMessage, fork }) => ({ atMessage, made: fork }));
  }

  // -- the conversation --

  send(blocks: UserBlock[]): void {
    this.transcript.prompt(textOf(blocks));
    // Its `@file` mentions go as resources (promptParts), not as their text.
    void this.run(promptParts(blocks, this.cwd ?? this.setup.cwd));
  }

  abort(): void {
    if (this.status.type !== "streaming") return;
    this.cancelled = true;
    if (this.attached) void this.attached.cancel(this.sessionId);
  }

  retry(): void {
    const text = this.lastPrompt();
    if (text !== null) void this.run([{ kind: "text", text }]);
  }

  answer(): void {
    this.retry();
  }

  rewind(): void {
    throw new Error(`tine: a thread run by ${this.agent} cannot be rewound: its conversation is the agent's session`);
  }

  replaceFailed(blocks: UserBlock[]): string {
    const last = this.history.last()?.message;
    let old = "";
    if (last?.role === "user" && last.content.every((b) => b.type === "text")) {
      old = textOf(last.content);
      this.transcript = new AcpTranscript(this.history.prefix(this.history.length - 1));
    }
    this.send(blocks);
    return old;
  }

  nextRequest(): null {
    return null;
  }

  chooseModel(_choice: ModelChoice): void {
    throw new Error(`tine: ${this.agent} chooses its own model: :Tine model does not reach ACP agents yet`);
  }

  summarize(): Promise<never> {
    return Promise.reject(new Error(`tine: a thread run by ${this.agent} cannot be summarized by tine`));
  }

  // -- the session --

  recordBeforeTurn(recorded: Promise<void>): void {
    this.recorded = recorded;
  }

  /** A prompt turn: the session taken up first when it is not live. */
  private async run(parts: readonly PromptPart[]): Promise<void> {
    this.cancelled = false;
    this.setStatus({ type: "streaming", startedAt: Date.now(), attempt: 1 });
    try {
      const [conn] = await Promise.all([this.session(), this.recorded]);
      if (this.cancelled) {
        this.transcript.endTurn({ stopReason: "cancelled" });
        this.setStatus({ type: "stopped", stopReason: "aborted" });
        return;
      }
      // A seeded fork's first prompt carries the conversation it was told (never drawn).
      const seed = this.seeded?.seed ?? null;
      const told: PromptPart[] = seed === null ? [] : [{ kind: "text", text: seed }];
      const response = await conn.prompt(this.sessionId, [...told, ...parts]);
      if (this.seeded) this.seeded.seed = null;
      this.transcript.endTurn(response);
      this.setStatus({ type: "stopped", stopReason: stopOf(response.stopReason) });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.transcript.interruptTurn(message);
      this.setStatus({ type: "error", message });
    }
  }

  /** The connection its session is live on: the agent started and the session taken up when needed (once at a time). */
  private session(): Promise<AcpConnection> {
    if (this.takingUp) return this.takingUp;
    const taking = this.takeUp();
    this.takingUp = taking;
    const done = () => {
      if (this.takingUp !== taking) return;
      this.takingUp = null;
      if (!this.closed) this.dispatch({ type: "stream-updated" });
    };
    taking.then(done, done);
    return taking;
  }

  private async takeUp(): Promise<AcpConnection> {
    try {
      const conn = await this.setup.pool.connection(this.agent);
      if (conn === this.attached) return conn;
      const cwd = this.cwd ?? this.setup.cwd;
      const files = this.setup.files(cwd);
      this.attached = conn;
      this.listen();
      const s = conn.summary;
      const servers = this.setup.pool.mcpServersFor(conn);
      if (s.resume) await conn.resumeSession(this.sessionId, cwd, servers, files);
      else if (s.load) {
        this.replaying = true;
        await conn.loadSession(this.sessionId, cwd, servers, files).finally(() => (this.replaying = false));
      } else throw new Error(`tine: ACP agent "${this.agent}" can neither resume nor load sessions: this thread cannot go on with it`);
      const mode = this.setup.pool.modeOf(this.agent);
      if (mode) await conn.setMode(this.sessionId, mode);
      this.setTrouble(null);
      return conn;
    } catch (error) {
      // Not configured, not installed, failing initialize, refusing the session: said in the thread, tried again on the next send.
      this.attached = null;
      this.stopListening();
      const why = error instanceof Error ? error.message : String(error);
      this.setTrouble(`its session could not be taken up: ${why}`);
      throw error;
    }
  }

  private listen(): void {
    this.stopListening();
    const conn = this.attached;
    this.stopListening = this.setup.pool.listen(this.agent, this.sessionId, {
      update: (update) => {
        if (this.replaying || this.closed) return;
        this.transcript.apply(update);
        this.dispatch({ type: "stream-updated" });
      },
      permission: (permission) => {
        if (this.closed) return permission.cancel();
        this.waiting.push(permission);
        void permission.answer.then(() => this.settled(permission));
        // The list shows it waiting.
        this.dispatch({ type: "status-changed", status: this.status });
      },
      ended: (error) => {
        if (this.attached !== conn) return;
        this.attached = null;
        this.setTrouble(error.message);
      },
    });
  }

  private settled(permission: PendingPermission): void {
    const at = this.waiting.indexOf(permission);
    if (at < 0) return;
    this.waiting.splice(at, 1);
    if (!this.closed) this.dispatch({ type: "status-changed", status: this.status });
  }

  private pendingQuestions(): RunnerQuestion[] {
    return this.waiting.map((p) => ({
      toolId: p.toolCall.toolCallId,
      title: oneLine(p.toolCall.title ?? this.transcriptTitle(p.toolCall.toolCallId)),
      options: p.options.map((o) => ({ kind: o.kind, name: oneLine(o.name) })),
    }));
  }

  private transcriptTitle(toolId: string): string {
    for (const e of [...this.history.messages()].reverse())
      for (const b of e.content) if (b.type === "tool_use" && b.id === toolId) return b.name;
    return "a tool call";
  }

  private answerQuestion(toolId: string | null, kind: QuestionAnswer): boolean {
    const p = toolId === null ? this.waiting[0] : this.waiting.find((w) => w.toolCall.toolCallId === toolId);
    if (!p) return false;
    const option = p.options.find((o) => o.kind === ANSWER_KINDS[kind]);
    if (!option) throw new Error(`tine: ${this.agent} offered no "${kind.replace("_", " ")}" answer here`);
    p.select(option.optionId);
    return true;
  }

  /** The text of the last prompt, sent again by `retry`. */
  private lastPrompt(): string | null {
    const messages = this.history.messages();
    for (let i = messages.length - 1; i >= 0; i--) {
      const m = messages[i]!;
      if (m.role === "user" && m.content.some((b) => b.type === "text")) return textOf(m.content);
    }
    return null;
  }

  private setTrouble(why: string | null): void {
    if (this.trouble === why) return;
    this.trouble = why;
    if (!this.closed) this.dispatch({ type: "stream-updated" });
  }

  private setStatus(status: AgentStatus): void {
    this.status = status;
    if (this.closed) return;
    this.dispatch({ type: "stream-updated" });
    this.dispatch({ type: "status-changed", status });
    if (status.type !== "streaming") for (const resolve of this.turnEnded.splice(0)) resolve();
  }
}
