/**
 * A Thread owns the runner that runs it (see runner.ts), the runs of the tools its agent asked
 * for, the messages the user sent while it worked (send-queue.ts), and its view state.
 *
 * Over 300 lines because it is one state machine: a send, the tools its reply asks for (approval,
 * the snapshot taken before they run, their results back in one message) and what the user queued
 * meanwhile act on the same state (the tool runs, the wait for that snapshot, the queue, the
 * runner's status), and every ThreadMsg lands in `update`. Split, each half would reach into the
 * other's state; its pure rules live beside it (send-queue.ts, titles.ts, labels.ts, prompts.ts).
 */
import { readContextBlock } from "../context/blocks.ts";
import { contextBlocks } from "../context/follow.ts";
import type { AgentStatus } from "../providers/agent.ts";
import type { History } from "../providers/history.ts";
import type { Entry, ToolResultBlock, ToolUseBlock, UserBlock } from "../providers/native.ts";
import { type CodeMark, type CodePurpose, type CodeRecorder, type SnapshotId, type ThreadMark, validMarks } from "../snapshot/code.ts";
import type { Environment } from "../tools/environment.ts";
import { isForkTool } from "../tools/fork-specs.ts";
import type { ToolOutcome, ToolSources } from "../tools/source.ts";
import { rewoundRequests, type SideRequest } from "../usage/side.ts";
import { assertUnreachable } from "../util/assert-unreachable.ts";
import { type Labels, NO_LABELS, withinHistory, withLabel } from "./labels.ts";
import type { Dispatch, ThreadId, ThreadMsg, ThreadOrigin } from "./msgs.ts";
import { deniedText, type QueuedReport, reportBlock, STILL_RUNNING_WHEN_FORKED } from "./prompts.ts";
import type { Runner, ThreadStatus } from "./runner.ts";
import { mergedContext, type SendMsg, SendQueue, sendBlocks } from "./send-queue.ts";
import { cleanTitle, type TitledBy, titleFrom } from "./titles.ts";

export type { QueuedReport } from "./prompts.ts";

export type ToolRun = {
  readonly use: ToolUseBlock;
  readonly state: "awaiting-approval" | "running" | "done";
  readonly outcome?: ToolOutcome;
};

export type { ThreadStatus } from "./runner.ts";

export { cleanTitle, forkTitle, TITLE_MAX_CHARS, type TitledBy, titleFrom } from "./titles.ts";

export type ThreadContext = {
  readonly dispatch: Dispatch;
  /** Where its tools act: their folder, files and shell. */
  readonly environment: Environment;
  /** The tools it may call (built-in, MCP): whether a call waits for approval, and how it runs. */
  readonly tools: ToolSources;
  /** A tool wrote this file (absolute path): buffers holding it are reloaded. */
  readonly fileWritten: (path: string) => void;
  /** Carries out a fork tool (enter_fork, exit_fork, …) for this thread; its result is the tool's. */
  readonly forkTool?: (thread: Thread, use: ToolUseBlock) => ToolOutcome;
  /** The thread changed (its version went up): the chat notes it, so work after a batch covers only what changed. */
  readonly changed?: (id: ThreadId) => void;
  /** Takes the code snapshots of its turns (before its tools run, when a turn that ran tools ends). */
  readonly code: CodeRecorder;
};

export class Thread {
  /** Tool runs of the last assistant message, in its tool_use order. Replaced, never mutated. */
  toolRuns: readonly ToolRun[] = [];
  private readonly controllers = new Map<string, AbortController>();
  /** Keys (`message:block`) of details the user expanded in the display buffer. */
  readonly expanded = new Set<string>();
  /** Bumped on every change the view must show; lets the view skip unchanged threads. */
  version = 0;
  /** Reports of forks, shown at once and sent with the next user turn. Replaced, never mutated. */
  reports: readonly QueuedReport[] = [];
  /** What the user sent while the agent worked; a fork starts with none (the queue is this thread's). */
  readonly queue = new SendQueue();
  /** The code snapshots its messages were made on (see snapshot/code.ts); forks share their source's. Replaced, never mutated. */
  code: readonly ThreadMark[] = [];
  /** Diffs of changed files shown under replies, by detail key. */
  readonly fileDiffs = new Map<string, readonly string[]>();
  /** The current turn's first snapshot (its change list starts there), or null before its first tool. */
  private turnStart: SnapshotId | null = null;
  /** Snapshots asked for and not yet answered: the entry each was asked after, by message count. */
  private readonly codeAsked = new Map<number, Entry | null>();
  /** While the snapshot before a batch of tools is taken: that batch (by message count) and the calls that start once it is. */
  private codeWait: { at: number; ids: string[] } | null = null;
  /** The user's labels on it and its messages (`L`). Replaced, never mutated. */
  labels: Labels = NO_LABELS;
  /** Requests it was billed for beside its history's entries (usage/side.ts); a fork starts with none. Only grows, replaced. */
  side: readonly SideRequest[] = [];
  /**
   * Tools the user approved for the rest of this thread (`A`): their calls run without asking. A
   * fork starts with a copy of its source's (`approvalsFrom`); nothing goes back, or to a sibling.
   */
  private readonly approvedTools = new Set<string>();

