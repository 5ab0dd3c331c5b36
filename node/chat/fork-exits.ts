/**
 * Forks that come back: how a fork ends (discard, promote, report, asked for a summary first),
 * what the agent's fork tools and `@handoff` ask for when a response ends, and what the forks'
 * idle clocks (forks.ts) make happen. It acts on the chat's threads and tree through `ChatTree`,
 * the part of the chat it may change; the chat routes its messages here. A fork whose runner's
 * program keeps its conversation (Claude Code) ends by its code only (`endBlocker`, `promote`).
 *
 * Over 300 lines: it is the one place a fork's end is decided and carried out, whoever asks (the
 * user, the agent's tools when its response ends, the idle clocks), and every way shares the waits
 * kept here (a summary asked for while it works, a report waiting for its code's summary, what a
 * tool asked for at the turn's end), so that a fork ends once, and the way it was asked to.
 */

import type { History } from "../core/history.ts";
import type { ThreadId } from "../core/ids.ts";
import { isForkTool } from "../tools/fork-specs.ts";
import { assertUnreachable } from "../util/assert-unreachable.ts";
import type { ChatTree } from "./chat-tree.ts";
import { endsAFork, parseForkTool } from "./fork-tools.ts";
import type { ForkEffect } from "./forks.ts";
import type { ForkEnd } from "./msgs.ts";
import { threadName } from "./names.ts";
import { capReport, enterForkRefused, handoffPrompt, lastReply, type QueuedReport, SUMMARY_PROMPT, wrapUpPrompt } from "./prompts.ts";
import type { Runner } from "./runner.ts";
import { forkTitle, type Thread } from "./thread.ts";
import type { Relation } from "./tree.ts";

export type { ChatTree } from "./chat-tree.ts";

/**
 * A thread of its own (a hand-off, a compaction) made under `sourceId`, linked there at message
 * `atMessage`, opened beside it and made active; `prefill`: its input's text.
 */
export function linkedThread(
  chat: ChatTree,
  sourceId: ThreadId,
  made: { id: ThreadId; num: number; title: string; runner: Runner },
  atMessage: number,
  relation: Exclude<Relation, "fork">,
  prefill?: string,
): Thread {
  // Linked first: the host's services for the new thread (where it works) follow its source.
  chat.lineage.link(made.id, { parentId: sourceId, atMessage: Math.max(0, atMessage), relation });
  const thread = chat.makeThread(made.id, made.num, made.title, made.runner);
  chat.add(thread, { under: sourceId, ...(prefill === undefined ? {} : { prefill }) }, true);
  return thread;
}

/** Why a turn asked for a hand-off ended without one (`base`: the history before it), for the user. */
function handoffMissed(thread: Thread, base: History): string {
  const status = thread.runner.status;
  if (status.type === "error") return `the request failed (${status.message})`;
  if (status.type === "stopped" && status.stopReason === "aborted") return "it was aborted";
  const tools = new Set<string>();
  for (const e of thread.runner.history.entries(base.length))
    if (e.message.role === "assistant") for (const b of e.message.content) if (b.type === "tool_use") tools.add(b.name);
  const ran = [...tools].filter((name) => name !== "fork_thread");
  return ran.length
    ? `the model ran ${ran.join(", ")} instead and ended its turn without calling fork_thread`
    : "the model answered without calling fork_thread";
}

/** What an agent's fork tool asked for, done when its response ends. */
type AfterTurn =
  | { readonly type: "enter"; readonly topic: string; readonly idleTimeoutMs?: number }
  | { readonly type: "discard" }
  | { readonly type: "promote" }
  | { readonly type: "report"; readonly text: string };

export class ForkExits {
  /** Forks asked to report while busy: asked for their summary once at rest. */
  private readonly summaryWhenAtRest = new Set<ThreadId>();
  private readonly afterTurn = new Map<ThreadId, AfterTurn>();
  /** Threads asked to hand off (@handoff): the history they return to. */
  private readonly handoffs = new Map<ThreadId, History>();
  /** Forks in a worktree of their own whose report waits for the summary of their code: the report's text. */
  private readonly codeWait = new Map<ThreadId, string>();

  constructor(private readonly chat: ChatTree) {}

