/**
 * Chat owns the threads and their tree: the live ones and the ones known from disk but not
 * loaded. Forks are handled here, inside the dispatch loop: the source agent is cloned (in
 * whatever state it is) and never written to. Chat never touches files; the host reads the store
 * and dispatches what it found.
 */
import { randomUUID } from "node:crypto";
import type { AgentMsg } from "../providers/agent.ts";
import type { History } from "../providers/history.ts";
import type { Environment } from "../tools/environment.ts";
import { isForkTool } from "../tools/fork-specs.ts";
import { assertUnreachable } from "../util/assert-unreachable.ts";
import { endsAFork, parseForkTool } from "./fork-tools.ts";
import { type ForkEffect, ForkLives } from "./forks.ts";
import type { ChatMsg, Dispatch, ForkEnd, ForkRequest, RootMsg, StoredThread, ThreadId } from "./msgs.ts";
import { handoffPrompt, type QueuedReport, SUMMARY_PROMPT, wrapUpPrompt } from "./prompts.ts";
import type { Runners } from "./runner.ts";
import { Thread, type ThreadContext } from "./thread.ts";
import { ForkTree } from "./tree.ts";

export type { Lineage } from "./tree.ts";

/** The text of a thread's last assistant message: what a fork reports. */
function lastReply(thread: Thread): string {
  const history = thread.runner.history;
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history.at(i).message;
    if (m.role !== "assistant") continue;
    const text = m.content
      .flatMap((b) => (b.type === "text" ? [b.text] : []))
      .join("\n")
      .trim();
    if (text) return text;
  }
  return "(the fork ended without a reply)";
}

export type CreatedHow = {
  forkOf?: ThreadId;
  prefill?: string;
  loaded?: boolean;
  /** No window: a background fork, or a branch made by a promote. */
  background?: boolean;
};

/** What the UI and the store do when threads appear and go; Chat only says so. */
export type ChatEvents = {
  threadCreated(thread: Thread, how: CreatedHow): void;
  threadDeleted(id: ThreadId): void;
  /** A fork ended (it is still whole here, then goes); `into`: the thread that took its history. */
  forkEnded(fork: Thread, how: ForkEnd, into?: ThreadId): void;
  /** A promote moved the parent's old tail to `siblingId`: forks taken from it after `atMessage` follow. */
  branched(parentId: ThreadId, siblingId: ThreadId, atMessage: number): void;
  /** A report for a parent that is stored and not loaded: it is written to the parent's log. */
  reportToStored(parentId: ThreadId, report: QueuedReport): void;
};

type AfterTurn =
  | { readonly type: "enter"; readonly topic: string; readonly idleTimeoutMs?: number }
  | { readonly type: "discard" }
  | { readonly type: "promote" }
  | { readonly type: "report"; readonly text: string };

/** What the host gives every thread; `environmentFor` says where a thread's tools act. */
export type ThreadServices = Omit<ThreadContext, "dispatch" | "environment" | "forkTool"> & {
  environmentFor(id: ThreadId): Environment;
};

export type ChatClock = {
  now(): number;
  /** Idle time before a fork is asked to wrap up (and again before it reports and ends). */
  readonly forkIdleTimeoutMs: number;
};

export class Chat {
  readonly threads = new Map<ThreadId, Thread>();
  /** Threads on disk that are not loaded. */
  readonly stored = new Map<ThreadId, StoredThread>();
  /** Parents of forks, live or stored. */
  readonly lineage = new ForkTree();
  /** Forks waiting for their source (the key) to come to rest; at most one per source. */
  readonly waitingForks = new Map<ThreadId, ForkRequest>();
  /** Live forks' lifecycle: idle clocks, reports, background runs. */
  readonly forks = new ForkLives();
  /** Forks asked to report while busy: asked for their summary once at rest. */
  private readonly summaryWhenAtRest = new Set<ThreadId>();
  /** What an agent's fork tool asked for, done when its response ends. */
  private readonly afterTurn = new Map<ThreadId, AfterTurn>();
  /** Threads asked to hand off (@handoff): the history they return to. */
  private readonly handoffs = new Map<ThreadId, History>();
  activeId: ThreadId | null = null;
  private readonly seenStatus = new Map<ThreadId, string>();
  private readonly seenAtRest = new Map<ThreadId, boolean>();
  /** Bumped when threads, lineage or the active thread change (the thread list redraws). */
  version = 0;