  /** Who named it: what may rename it (titles.ts). */
  private named: TitledBy;
  /** The pid of the other Neovim's host that writes this thread, or null (see `takenOver`). */
  private writtenBy: number | null;
  /** When the thread was first made (ms), kept across restarts; orders the list. */
  readonly created: number;
  /** Where its conversation came from, when imported. */
  readonly origin: ThreadOrigin | null;

  constructor(
    readonly id: ThreadId,
    /** Short number for display (buffer names). */
    readonly num: number,
    public title: string,
    /** What runs it. Replaced only when a fork is promoted into this thread. */
    public runner: Runner,
    private readonly context: ThreadContext,
    opts: { titledBy: TitledBy; readOnlyBy?: number | null; created?: number; origin?: ThreadOrigin },
  ) {
    this.created = opts.created ?? Date.now();
    this.origin = opts.origin ?? null;
    this.named = opts.titledBy;
    this.writtenBy = opts.readOnlyBy ?? null;
  }

  get titledBy(): TitledBy {
    return this.named;
  }

  /**
   * Whether the model should be asked for its title now: titled from a message and not asked yet,
   * with the first reply to it finished (at rest, a reply last).
   */
  get wantsModelTitle(): boolean {
    return this.named === "message" && this.atRest && this.runner.history.last()?.message.role === "assistant";
  }

  /** The pid of the other Neovim's host that writes this thread, or null. */
  get readOnlyBy(): number | null {
    return this.writtenBy;
  }

  /**
   * Read-only here until now, its writer gone: it goes on from what that writer left on disk
   * (`runner` holds it), writable here.
   */
  takenOver(runner: Runner, title: string, reports: readonly QueuedReport[]): void {
    this.runner.close();
    this.runner = runner;
    this.title = title;
    this.reports = reports;
    this.writtenBy = null;
    this.version++;
  }

  get status(): ThreadStatus {
    if (this.readOnlyBy !== null) return "busy";
    return this.runner.threadStatus(this.toolRuns.length > 0);
  }

  /** Its reply finished and its tools answered: a fork taken now holds the whole turn. */
  get atRest(): boolean {
    const status = this.status;
    return status === "idle" || status === "error" || status === "busy" || status === "running" || status === "exited";
  }

  /** The text of the turn that failed, when the thread stopped on an error (a new send replaces it). */
  failedText(): string {
    const last = this.runner.history.last()?.message;
    if (this.runner.status.type !== "error" || last?.role !== "user") return "";
    return last.content.flatMap((b) => (b.type === "text" && !readContextBlock(b.text) ? [b.text] : [])).join("\n");
  }

  /** The history a send builds on: after an error, without the failed turn it replaces. */
  sendBase(): History {
    const history = this.runner.history;
    return this.runner.status.type === "error" && history.last()?.message.role === "user" ? history.prefix(history.length - 1) : history;
  }

  /** A fork taken now trusts what its source trusted until now (a copy: later approvals stay on their side). */
  approvalsFrom(source: Thread): void {
    for (const name of source.approvedTools) this.approvedTools.add(name);
  }

  /** Where its tools act; mentions read its files there too. */
  get environment(): Environment {
    return this.context.environment;
  }

  /** Why a send would be refused now, or null. A send while the agent works is not refused: it waits in `queue`. */
  sendBlocker(): string | null {
    if (this.status === "busy")
      return `${this.title} is open for writing in another Neovim (pid ${this.readOnlyBy}): it is read-only here; fork it to continue`;
    return null;
  }

