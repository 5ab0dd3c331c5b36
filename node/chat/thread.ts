/**
 * A Thread owns the runner that runs it (see runner.ts), the runs of the tools its agent asked
 * for (tool-runs.ts), the code snapshots of its turns (turn-code.ts), the messages the user sent
 * while it worked (send-queue.ts), its title and labels, and its view state.
 *
 * Over 300 lines: it is the one place every ThreadMsg lands (`update`), where a send, the tools its
 * reply asks for and what the user queued meanwhile meet the runner's status. The jobs it hands
 * out live beside it (tool-runs.ts, turn-code.ts, send-queue.ts), and so do its pure rules
 * (titles.ts, labels.ts, prompts.ts).
 */
import { readContextBlock } from "../context/blocks.ts";
import { contextBlocks } from "../context/follow.ts";
import type { AgentStatus } from "../core/agent.ts";
import type { CodeRecorder, ThreadMark } from "../core/code-marks.ts";
import type { CodeNote } from "../core/graft-note.ts";
import type { History } from "../core/history.ts";
import type { ThreadId } from "../core/ids.ts";
import type { ToolResultBlock, ToolUseBlock, UserBlock } from "../core/native.ts";
import type { SideRequest } from "../core/side-request.ts";
import type { Environment } from "../tools/environment.ts";
import type { ToolOutcome } from "../tools/source.ts";
import { rewoundRequests } from "../usage/side.ts";
import { assertUnreachable } from "../util/assert-unreachable.ts";
import { type Labels, NO_LABELS, withinHistory, withLabel } from "./labels.ts";
import type { ThreadMsg, ThreadOrigin } from "./msgs.ts";
import { codeNotesText, type QueuedReport, reportBlock } from "./prompts.ts";
import { drive, type Runner, type ThreadStatus } from "./runner.ts";
import { mergedContext, type SendMsg, SendQueue, sendBlocks } from "./send-queue.ts";
import { cleanTitle, type TitledBy, titleFrom } from "./titles.ts";
import { type ToolRun, type ToolRunContext, ToolRuns } from "./tool-runs.ts";
import { TurnCode } from "./turn-code.ts";

export type { QueuedReport } from "./prompts.ts";
export type { ThreadStatus } from "./runner.ts";
export { cleanTitle, forkTitle, TITLE_MAX_CHARS, type TitledBy, titleFrom } from "./titles.ts";
export type { ToolRun } from "./tool-runs.ts";

export type ThreadContext = ToolRunContext & {
  /** Carries out a fork tool (enter_fork, exit_fork, …) for this thread; its result is the tool's. */
  readonly forkTool?: (thread: Thread, use: ToolUseBlock) => ToolOutcome;
  /** The thread changed (its version went up): the chat notes it, so work after a batch covers only what changed. */
  readonly changed?: (id: ThreadId) => void;
  /** Takes the code snapshots of its turns (before its tools run, when a turn that ran tools ends). */
  readonly code: CodeRecorder;
};