  /** An agent's fork tool: acts on the tree (now, or when its response ends); returns the tool's result. */
  forkTool(thread: Thread, use: { name: string; input: unknown }): { text: string; isError: boolean } {
    const refuse = (text: string) => ({ text, isError: true });
    if (!isForkTool(use.name)) return refuse(`Unknown tool: ${use.name}`);
    if (endsAFork(use.name) && this.chat.lineage.get(thread.id)?.relation !== "fork")
      return refuse(`${use.name} works only in a fork, and this thread is not one.`);
    const parsed = parseForkTool(use.name, use.input);
    if (!parsed.ok) return refuse(parsed.error);
    const ok = (text: string) => ({ text, isError: false });
    const call = parsed.call;
    switch (call.tool) {
      case "enter_fork": {
        // What the agent starts on its own is bounded (forks.ts): past that, it is told why.
        const bar = this.chat.forks.agentForkBar(thread.id, this.chat.limits.agentForkLimit);
        if (bar) return refuse(enterForkRefused(bar));
        this.afterTurn.set(thread.id, { type: "enter", topic: call.topic, idleTimeoutMs: call.idleTimeoutMs });
        const topic = call.topic ? ", with the topic as its first message" : "";
        return ok(`A fork of this thread opens when this response ends${topic}.${call.note}`);
      }
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

  /** `@handoff <goal>`: the agent is asked for a prompt; the thread then returns to how it is now. */
  askHandoff(thread: Thread, goal: string): void {
    this.handoffs.set(thread.id, thread.runner.history);
    thread.update({ type: "send", text: handoffPrompt(goal), auto: true });
  }

  /**
   * A fresh thread with the hand-off prompt in its input (linked under the source in the tree);
   * the source goes back to the history its @handoff request started from.
   */
  private handOff(source: Thread, base: History, prompt: string): void {
    const chat = this.chat;
    // Its id and number, and where it works (its source's folder), are the fork flow's (node/fork/).
    const { id, num } = chat.events.branch(source.id);
    const runner = chat.runners.start({ kind: "api" }, chat.agentDispatch(id));
    linkedThread(chat, source.id, { id, num, title: `${source.title} → hand-off`, runner }, base.length - 1, "handoff", prompt);
    // After the message being handled: the tool run that got us here is dropped with the turn.
    chat.dispatch({ type: "thread-msg", id: source.id, msg: { type: "rewind", history: base } });
  }

  /**
   * A thread's response ended and its tools are answered: what its fork tools or a hand-off asked
   * for happens now. True when that ended the turn's business (nothing else waits on it).
   */
  responseEnded(thread: Thread): boolean {
    const base = this.handoffs.get(thread.id);
    if (base) {
      // The agent ended (or failed, or was aborted) without handing off: back to how it was, and the user is told why.
      this.handoffs.delete(thread.id);
      const why = handoffMissed(thread, base);
      thread.update({ type: "rewind", history: base });
      this.chat.events.tell?.(`tine: ${thread.title} was not handed off: ${why}. The thread is back as it was before @handoff.`, true);
      return true;
    }
    const after = this.afterTurn.get(thread.id);
    if (!after) return false;
    this.afterTurn.delete(thread.id);
    this.chat.changed();
    switch (after.type) {
      case "enter":
        // When and where it is made is the fork flow's (node/fork/): now, in place, where its source works.
        this.chat.forkNow(this.chat.events.agentFork(thread.id, { prompt: after.topic, idleTimeoutMs: after.idleTimeoutMs }));
        return true;
      case "discard":
        this.end(thread.id, "discarded");
        return true;
      case "promote": {
        const branch = this.chat.mint();
        this.promote(thread.id, branch.id, branch.num);
        return true;
      }
      case "report":
        this.reportAndEnd(thread, after.text);
        return true;
      default:
        return assertUnreachable(after);
    }
  }

  /** A fork at rest: a summary asked for while it worked is asked now; its idle clock learns the turn ended. */
  atRest(thread: Thread): void {
    if (this.summaryWhenAtRest.delete(thread.id)) {
      this.askSummary(thread);
      return;
    }
    if (this.chat.forks.get(thread.id))
      this.apply(this.chat.forks.update({ type: "turn-ended", id: thread.id, now: this.chat.clock.now() }));
  }

  /** The idle clocks at `now`. */
  tick(now: number): void {
    this.apply(this.chat.forks.update({ type: "tick", now }));
  }

  discard(id: ThreadId): void {
    this.end(this.liveFork(id, "discarded").id, "discarded");
  }

  /** Without text the fork is asked for its summary first (now, or once its turn ends). */
  report(id: ThreadId, text: string | undefined): void {
    const fork = this.liveFork(id, "reported");
    if (this.codeWait.has(id)) throw new Error(`tine: ${fork.title} is reporting already (the summary of its code is being made)`);
    if (text?.trim()) {
      this.reportAndEnd(fork, text);
      return;
    }
    if (fork.atRest) this.askSummary(fork);
    else this.summaryWhenAtRest.add(fork.id);
  }

  /**
   * The parent takes over the fork's history; what the parent had after the fork point becomes a
   * new fork of it at that point, so nothing is lost. The fork's own forks follow its history to
   * the parent; the parent's forks taken after the fork point follow the old tail. A fork whose
   * program keeps its conversation (`ownConversation`) gives only its code (the host merges it):
   * the parent keeps its own conversation, the fork's forks stay where they hang, as on a discard.
   * A fork in a worktree of its own brings its code back first: the host merges it, then promotes
   * again (`codeMerged`); a merge that cannot be done leaves everything as it was.
   */
  promote(id: ThreadId, siblingId: ThreadId, siblingNum: number, codeMerged = false): void {
    const chat = this.chat;
    // The sibling's number was minted for the parent's old tail: without one (or refused), it is given again.
    const noSibling = () => chat.unmint({ id: siblingId, num: siblingNum });
    const { fork, lineage, parent } = this.promotable(id, noSibling);
    if (!codeMerged && chat.worksApart(id) && chat.events.mergeCode) {
      const again = { type: "fork-promote", id, siblingId, siblingNum, codeMerged: true } as const;
      chat.events.mergeCode(id, () => chat.dispatch({ type: "chat-msg", msg: again }));
      return;
    }
    if (fork.runner.traits.ownConversation !== null) {
      noSibling();
      this.end(id, "promoted");
      return;
    }
    const oldTail = parent.runner.history;
    const hasTail = oldTail.length > lineage.atMessage + 1;
    if (!hasTail) noSibling();
    // The tree first: the sibling is linked under the parent, the forks around it move.
    for (const moving of [...chat.lineage.childrenOf(id), ...chat.lineage.childrenOf(parent.id)]) chat.moved(moving);
    chat.lineage.promote(id, hasTail ? siblingId : null);
    if (hasTail) {
      const runner = chat.runners.reopen(parent.runner.spec, oldTail, chat.agentDispatch(siblingId));
      // Made before the parent changes, so its stored pointer holds the parent as it was.
      const { title, by } = forkTitle(parent.title, "", siblingNum);
      const sibling = chat.makeThread(siblingId, siblingNum, title, runner, by);
      sibling.code = parent.code;
      chat.add(sibling, { under: parent.id, background: true }, false);
      // The parent's forks taken after the fork point go with the old tail (in the store too).
      chat.events.branched(parent.id, siblingId, lineage.atMessage);
    }
    parent.runner.close();
    parent.runner = chat.runners.reopen(fork.runner.spec, fork.runner.history, chat.agentDispatch(parent.id));
    // The fork's code snapshots come with its history (those it shared with the parent are there already).
    parent.code = [...parent.code, ...fork.code.filter((m) => !parent.code.includes(m))];
    parent.version++;
    this.end(id, "promoted", parent.id);
    chat.activeId = parent.id;
  }

  /** A fork that can be promoted now, with its parent; else why not (`refused` first). */
  private promotable(id: ThreadId, refused: () => void) {
    try {
      const fork = this.liveFork(id, "promoted");
      const lineage = this.chat.lineage.get(id)!;
      const parent = this.chat.threads.get(lineage.parentId);
      if (!parent) throw new Error("tine: open the parent thread before promoting into it");
      const working = (t: Thread) => !t.atRest || t.runner.midTurn();
      if (working(fork) || working(parent))
        throw new Error("tine: promote waits for both the fork and its parent to finish their turn (or abort them)");
      return { fork, lineage, parent };
    } catch (error) {
      refused();
      throw error;
    }
  }

  /** The summary of a reporting fork's code came ("": none): its report goes with it, as one, and the fork ends. */
  codeSummed(id: ThreadId, summary: string): void {
    const text = this.codeWait.get(id);
    const fork = this.chat.threads.get(id);
    this.codeWait.delete(id);
    // Ended meanwhile (discarded, deleted): nothing waits for it.
    if (text === undefined || !fork) return;
    this.queueReport(fork, summary ? `${text.trim()}\n\n${summary}` : text);
    this.end(id, "reported");
  }

  /** A thread leaves the chat (deleted): nothing waits for it any more. */
  forget(id: ThreadId): void {
    this.codeWait.delete(id);
    this.summaryWhenAtRest.delete(id);
    this.afterTurn.delete(id);
    this.handoffs.delete(id);
  }

  /** Why thread `id` cannot end as a fork now, `how`, or null. */
  endBlocker(id: ThreadId, how: ForkEnd): string | null {
    const thread = this.chat.threads.get(id);
    if (!thread) return `tine: ${threadName(this.chat, id)} is not open`;
    const lineage = this.chat.lineage.get(id);
    if (!lineage) return `tine: ${thread.title} is not a fork`;
    // Nothing of a hand-off's (or a compaction's) history is its source's: there is nothing to promote or report into it.
    if (lineage.relation !== "fork")
      return `tine: ${thread.title} was ${lineage.relation === "handoff" ? "handed off" : "compacted"}, not forked: it is a thread of its own and does not end into its source`;
    const kept = thread.runner.traits.ownConversation;
    if (kept === null) return null;
    // Its conversation is out of tine's reach: nothing of it goes to the parent, only its code can.
    if (!this.chat.worksApart(id))
      return `tine: ${thread.title} keeps its conversation in ${kept} and shares its parent's files: end it there (tine promotes or discards such a fork only in a worktree of its own)`;
    if (how === "reported")
      return `tine: ${thread.title} keeps its conversation in ${kept}: tine cannot ask it for a report (a promote merges its code, a discard drops it)`;
    return null;
  }

  private liveFork(id: ThreadId, how: ForkEnd): Thread {
    const blocker = this.endBlocker(id, how);
    if (blocker) throw new Error(blocker);
    return this.chat.threads.get(id)!;
  }

  private apply(effects: ForkEffect[]): void {
    for (const e of effects) {
      const thread = this.chat.threads.get(e.id);
      if (!thread) continue;
      this.chat.changed();
      switch (e.type) {
        case "wrap-up":
          // A fork waiting on an approval or a tool is not prompted: its clock tries again a period later.
          if (thread.atRest) {
            const minutes = Math.round((this.chat.clock.forkIdleTimeoutMs / 60_000) * 100) / 100;
            thread.update({ type: "send", text: wrapUpPrompt(minutes), auto: true });
            this.chat.forks.update({ type: "wrap-up-sent", id: thread.id, now: this.chat.clock.now() });
          }
          break;
        case "ask-summary":
          if (thread.atRest) thread.update({ type: "send", text: SUMMARY_PROMPT, auto: true });
          break;
        case "report":
          this.reportAndEnd(thread, lastReply(thread.runner.history));
          break;
        default:
          assertUnreachable(e);
      }
    }
  }

  private askSummary(fork: Thread): void {
    this.chat.forks.update({ type: "report-requested", id: fork.id, now: this.chat.clock.now() });
    fork.update({ type: "send", text: SUMMARY_PROMPT, auto: true });
  }

  /**
   * The fork reports `text` to its parent and ends. One in a worktree of its own first has its code
   * summed up (by the host, `sumUpCode`): the parent gets the finding and the code as one report.
   */
  private reportAndEnd(fork: Thread, text: string): void {
    if (this.codeWait.has(fork.id)) return; // its report is on its way
    if (this.chat.worksApart(fork.id) && this.chat.events.sumUpCode) {
      this.codeWait.set(fork.id, text);
      this.chat.events.sumUpCode(fork.id);
      return;
    }
    this.queueReport(fork, text);
    this.end(fork.id, "reported");
  }

  private queueReport(fork: Thread, text: string): void {
    const parentId = this.chat.lineage.get(fork.id)!.parentId;
    const report: QueuedReport = { from: fork.title, text: capReport(text) };
    const parent = this.chat.threads.get(parentId);
    if (parent) parent.update({ type: "queue-report", report });
    else if (this.chat.isStored(parentId)) this.chat.events.reportToStored(parentId, report);
  }

  /** The fork goes from the tree (its file stays, marked how it ended). */
  private end(id: ThreadId, how: ForkEnd, into?: ThreadId): void {
    const chat = this.chat;
    const thread = chat.threads.get(id);
    if (!thread) return;
    if (!thread.atRest) thread.update({ type: "abort" });
    const parentId = chat.lineage.get(id)?.parentId;
    chat.events.forkEnded(thread, how, into);
    thread.runner.close();
    chat.remove(id);
    this.forget(id);
    chat.forks.update({ type: "ended", id });
    if (chat.activeId === id) chat.activeId = into ?? (parentId && chat.threads.has(parentId) ? parentId : null);
    chat.moved(id);
  }
}