  /**
   * What a fork taken now knows of this turn's tools: the results of those that finished, and for
   * those still running (approved, not done) that they were running; the rest get the clean-up
   * rule's "forked before the tool could execute".
   */
  forkResults(): ReadonlyMap<string, ToolResultBlock> {
    if (this.toolRuns.length === 0) return NO_RESULTS;
    const out = new Map(this.finishedResults());
    for (const run of this.toolRuns) {
      if (run.state === "running")
        out.set(run.use.id, { type: "tool_result", tool_use_id: run.use.id, content: STILL_RUNNING_WHEN_FORKED, is_error: true });
    }
    return out;
  }

  /** Calls of the last reply whose tool began to run and has not finished (the store notes them: a cut session may have left them half done). */
  startedTools(): ReadonlySet<string> {
    return this.controllers.size ? new Set(this.controllers.keys()) : NONE_STARTED;
  }

  /** Results of tools that have finished, for a fork taken while the others still run. */
  finishedResults(): ReadonlyMap<string, ToolResultBlock> {
    if (this.toolRuns.length === 0) return NO_RESULTS;
    const out = new Map<string, ToolResultBlock>();
    for (const run of this.toolRuns) if (run.outcome) out.set(run.use.id, toResult(run.use.id, run.outcome));
    return out;
  }

  update(msg: ThreadMsg): void {
    this.version++;
    this.context.changed?.(this.id);
    // Labels of messages a clean-up cut (an abort, a rewind) go with them.
    this.labels = withinHistory(this.labels, this.runner.history.length);
    switch (msg.type) {
      case "send": {
        if (this.readOnlyBy !== null) return;
        // The one place a send is told apart: now, or queued while the agent works.
        if (!this.atRest) {
          this.queue.add(msg);
          return;
        }
        if (!msg.auto) this.titleFromMessage(msg.text);
        // What waits (held after an abort or error) goes first; tine's own prompts leave it waiting.
        this.sendUserTurn([...(msg.auto ? [] : this.queue.takeAll()), msg]);
        return;
      }
      case "unqueue":
        this.queue.remove(msg.item);
        return;
      case "retry":
        this.queue.release();
        this.runner.retry();
        return;
      case "answer":
        this.turnStart = null;
        this.context.code.prime(this.id);
        this.runner.answer();
        return;
      case "rewind":
        for (const c of this.controllers.values()) c.abort();
        this.controllers.clear();
        this.toolRuns = [];
        this.codeWait = null;
        // The requests rewound out of the history were billed: they stay counted (the @handoff request).
        this.side = [...this.side, ...rewoundRequests(this.runner.history, msg.history)];
        this.turnStart = null;
        this.runner.rewind(msg.history);
        return;
      case "queue-report":
        this.reports = [...this.reports, msg.report];
        return;
      case "rename":
        this.title = msg.title;
        this.named = "kept";
        return;
      case "label":
        this.labels = withLabel(this.labels, msg.target, msg.text);
        return;
      case "title-asked":
        if (this.named === "message") this.named = "asked";
        return;
      case "model-title": {
        // Renamed meanwhile by the user: theirs stays.
        const title = cleanTitle(msg.title);
        if (this.named !== "asked" || !title) return;
        this.title = title;
        this.named = "model";
        return;
      }
      case "agent": {
        if (msg.msg.type === "status-changed") this.statusChanged(msg.msg.status);
        else if (msg.msg.type === "prompted") this.titleFromMessage(msg.msg.text);
        else if (msg.msg.type === "side-request") this.side = [...this.side, msg.msg.request];
        return;
      }
      case "side-request":
        this.side = [...this.side, msg.request];
        return;
      case "code":
        this.codeTaken(msg.at, msg.purpose, msg.mark);
        return;
      case "file-diff":
        this.fileDiffs.set(msg.key, msg.lines);
        return;
      case "tool-decision": {
        const run = this.toolRuns.find((r) => r.use.id === msg.toolUseId);
        if (run?.state !== "awaiting-approval") return;
        if (!msg.approved) {
          this.finish(run.use.id, { text: deniedText(msg.reason), isError: true });
          return;
        }
        if (msg.always) {
          // For the rest of the thread: the other calls of this tool waiting now go too.
          this.approvedTools.add(run.use.name);
          for (const other of this.toolRuns) if (other.state === "awaiting-approval" && other.use.name === run.use.name) this.start(other);
        } else this.start(run);
        return;
      }
      case "tool-done":
        this.finish(msg.toolUseId, msg.outcome);
        return;
      case "abort":
        for (const c of this.controllers.values()) c.abort();
        this.controllers.clear();
        this.toolRuns = [];
        this.codeWait = null;
        this.runner.abort();
        return;
      case "choose-model":
        this.runner.chooseModel(msg.choice);
        return;
      case "toggle-detail":
        if (!this.expanded.delete(msg.key)) this.expanded.add(msg.key);
        return;
      default:
        assertUnreachable(msg);
    }
  }

