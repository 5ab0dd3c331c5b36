/**
 * The runs of the tools one reply of a thread's agent asked for: which wait for the user's
 * approval (and the tools approved for the rest of the thread), which run and how they are
 * aborted, which wait for the code snapshot taken before them, and their results, all sent back
 * in one message once every call has one. The thread (thread.ts) owns one and tells it when a
 * reply asked for tools, what the user decided, and when that snapshot was taken.
 */

import type { ThreadId } from "../core/ids.ts";
import type { ToolResultBlock, ToolUseBlock } from "../core/native.ts";
import type { Environment } from "../tools/environment.ts";
import { isForkTool } from "../tools/fork-specs.ts";
import type { ToolOutcome, ToolSources } from "../tools/source.ts";
import type { Dispatch, ThreadMsg } from "./msgs.ts";
import { deniedText, STILL_RUNNING_WHEN_FORKED } from "./prompts.ts";

export type ToolRun = {
  readonly use: ToolUseBlock;
  readonly state: "awaiting-approval" | "running" | "done";
  readonly outcome?: ToolOutcome;
  /**
   * Why the call leaves its thread's confinement (an unattended fork's sandbox: tools/approval.ts),
   * said with its approval; approved, it runs where the confinement's approved calls run. Absent: it stays inside.
   */
  readonly leaves?: string;
};

/** The part of a thread's context (thread.ts's `ThreadContext`) its tool runs act through. */
export type ToolRunContext = {
  readonly dispatch: Dispatch;
  /** Where its tools act: their folder, files and shell. */
  readonly environment: Environment;
  /** The tools it may call (built-in, MCP): whether a call waits for approval, and how it runs. */
  readonly tools: ToolSources;
  /** A tool wrote this file (absolute path): buffers holding it are reloaded. */
  readonly fileWritten: (path: string) => void;
};

/** What the runs act through: the thread's services, its fork tools, and where the results go. */
export type ToolRunsOf = {
  readonly id: ThreadId;
  readonly context: ToolRunContext;
  /** Carries out a fork tool (enter_fork, exit_fork, …) of the thread; its result is the tool's. Null: none here. */
  readonly forkTool: ((use: ToolUseBlock) => ToolOutcome) | null;
  /** Every call has its result: they go back to the agent, in tool_use order. */
  readonly allDone: (results: ToolResultBlock[]) => void;
};

export class ToolRuns {
  /** Tool runs of the last assistant message, in its tool_use order. Replaced, never mutated. */
  all: readonly ToolRun[] = [];
  private readonly controllers = new Map<string, AbortController>();
  /** While the snapshot before a batch of tools is taken: that batch (by message count) and the calls that start once it is. */
  private codeWait: { at: number; ids: string[] } | null = null;
  /**
   * Tools the user approved for the rest of this thread (`A`): their calls run without asking. A
   * fork starts with a copy of its source's (`approvalsFrom`); nothing goes back, or to a sibling.
   */
  private readonly approvedTools = new Set<string>();

  constructor(private readonly of: ToolRunsOf) {}

  /** A fork taken now trusts what its source trusted until now (a copy: later approvals stay on their side). */
  approvalsFrom(source: ToolRuns): void {
    for (const name of source.approvedTools) this.approvedTools.add(name);
  }