  constructor(
    private readonly dispatch: Dispatch,
    /** Makes every thread's runner: the chat builds none itself. */
    private readonly runners: Runners,
    private readonly context: ThreadServices,
    private readonly events: ChatEvents,
    private readonly clock: ChatClock = { now: () => Date.now(), forkIdleTimeoutMs: 10 * 60_000 },
  ) {}

  get active(): Thread | undefined {
    return this.activeId === null ? undefined : this.threads.get(this.activeId);
  }

  has(id: ThreadId): boolean {
    return this.threads.has(id) || this.stored.has(id);
  }

  titleOf(id: ThreadId): string | undefined {
    return this.threads.get(id)?.title ?? this.stored.get(id)?.title;
  }

  /** Children in the order they were forked. */
  childrenOf(id: ThreadId): ThreadId[] {
    return this.lineage.childrenOf(id).filter((child) => this.has(child));
  }

  /** The highest display number in use (new threads take the next). */
  maxNum(): number {
    let max = 0;
    for (const t of this.threads.values()) max = Math.max(max, t.num);
    for (const t of this.stored.values()) max = Math.max(max, t.num);
    for (const f of this.waitingForks.values()) max = Math.max(max, f.num);
    return max;
  }

  update(msg: RootMsg): void {
    if (msg.type === "thread-msg") {
      const thread = this.threads.get(msg.id);
      if (!thread) return;
      const title = thread.title;
      thread.update(msg.msg);
      const inner = msg.msg;
      const byUser = inner.type === "send" && !inner.auto;
      // A fork opened from disk gets its idle clock once it is used again (reading it starts none).
      const lineage = this.lineage.get(thread.id);
      if (byUser && lineage && !this.forks.get(thread.id) && thread.runner.traits.forkLifecycle) {
        this.forks.update({
          type: "started",
          id: thread.id,
          parentId: lineage.parentId,
          background: false,
          idleTimeoutMs: this.clock.forkIdleTimeoutMs,
          now: this.clock.now(),
        });
      }
      if (this.forks.get(thread.id)) {
        if (byUser || inner.type === "agent")
          this.forks.update({ type: "activity", id: thread.id, by: byUser ? "user" : "agent", now: this.clock.now() });
      }
      // Compared with what was last seen, as agents change status before their message arrives.
      const wasAtRest = this.seenAtRest.get(thread.id) ?? true;
      this.seenAtRest.set(thread.id, thread.atRest);
      if (!wasAtRest && thread.atRest) this.cameToRest(thread);
      // Agents change status before their message is handled: compare with what was last seen.
      const status = thread.status + thread.runner.statusDetail();
      if (this.seenStatus.get(thread.id) !== status || title !== thread.title) {
        this.seenStatus.set(thread.id, status);
        this.version++;
      }
      return;
    }
    this.version++;
    const m: ChatMsg = msg.msg;
    switch (m.type) {
      case "new-thread": {
        const runner = this.runners.start(m.runner, this.agentDispatch(m.newId));
        const thread = new Thread(m.newId, m.num, m.title ?? `Thread ${m.num}`, runner, this.threadContext(m.newId), {
          autoTitle: m.title === undefined,
          origin: m.origin,
        });
        if (m.parentId === undefined) {
          this.add(thread, {});
          return;
        }
        // Continued elsewhere (an export): a child of the thread it came from, at its last message.
        const parent = this.threads.get(m.parentId);
        this.lineage.link(m.newId, { parentId: m.parentId, atMessage: Math.max(0, (parent?.runner.history.length ?? 1) - 1) });
        this.add(thread, { forkOf: m.parentId });
        return;
      }
      case "fork-thread":
        if (m.wait && this.threads.get(m.sourceId)?.atRest === false) this.waitingForks.set(m.sourceId, m);
        else this.fork(m);
        return;
      case "cancel-waiting-fork":
        this.waitingForks.delete(m.sourceId);
        return;
      case "select-thread":
        if (this.threads.has(m.id)) this.activeId = m.id;
        return;
      case "stored-found":
        for (const t of m.threads) {
          if (this.threads.has(t.id)) continue;
          this.stored.set(t.id, t);
          if (t.parentId) this.lineage.link(t.id, { parentId: t.parentId, atMessage: t.atMessage });
        }
        return;
      case "load-thread": {
        const stored = this.stored.get(m.id);
        if (!stored || this.threads.has(m.id)) return;
        this.stored.delete(m.id);
        const runner = this.runners.reopen(stored.runner, m.history, this.agentDispatch(m.id));
        const thread = new Thread(m.id, stored.num, stored.title, runner, this.threadContext(m.id), {
          autoTitle: false,
          readOnlyBy: m.readOnlyBy,
          created: stored.created,
        });
        thread.reports = m.reports;
        this.add(thread, { loaded: true });
        return;
      }
      case "rename-stored": {
        const stored = this.stored.get(m.id);
        if (stored) this.stored.set(m.id, { ...stored, title: m.title });
        return;
      }
      case "fork-discard":
        this.endFork(this.liveFork(m.id).id, "discarded");
        return;
      case "fork-promote":
        this.promote(m.id, m.siblingId, m.siblingNum);
        return;
      case "fork-report":
        this.report(m.id, m.text);
        return;
      case "fork-opened":
        this.forks.update({ type: "opened", id: m.id });
        return;
      case "clock-tick":
        this.applyForkEffects(this.forks.update({ type: "tick", now: m.now }));
        return;
      case "handoff": {
        const thread = this.threads.get(m.id);
        if (!thread) return;
        this.handoffs.set(thread.id, thread.runner.history);
        thread.update({ type: "send", text: handoffPrompt(m.goal), auto: true });
        return;
      }
      case "delete-thread":
        this.threads.get(m.id)?.update({ type: "abort" });
        this.threads.get(m.id)?.runner.close();
        this.threads.delete(m.id);
        this.stored.delete(m.id);
        this.waitingForks.delete(m.id);
        this.forks.update({ type: "ended", id: m.id });
        if (this.activeId === m.id) this.activeId = null;
        this.events.threadDeleted(m.id);
        return;
      default:
        assertUnreachable(m);
    }
  }