  /** A placeholder title gives way to the first message the user sends (or types in a terminal). */
  private titleFromMessage(text: string): void {
    if (this.named !== "placeholder" || !text.trim()) return;
    this.title = titleFrom(text);
    this.named = "message";
  }

  /**
   * Queued fork reports go first, each a block of its own, then the sends, each its own blocks, as
   * one user message. After an error the failed turn is replaced, not joined (the host gave its
   * text back to the input).
   */
  private sendUserTurn(sends: readonly SendMsg[]): void {
    const blocks = this.blocksOf(sends);
    if (!blocks.length) return;
    blocks.unshift(...this.reports.map((r) => ({ type: "text" as const, text: reportBlock(r) })));
    this.reports = [];
    this.turnStart = null;
    // The project's first snapshot starts now, in the background: this turn's tools find it made.
    this.context.code.prime(this.id);
    if (this.runner.status.type === "error") this.runner.replaceFailed(blocks);
    else this.runner.send(blocks);
  }

  /** What sends give a user message: the context of their mentions and of the files followed (each item once), then each text. */
  private blocksOf(sends: readonly SendMsg[]): UserBlock[] {
    const context = mergedContext(sends);
    const items = context ? contextBlocks(this.sendBase(), context) : [];
    return [...items.map((text) => ({ type: "text" as const, text })), ...sends.flatMap(sendBlocks)];
  }

  /**
   * The agent's status changed (its message arrives after the change: the runner's status now is
   * what counts). A stop on tool_use starts the tools; a turn that ended sends what the user queued
   * meanwhile; one that was aborted or failed holds it.
   */
  private statusChanged(status: AgentStatus): void {
    const ended = status.type === "error" || (status.type === "stopped" && status.stopReason !== "tool_use");
    if (ended && this.turnStart !== null) {
      // A turn that ran tools ended: its change list is what changed since its first snapshot.
      this.takeCode("turn-end", this.turnStart);
      this.turnStart = null;
    }
    if (status.type === "error") this.queue.hold("failed");
    if (status.type !== "stopped") return;
    if (status.stopReason === "aborted") this.queue.hold("aborted");
    else if (status.stopReason === "tool_use") this.startTools();
    const now = this.runner.status;
    if (this.queue.length && now.type === "stopped" && now.stopReason !== "aborted" && this.toolRuns.length === 0)
      this.sendUserTurn(this.queue.takeAtTurnEnd());
  }

  private startTools(): void {
    const last = this.runner.history.last()?.message;
    if (last?.role !== "assistant") return;
    const uses = last.content.filter((b): b is ToolUseBlock => b.type === "tool_use");
    this.toolRuns = uses.map((use) => ({ use, state: "awaiting-approval" as const }));
    // The files are recorded before any of these calls can change them (approved ones wait for it).
    this.codeWait = { at: this.runner.history.length, ids: [] };
    this.takeCode("tools", null);
    // Tools that need no approval start at once, all concurrently; a call without its tool's
    // fields is answered as invalid at once (nobody is asked to approve what cannot run).
    const { tools, environment } = this.context;
    for (const run of this.toolRuns) {
      const problem = isForkTool(run.use.name) ? null : tools.inputProblem(run.use.name, run.use.input);
      if (problem) this.answerAtOnce(run, { text: problem, isError: true });
      else if (
        isForkTool(run.use.name) ||
        this.approvedTools.has(run.use.name) ||
        !tools.needsApproval(run.use.name, run.use.input, environment)
      )
        this.start(run);
    }
  }