  /**
   * What a fork taken now knows of this turn's tools: the results of those that finished, and for
   * those still running (approved, not done) that they were running; the rest get the clean-up
   * rule's "forked before the tool could execute".
   */
  forkResults(): ReadonlyMap<string, ToolResultBlock> {
    if (this.all.length === 0) return NO_RESULTS;
    const out = new Map(this.finishedResults());
    for (const run of this.all) {
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
    if (this.all.length === 0) return NO_RESULTS;
    const out = new Map<string, ToolResultBlock>();
    for (const run of this.all) if (run.outcome) out.set(run.use.id, toResult(run.use.id, run.outcome));
    return out;
  }

  /**
   * The reply at `at` messages asked for `uses`. Their calls start once the snapshot asked for at
   * `at` is taken (`snapshotTaken`): the files are recorded before any of them can change them.
   */
  begin(uses: readonly ToolUseBlock[], at: number): void {
    const { tools, environment } = this.of.context;
    const approvals = uses.map((use) => tools.needsApproval(use.name, use.input, environment));
    this.all = uses.map((use, i) => {
      const approval = approvals[i]!;
      return { use, state: "awaiting-approval" as const, ...(typeof approval === "object" ? { leaves: approval.leaves } : {}) };
    });
    this.codeWait = { at, ids: [] };
    // Tools that need no approval start at once, all concurrently; a call without its tool's
    // fields is answered as invalid at once (nobody is asked to approve what cannot run).
    this.all.forEach((run, i) => {
      const problem = isForkTool(run.use.name) ? null : tools.inputProblem(run.use.name, run.use.input);
      if (problem) this.answerAtOnce(run, { text: problem, isError: true });
      else if (isForkTool(run.use.name) || this.approvedTools.has(run.use.name) || !approvals[i]) this.start(run);
      // Waiting in a confined thread with no way out of its own: a tool that runs outside the sandbox (an MCP server's).
      else if (environment.confinement && run.leaves === undefined) this.replaceRun(run.use.id, { ...run, leaves: RUNS_OUTSIDE });
    });
  }

  /** The user approved or denied a call waiting for it. */
  decide(msg: Extract<ThreadMsg, { type: "tool-decision" }>): void {
    const run = this.all.find((r) => r.use.id === msg.toolUseId);
    if (run?.state !== "awaiting-approval") return;
    if (!msg.approved) {
      this.done(run.use.id, { text: deniedText(msg.reason), isError: true });
      return;
    }
    if (msg.always) {
      // For the rest of the thread: the other calls of this tool waiting now go too.
      this.approvedTools.add(run.use.name);
      for (const other of this.all) if (other.state === "awaiting-approval" && other.use.name === run.use.name) this.start(other);
    } else this.start(run);
  }

  /** The snapshot asked for before the batch at `at` messages was taken: the calls waiting for it start. */
  snapshotTaken(at: number): void {
    if (this.codeWait?.at !== at) return;
    const { ids } = this.codeWait;
    this.codeWait = null;
    for (const id of ids) {
      const run = this.all.find((r) => r.use.id === id);
      if (run?.state === "running") this.launch(run);
    }
  }

  /** Every run stops (an abort, a rewind): the running ones are aborted, and none is left. */
  stopAll(): void {
    for (const c of this.controllers.values()) c.abort();
    this.controllers.clear();
    this.all = [];
    this.codeWait = null;
  }

  /** Call `toolUseId` has its outcome; once every call has one, they all go back to the agent. */
  done(toolUseId: string, outcome: ToolOutcome): void {
    const run = this.all.find((r) => r.use.id === toolUseId);
    if (!run) return; // aborted meanwhile
    const { context } = this.of;
    const path = (run.use.input as { path?: unknown } | null)?.path;
    if (run.use.name === "edit_file" && !outcome.isError && typeof path === "string") {
      context.fileWritten(context.environment.resolve(path));
    }
    this.controllers.delete(toolUseId);
    this.replaceRun(toolUseId, { ...run, state: "done", outcome });
    if (this.all.every((r) => r.state === "done")) {
      const results = this.all.map((r) => toResult(r.use.id, r.outcome!));
      this.all = [];
      this.of.allDone(results);
    }
  }

  private start(run: ToolRun): void {
    if (isForkTool(run.use.name) && this.of.forkTool) {
      // Acts on the tree, at once.
      this.answerAtOnce(run, this.of.forkTool(run.use));
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
    const { id, context } = this.of;
    queueMicrotask(() => context.dispatch({ type: "thread-msg", id, msg: { type: "tool-done", toolUseId: run.use.id, outcome } }));
  }

  private launch(run: ToolRun): void {
    const controller = new AbortController();
    this.controllers.set(run.use.id, controller);
    const { id, context } = this.of;
    const { dispatch, tools } = context;
    void tools.run(run.use.name, run.use.input, this.whereRuns(run), controller.signal, { thread: id }).then((outcome) => {
      if (!controller.signal.aborted) dispatch({ type: "thread-msg", id, msg: { type: "tool-done", toolUseId: run.use.id, outcome } });
    });
  }

  /**
   * Where a call runs: in the thread's environment; a call of a confined thread (an unattended
   * fork) that leaves its confinement ran only once the user approved it, and runs where the
   * confinement says an approved one does (tools/environment.ts, Confinement). (An MCP call waits
   * too, but runs in its server, whatever this says.)
   */
  private whereRuns(run: ToolRun): Environment {
    const { environment } = this.of.context;
    return run.leaves !== undefined && environment.confinement ? environment.confinement.approved : environment;
  }

  private replaceRun(id: string, run: ToolRun): void {
    this.all = this.all.map((r) => (r.use.id === id ? run : r));
  }
}

const RUNS_OUTSIDE = "its tool runs outside the sandbox (an MCP server's)";

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