  /** An agent's fork tool: acts on the tree (now, or when its response ends); returns the tool's result. */
  forkTool(thread: Thread, use: { name: string; input: unknown }): { text: string; isError: boolean } {
    const refuse = (text: string) => ({ text, isError: true });
    if (!isForkTool(use.name)) return refuse(`Unknown tool: ${use.name}`);
    if (endsAFork(use.name) && !this.lineage.has(thread.id)) return refuse(`${use.name} works only in a fork, and this thread is not one.`);
    const parsed = parseForkTool(use.name, use.input);
    if (!parsed.ok) return refuse(parsed.error);
    const ok = (text: string) => ({ text, isError: false });
    const call = parsed.call;
    switch (call.tool) {
      case "enter_fork":
        this.afterTurn.set(thread.id, { type: "enter", topic: call.topic, idleTimeoutMs: call.idleTimeoutMs });
        return ok(`A fork of this thread opens when this response ends${call.topic ? ", with the topic as its first message" : ""}.`);
      case "exit_fork":
        this.afterTurn.set(thread.id, { type: "discard" });
        return ok("This fork is discarded when this response ends.");
      case "save_context":
        this.afterTurn.set(thread.id, { type: "promote" });
        return ok("This fork is promoted into the thread it came from when this response ends.");
      case "report_updates":
        this.afterTurn.set(thread.id, { type: "report", text: call.message });
        return ok("The report goes to the thread this fork came from when this response ends; then this fork ends.");
      case "fork_thread": {
        const base = this.handoffs.get(thread.id);
        if (!base) return refuse("fork_thread is for hand-offs the user asks for (@handoff); none was asked.");
        this.handoffs.delete(thread.id);
        this.handOff(thread, base, call.prompt);
        return ok("Handed off.");
      }
      default:
        return assertUnreachable(call);
    }
  }

  /**
   * A fresh thread with the hand-off prompt in its input (linked under the source in the tree);
   * the source goes back to the history its @handoff request started from.
   */
  private handOff(source: Thread, base: History, prompt: string): void {
    const id = randomUUID();
    const thread = new Thread(
      id,
      this.maxNum() + 1,
      `${source.title} → hand-off`,
      this.runners.start({ kind: "api" }, this.agentDispatch(id)),
      this.threadContext(id),
      { autoTitle: false },
    );
    this.lineage.link(id, { parentId: source.id, atMessage: Math.max(0, base.length - 1) });
    this.add(thread, { forkOf: source.id, prefill: prompt });
    // After the message being handled: the tool run that got us here is dropped with the turn.
    this.dispatch({ type: "thread-msg", id: source.id, msg: { type: "rewind", history: base } });
  }

