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
import type { AgentSettings, PreparedFork, QuestionAnswer, Runner, RunnerQuestions, RunnerTraits, ThreadStatus } from "../chat/runner.ts";
import type { AgentMsg, AgentStatus, CloneOptions } from "../core/agent.ts";
import { type AgentCommand, agentCommandsOf } from "../core/agent-commands.ts";
import type { History } from "../core/history.ts";
import type { ModelChoice } from "../core/model-choice.ts";
import type { UserBlock } from "../core/native.ts";
import type { RunnerSpec } from "../core/runner-spec.ts";
import { NOTHING_REPORTED, type ReportedUsage, reportedOf } from "../usage/reported.ts";
import type { AcpConnection } from "./connection.ts";
import { AcpForkSession, prepareAcpFork } from "./fork-session.ts";
import type { PendingPermission } from "./permissions.ts";
import { type PromptPart, promptParts } from "./prompt-blocks.ts";
import { answerQuestion, denialPrompt, pendingQuestions, titleOf } from "./questions.ts";
import { type AcpRunnerSetup, type AcpRunnerStart, acpLabel, acpTraits } from "./runner-setup.ts";
import { AcpSettings } from "./settings.ts";
import { AcpTranscript, isSessionState } from "./transcript.ts";
import { bannerLines, lastPrompt, stopOf, textOf } from "./turn-words.ts";

export class AcpRunner implements Runner {
  readonly traits: RunnerTraits;
  readonly surface = { type: "transcript" } as const;
  readonly open = null;
  readonly conversation = this;
  readonly label: string;
  status: AgentStatus = { type: "idle" };
  readonly questions: RunnerQuestions;
  readonly agentSettings: AgentSettings;
  readonly agentCommands = (): readonly AgentCommand[] => agentCommandsOf(this.transcript.state.commands);
  private readonly settings: AcpSettings;
  /** The user's choices are to be set on its session before its next prompt (a fork's new session). */
  private settingsDue: boolean;
  /** Why the user denied a call (`D`), to go to the agent as soon as its turn ends, or with the user's next prompt. */
  private denial: string | null = null;
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
    start: AcpRunnerStart = {},
  ) {
    this.settings = new AcpSettings(start.choices);
    if (start.offer) this.settings.took(start.offer);
    this.settingsDue = start.settingsDue === true;
    this.label = acpLabel(agent, seeded !== null);
    this.traits = acpTraits();
    this.transcript = new AcpTranscript(history);
    this.attached = attached;
    if (attached) this.listen();
    else void this.session().catch(() => {});
    this.questions = {
      pending: () => pendingQuestions(this.waiting, this.history),
      answer: (toolId, kind, reason) => this.answerQuestion(toolId, kind, reason),
    };
    this.agentSettings = {
      offered: () => this.session().then(() => this.settings.list()),
      choose: (id, value) => this.chooseSetting(id, value),
    };
  }

  get spec(): RunnerSpec {
    return {
      kind: "acp",
      agent: this.agent,
      sessionId: this.sessionId,
      ...(this.cwd ? { cwd: this.cwd } : {}),
      ...(this.seeded ? { approximate: true } : {}),
      ...(this.settings.choices ? { settings: this.settings.choices } : {}),
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
    return bannerLines({
      agent: this.agent,
      sessionId: this.sessionId,
      summary: this.attached?.summary ?? null,
      takingUp: this.takingUp !== null,
      chosen: this.settings.shown(),
      seededNote: this.seeded?.note ?? null,
      trouble: this.trouble,
      notices: this.transcript.state.notices,
    });
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
    // Its session is new: the source's choices are set on it before its first prompt.
    const start = { choices: this.settings.choices, offer: made.offer, settingsDue: true };
    return new AcpRunner(this.setup, this.agent, made.sessionId, dispatch, made.history, made.conn, cwd, seeded, start);
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
    // A denial's reason not yet told goes first, in the prompt drawn and sent.
    const denial = this.denial;
    this.denial = null;
    if (denial !== null) blocks = [{ type: "text", text: denial }, ...blocks];
    this.transcript.prompt(blocks);
    // Its `@file` mentions go as resources (promptParts), not as their text.
    void this.run(promptParts(blocks, this.cwd ?? this.setup.cwd));
  }

  abort(): void {
    if (this.status.type !== "streaming") return;
    this.cancelled = true;
    if (this.attached) void this.attached.cancel(this.sessionId);
  }

  retry(): void {
    const prompt = lastPrompt(this.history);
    if (prompt) void this.run(promptParts(prompt, this.cwd ?? this.setup.cwd));
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
    throw new Error(`tine: ${this.agent} chooses its own model: :Tine model in its thread lists and sets the settings it offers`);
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
    this.setStatus({ type: "streaming", startedAt: Date.now(), attempt: 0 });
    try {
      const [conn] = await Promise.all([this.session(), this.recorded]);
      if (this.settingsDue) {
        this.settingsDue = false;
        await this.restoreSettings(conn);
      }
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
      // A call denied with a reason: the agent is told why at once (a user's prompt queued meanwhile waits for its answer).
      if (this.denial !== null && !this.closed && response.stopReason !== "cancelled") this.send([]);
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
      if (s.resume) this.settings.took((await conn.resumeSession(this.sessionId, cwd, servers, files)).response);
      else if (s.load) {
        this.replaying = true;
        const loaded = await conn.loadSession(this.sessionId, cwd, servers, files).finally(() => (this.replaying = false));
        this.settings.took(loaded.response);
      } else throw new Error(`tine: ACP agent "${this.agent}" can neither resume nor load sessions: this thread cannot go on with it`);
      const mode = this.setup.pool.modeOf(this.agent);
      if (mode) await conn.setMode(this.sessionId, mode);
      this.setTrouble(null);
      this.settingsDue = false;
      await this.restoreSettings(conn);
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
        // A load's replay is dropped (the transcript is tine's), not what it says of the session's state.
        if (this.closed || (this.replaying && !isSessionState(update))) return;
        if (!this.settings.apply(update)) this.transcript.apply(update);
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

  private answerQuestion(toolId: string | null, kind: QuestionAnswer, reason?: string): boolean {
    const p = answerQuestion(this.agent, this.waiting, toolId, kind);
    if (p && kind === "reject_once" && reason?.trim()) this.denial = denialPrompt(titleOf(p, this.history), reason.trim());
    return p !== null;
  }

  /** `:Tine model`: one of its settings set on its session, and kept with the thread (its banner shows it). */
  private async chooseSetting(id: string, value: string): Promise<void> {
    await this.settings.choose(await this.session(), this.sessionId, id, value);
    if (!this.closed) this.dispatch({ type: "stream-updated" });
  }

  /** The user's choices set again on a session just taken up; what fails is said in its banner. */
  private async restoreSettings(conn: AcpConnection): Promise<void> {
    try {
      await this.settings.restore(conn, this.sessionId);
    } catch (error) {
      this.setTrouble(`its settings could not be set again: ${error instanceof Error ? error.message : String(error)}`);
    }
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