export class Thread {
  /** The runs of the tools the last reply asked for (tool-runs.ts). */
  private readonly runs: ToolRuns;
  /** Keys (`message:block`) of details the user expanded in the display buffer. */
  readonly expanded = new Set<string>();
  /** Bumped on every change the view must show; lets the view skip unchanged threads. */
  version = 0;
  /** Reports of forks, shown at once and sent with the next user turn. Replaced, never mutated. */
  reports: readonly QueuedReport[] = [];
  /** Forks' changes grafted into its files and hunks of its turns reviewed since its last user turn (the transcript's `grafts`), told with the next one (after the user's text). Replaced, never mutated. */
  grafts: readonly CodeNote[] = [];
  /** What the user sent while the agent worked; a fork starts with none (the queue is this thread's). */
  readonly queue = new SendQueue();
  /** The code snapshots of its turns (turn-code.ts). */
  private readonly turnCode: TurnCode;
  /** Diffs of changed files shown under replies, by detail key. */
  readonly fileDiffs = new Map<string, readonly string[]>();
  /** The user's labels on it and its messages (`L`). Replaced, never mutated. */
  labels: Labels = NO_LABELS;
  /** Requests it was billed for beside its history's entries (usage/side.ts); a fork starts with none. Only grows, replaced. */
  side: readonly SideRequest[] = [];

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
    this.turnCode = new TurnCode(id, context.code, () => this.runner.history);
    const { forkTool } = context;
    this.runs = new ToolRuns({
      id,
      context,
      forkTool: forkTool ? (use) => forkTool(this, use) : null,
      // All results go back in one user message, then what the user sent with `@now`.
      allDone: (results) => drive(this.runner, "answer its tools").send([...results, ...this.blocksOf(this.queue.takeForToolResults())]),
    });
  }

  /** Tool runs of the last assistant message, in its tool_use order. Replaced, never mutated. */
  get toolRuns(): readonly ToolRun[] {
    return this.runs.all;
  }

  set toolRuns(runs: readonly ToolRun[]) {
    this.runs.all = runs;
  }

  /** The code snapshots its messages were made on (see core/code-marks.ts); forks share their source's. Replaced, never mutated. */
  get code(): readonly ThreadMark[] {
    return this.turnCode.marks;
  }

  set code(marks: readonly ThreadMark[]) {
    this.turnCode.marks = marks;
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

  /** A fork's change grafted into its files, or a hunk of its turn reviewed (the chat's `code-noted`): noted in its display, told with its next message. */
  codeNoted(note: CodeNote): void {
    this.grafts = [...this.grafts, note];
    this.version++;
    this.context.changed?.(this.id);
  }

  /** `:Tine restore undo` took the graft or hunk undo `note` back (the chat's `code-note-undone`): its line says so, and the model is not told of it. */
  codeNoteUndone(note: CodeNote): void {
    if (!this.grafts.includes(note)) return;
    this.grafts = this.grafts.map((g) => (g === note ? { ...g, undone: true as const } : g));
    this.version++;
    this.context.changed?.(this.id);
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
    this.runs.approvalsFrom(source.runs);
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

  /** What a fork taken now knows of this turn's tools (ToolRuns.forkResults). */
  forkResults(): ReadonlyMap<string, ToolResultBlock> {
    return this.runs.forkResults();
  }

  /** Calls of the last reply whose tool began to run and has not finished (the store notes them: a cut session may have left them half done). */
  startedTools(): ReadonlySet<string> {
    return this.runs.startedTools();
  }

  /** Results of tools that have finished, for a fork taken while the others still run. */
  finishedResults(): ReadonlyMap<string, ToolResultBlock> {
    return this.runs.finishedResults();
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
        drive(this.runner, "retry it").retry();
        return;
      case "answer":
        this.turnStarts();
        drive(this.runner, "answer it").answer();
        return;
      case "rewind": {
        const conversation = drive(this.runner, "rewind it");
        this.runs.stopAll();
        // The requests rewound out of the history were billed: they stay counted (the @handoff request).
        this.side = [...this.side, ...rewoundRequests(this.runner.history, msg.history)];
        this.turnCode.rewound();
        conversation.rewind(msg.history);
        return;
      }
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
        this.turnCode.taken(msg.at, msg.purpose, msg.mark);
        // The calls waiting for the snapshot before them start.
        if (msg.purpose === "tools") this.runs.snapshotTaken(msg.at);
        return;
      case "file-diff":
        this.fileDiffs.set(msg.key, msg.lines);
        return;
      case "tool-decision":
        this.runs.decide(msg);
        return;
      case "tool-done":
        this.runs.done(msg.toolUseId, msg.outcome);
        return;
      case "abort":
        this.runs.stopAll();
        // A program driven in its own terminal is stopped there.
        this.runner.conversation?.abort();
        return;
      case "choose-model":
        drive(this.runner, "choose its model").chooseModel(msg.choice);
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
   * Queued fork reports go first, each a block of its own, then the sends, each its own blocks,
   * then the note of what was grafted into its files or reviewed, as one user message. After an error the
   * failed turn is replaced, not joined (the host gave its text back to the input).
   */
  private sendUserTurn(sends: readonly SendMsg[]): void {
    const blocks = this.blocksOf(sends);
    if (!blocks.length) return;
    blocks.unshift(...this.reports.map((r) => ({ type: "text" as const, text: reportBlock(r) })));
    this.reports = [];
    const grafts = this.grafts.filter((g) => !g.undone);
    if (grafts.length) blocks.push({ type: "text", text: codeNotesText(grafts) });
    this.grafts = [];
    this.turnStarts();
    const { conversation, surface } = this.runner;
    if (conversation === null && surface.type === "terminal") surface.input(textOf(blocks));
    else if (this.runner.status.type === "error") drive(this.runner, "send to it").replaceFailed(blocks);
    else drive(this.runner, "send to it").send(blocks);
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
    if (ended) this.turnCode.turnEnded();
    if (status.type === "error") this.queue.hold("failed");
    if (status.type !== "stopped") return;
    if (status.stopReason === "aborted") this.queue.hold("aborted");
    else if (status.stopReason === "tool_use") this.startTools();
    const now = this.runner.status;
    if (this.queue.length && now.type === "stopped" && now.stopReason !== "aborted" && this.toolRuns.length === 0)
      this.sendUserTurn(this.queue.takeAtTurnEnd());
  }

  /** A turn starts; one of a program that runs its own tools (an ACP agent) waits for the files recorded first. */
  private turnStarts(): void {
    this.turnCode.turnStarts();
    this.runner.recordBeforeTurn?.(this.turnCode.recordedBeforeTurn());
  }

  private startTools(): void {
    const last = this.runner.history.last()?.message;
    if (last?.role !== "assistant") return;
    const uses = last.content.filter((b): b is ToolUseBlock => b.type === "tool_use");
    // The files are recorded before any of these calls can change them (approved ones wait for it).
    this.runs.begin(uses, this.runner.history.length);
    this.turnCode.beforeTools();
  }
}

/** The text of a user turn's blocks, for a program that is typed to (a terminal's). */
function textOf(blocks: readonly UserBlock[]): string {
  return blocks.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
}