  /** A thread's reply finished and its tools are answered: what waited for that happens now. */
  private cameToRest(thread: Thread): void {
    const base = this.handoffs.get(thread.id);
    if (base) {
      // The agent ended (or failed, or was aborted) without handing off: back to how it was.
      this.handoffs.delete(thread.id);
      thread.update({ type: "rewind", history: base });
      return;
    }
    const after = this.afterTurn.get(thread.id);
    if (after) {
      this.afterTurn.delete(thread.id);
      this.version++;
      switch (after.type) {
        case "enter":
          this.fork({
            sourceId: thread.id,
            newId: randomUUID(),
            num: this.maxNum() + 1,
            prompt: after.topic,
            idleTimeoutMs: after.idleTimeoutMs,
          });
          return;
        case "discard":
          this.endFork(thread.id, "discarded");
          return;
        case "promote":
          this.promote(thread.id, randomUUID(), this.maxNum() + 1);
          return;
        case "report":
          this.queueReport(thread, after.text);
          this.endFork(thread.id, "reported");
          return;
        default:
          assertUnreachable(after);
      }
    }
    const waiting = this.waitingForks.get(thread.id);
    if (waiting) {
      this.waitingForks.delete(thread.id);
      this.version++;
      this.fork(waiting);
    }
    if (this.summaryWhenAtRest.delete(thread.id)) {
      this.askSummary(thread);
      return;
    }
    if (this.forks.get(thread.id)) this.applyForkEffects(this.forks.update({ type: "turn-ended", id: thread.id, now: this.clock.now() }));
  }

  private liveFork(id: ThreadId): Thread {
    const thread = this.threads.get(id);
    if (!thread) throw new Error(`tine: thread ${id} is not open`);
    if (!this.lineage.has(id)) throw new Error(`tine: ${thread.title} is not a fork`);
    if (thread.runner.traits.endBlocker) throw new Error(thread.runner.traits.endBlocker);
    return thread;
  }

  private applyForkEffects(effects: ForkEffect[]): void {
    for (const e of effects) {
      const thread = this.threads.get(e.id);
      if (!thread) continue;
      this.version++;
      switch (e.type) {
        case "wrap-up":
          // A fork waiting on an approval cannot take a prompt; its second period still runs.
          if (thread.atRest)
            thread.update({
              type: "send",
              text: wrapUpPrompt(Math.round((this.clock.forkIdleTimeoutMs / 60_000) * 100) / 100),
              auto: true,
            });
          break;
        case "ask-summary":
          if (thread.atRest) thread.update({ type: "send", text: SUMMARY_PROMPT, auto: true });
          break;
        case "report":
          this.reportAndEnd(thread);
          break;
        default:
          assertUnreachable(e);
      }
    }
  }

  /** Without text the fork is asked for its summary first (now, or once its turn ends). */
  private report(id: ThreadId, text: string | undefined): void {
    const fork = this.liveFork(id);
    if (text?.trim()) {
      this.queueReport(fork, text);
      this.endFork(fork.id, "reported");
      return;
    }
    if (fork.atRest) this.askSummary(fork);
    else this.summaryWhenAtRest.add(fork.id);
  }

  private askSummary(fork: Thread): void {
    this.forks.update({ type: "report-requested", id: fork.id, now: this.clock.now() });
    fork.update({ type: "send", text: SUMMARY_PROMPT, auto: true });
  }

  private reportAndEnd(fork: Thread): void {
    this.queueReport(fork, lastReply(fork));
    this.endFork(fork.id, "reported");
  }

  private queueReport(fork: Thread, text: string): void {
    const parentId = this.lineage.get(fork.id)!.parentId;
    const report: QueuedReport = { from: fork.title, text };
    const parent = this.threads.get(parentId);
    if (parent) parent.update({ type: "queue-report", report });
    else if (this.stored.has(parentId)) this.events.reportToStored(parentId, report);
  }

  /** The fork goes from the tree (its file stays, marked how it ended). */
  private endFork(id: ThreadId, how: ForkEnd, into?: ThreadId): void {
    const thread = this.threads.get(id);
    if (!thread) return;
    if (!thread.atRest) thread.update({ type: "abort" });
    const parentId = this.lineage.get(id)?.parentId;
    this.events.forkEnded(thread, how, into);
    thread.runner.close();
    this.threads.delete(id);
    this.waitingForks.delete(id);
    this.summaryWhenAtRest.delete(id);
    this.forks.update({ type: "ended", id });
    if (this.activeId === id) this.activeId = into ?? (parentId && this.threads.has(parentId) ? parentId : null);
    this.version++;
  }