  private start(run: ToolRun): void {
    if (isForkTool(run.use.name) && this.context.forkTool) {
      // Acts on the tree, at once.
      this.answerAtOnce(run, this.context.forkTool(this, run.use));
      return;
    }
    this.replaceRun(run.use.id, { ...run, state: "running" });
    if (this.codeWait) {
      this.codeWait.ids.push(run.use.id);
      return;
    }
    this.launch(run);
  }

  /** A call whose outcome is known now: answered in the next turn of the loop, like any tool. */
  private answerAtOnce(run: ToolRun, outcome: ToolOutcome): void {
    this.replaceRun(run.use.id, { ...run, state: "running" });
    const { dispatch } = this.context;
    queueMicrotask(() => dispatch({ type: "thread-msg", id: this.id, msg: { type: "tool-done", toolUseId: run.use.id, outcome } }));
  }

  private launch(run: ToolRun): void {
    const controller = new AbortController();
    this.controllers.set(run.use.id, controller);
    const { dispatch, environment, tools } = this.context;
    void tools.run(run.use.name, run.use.input, environment, controller.signal).then((outcome) => {
      if (!controller.signal.aborted)
        dispatch({ type: "thread-msg", id: this.id, msg: { type: "tool-done", toolUseId: run.use.id, outcome } });
    });
  }

  private takeCode(purpose: CodePurpose, since: SnapshotId | null): void {
    const at = this.runner.history.length;
    this.codeAsked.set(at, at > 0 ? this.runner.history.at(at - 1) : null);
    this.context.code.record(this.id, at, since, purpose);
  }

  /** A snapshot asked for at `at` messages was taken: kept with the entry it followed; the calls waiting for it start. */
  private codeTaken(at: number, purpose: CodePurpose, mark: CodeMark | null): void {
    const entry = this.codeAsked.get(at);
    this.codeAsked.delete(at);
    const kept = mark && entry !== undefined ? { ...mark, entry } : null;
    // A snapshot of a turn rolled back meanwhile (a rewind) describes no message left: dropped, never stored.
    if (kept && validMarks([kept], this.runner.history).length) {
      this.code = [...this.code, kept];
      if (purpose === "tools") this.turnStart ??= kept.id;
    }
    if (purpose !== "tools" || this.codeWait?.at !== at) return;
    const { ids } = this.codeWait;
    this.codeWait = null;
    for (const id of ids) {
      const run = this.toolRuns.find((r) => r.use.id === id);
      if (run?.state === "running") this.launch(run);
    }
  }

  private finish(toolUseId: string, outcome: ToolOutcome): void {
    const run = this.toolRuns.find((r) => r.use.id === toolUseId);
    if (!run) return; // aborted meanwhile
    const path = (run.use.input as { path?: unknown } | null)?.path;
    if (run.use.name === "edit_file" && !outcome.isError && typeof path === "string") {
      this.context.fileWritten(this.context.environment.resolve(path));
    }
    this.controllers.delete(toolUseId);
    this.replaceRun(toolUseId, { ...run, state: "done", outcome });
    if (this.toolRuns.every((r) => r.state === "done")) {
      const results = this.toolRuns.map((r) => toResult(r.use.id, r.outcome!));
      this.toolRuns = [];
      // All results go back in one user message, then what the user sent with `@now`.
      this.runner.send([...results, ...this.blocksOf(this.queue.takeForToolResults())]);
    }
  }

  private replaceRun(id: string, run: ToolRun): void {
    this.toolRuns = this.toolRuns.map((r) => (r.use.id === id ? run : r));
  }
}

const NO_RESULTS: ReadonlyMap<string, ToolResultBlock> = new Map();
const NONE_STARTED: ReadonlySet<string> = new Set();

/** A tool's outcome as the model gets it: its text, and its images (MCP tools') as image blocks after it. */
function toResult(id: string, outcome: ToolOutcome): ToolResultBlock {
  const text = outcome.text || "(no output)";
  const content: ToolResultBlock["content"] = outcome.images?.length
    ? [
        { type: "text", text },
        ...outcome.images.map((i) => ({
          type: "image" as const,
          source: { type: "base64" as const, media_type: i.mediaType, data: i.data },
        })),
      ]
    : text;
  return outcome.isError
    ? { type: "tool_result", tool_use_id: id, content, is_error: true }
    : { type: "tool_result", tool_use_id: id, content };
}