  /**
   * The parent takes over the fork's history; what the parent had after the fork point becomes a
   * new fork of it at that point, so nothing is lost. The fork's own forks follow its history to
   * the parent; the parent's forks taken after the fork point follow the old tail.
   */
  private promote(id: ThreadId, siblingId: ThreadId, siblingNum: number): void {
    const fork = this.liveFork(id);
    const lineage = this.lineage.get(id)!;
    const parent = this.threads.get(lineage.parentId);
    if (!parent) throw new Error("tine: open the parent thread before promoting into it");
    if (!fork.atRest || !parent.atRest)
      throw new Error("tine: promote waits for both the fork and its parent to finish their turn (or abort them)");
    const oldTail = parent.runner.history;
    const hasTail = oldTail.length > lineage.atMessage + 1;
    const k = this.lineage.nextOrdinal(parent.id);
    // The tree first: the sibling is linked under the parent, the forks around it move.
    this.lineage.promote(id, hasTail ? siblingId : null);
    if (hasTail) {
      const sibling = new Thread(
        siblingId,
        siblingNum,
        `${parent.title} ⑂${k}`,
        this.runners.reopen(parent.runner.spec, oldTail, this.agentDispatch(siblingId)),
        this.threadContext(siblingId),
        { autoTitle: false },
      );
      // Made before the parent changes, so its stored pointer holds the parent as it was.
      this.threads.set(siblingId, sibling);
      this.events.threadCreated(sibling, { forkOf: parent.id, background: true });
      // The parent's forks taken after the fork point go with the old tail (in the store too).
      this.events.branched(parent.id, siblingId, lineage.atMessage);
    }
    parent.runner.close();
    parent.runner = this.runners.reopen(fork.runner.spec, fork.runner.history, this.agentDispatch(parent.id));
    parent.version++;
    this.endFork(id, "promoted", parent.id);
    this.activeId = parent.id;
  }

  private fork(request: ForkRequest): void {
    const live = this.threads.get(request.sourceId);
    const stored = this.stored.get(request.sourceId);
    // A stored source is cloned without loading it: a throwaway runner holds its history.
    const source = live?.runner ?? (stored && request.storedSource && this.runners.reopen(stored.runner, request.storedSource, () => {}));
    const sourceTitle = live?.title ?? stored?.title;
    if (!source || sourceTitle === undefined) throw new Error(`no thread ${request.sourceId}`);
    const runner = source.clone(this.agentDispatch(request.newId), {
      knownResults: live?.forkResults(),
      atMessage: request.atMessage,
    });
    // Every fork ever listed counts, so a deleted fork's number is not given again.
    const ordinal = this.lineage.nextOrdinal(request.sourceId);
    const thread = new Thread(request.newId, request.num, `${sourceTitle} ⑂${ordinal}`, runner, this.threadContext(request.newId), {
      autoTitle: false,
    });
    const sourceLength = source.history.length;
    this.lineage.link(thread.id, {
      parentId: request.sourceId,
      atMessage: Math.max(0, Math.min(request.atMessage ?? sourceLength - 1, sourceLength - 1)),
    });
    if (runner.traits.forkLifecycle) {
      this.forks.update({
        type: "started",
        id: thread.id,
        parentId: request.sourceId,
        background: request.background === true,
        idleTimeoutMs: request.idleTimeoutMs ?? this.clock.forkIdleTimeoutMs,
        now: this.clock.now(),
      });
    }
    // Sent before the thread is announced, so its buffers (and a terminal's first input) start with it.
    if (request.prompt) thread.update({ type: "send", text: request.prompt });
    this.add(thread, { forkOf: request.sourceId, prefill: request.prefill, background: request.background === true });
    if (request.background) this.activeId = request.sourceId;
  }

  private add(thread: Thread, how: CreatedHow): void {
    this.threads.set(thread.id, thread);
    this.activeId = thread.id;
    this.events.threadCreated(thread, how);
  }

  private agentDispatch(id: ThreadId) {
    return (msg: AgentMsg) => this.dispatch({ type: "thread-msg", id, msg: { type: "agent", msg } });
  }

  private threadContext(id: ThreadId): ThreadContext {
    const { environmentFor, ...services } = this.context;
    return { ...services, environment: environmentFor(id), dispatch: this.dispatch, forkTool: (thread, use) => this.forkTool(thread, use) };
  }
}
