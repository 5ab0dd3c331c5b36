/**
 * Chat owns the threads and their tree: the live ones and the ones known from disk but not
 * loaded, and gives every new thread its id and number (mint.ts). Forks are cloned inside its
 * dispatch loop (take-fork.ts) when the fork flow (node/fork/) says; how forks end lives in
 * fork-exits.ts, and what changed for the host to write and draw in changes.ts. Chat never touches
 * files; the host reads the store and dispatches what it found.
 *
 * Over 300 lines: it is the one place every chat message lands (`update`), each case a few lines
 * on the same threads, stored threads and tree; the jobs it routes to live beside it.
 */
import type { AgentMsg } from "../core/agent.ts";
import type { ThreadId } from "../core/ids.ts";
import type { Environment } from "../tools/environment.ts";
import { assertUnreachable } from "../util/assert-unreachable.ts";
import { ChangeLog, type Changes } from "./changes.ts";
import type { ChatClock, ChatEvents, ChatLimits, CreatedHow } from "./events.ts";
import { type ChatTree, ForkExits, linkedThread } from "./fork-exits.ts";
import { actorOf, ForkLives } from "./forks.ts";
import { type NewThread, ThreadMint } from "./mint.ts";
import type { ChatMsg, Dispatch, ForkClone, ForkEnd, RootMsg, StoredThread } from "./msgs.ts";
import type { Runner, Runners } from "./runner.ts";
import { takeFork } from "./take-fork.ts";
import { Thread, type ThreadContext, type TitledBy } from "./thread.ts";
import { compactTitle } from "./titles.ts";
import { ForkTree } from "./tree.ts";

export type { Changes } from "./changes.ts";
export type { ChatClock, ChatEvents, ChatLimits, CreatedHow } from "./events.ts";
export type { Lineage } from "./tree.ts";

/**
 * What the host gives every thread; `environmentFor` says where a thread's tools act, `worksApart`
 * whether a fork works in a worktree of its own (its end brings its code back, or throws it away).
 */
export type ThreadServices = Omit<ThreadContext, "dispatch" | "environment" | "forkTool" | "changed"> & {
  environmentFor(id: ThreadId): Environment;
  worksApart(id: ThreadId): boolean;
};

export class Chat implements ChatTree {
  readonly threads = new Map<ThreadId, Thread>();
  /** Threads on disk that are not loaded. */
  readonly stored = new Map<ThreadId, StoredThread>();
  /** Parents of forks, live or stored. */
  readonly lineage = new ForkTree();
  /** Live forks' lifecycle: idle clocks, reports, background runs. */
  readonly forks = new ForkLives();
  private readonly exits = new ForkExits(this);
  activeId: ThreadId | null = null;
  private readonly seenStatus = new Map<ThreadId, string>();
  private readonly seenAtRest = new Map<ThreadId, boolean>();
  /** What changed since the host last asked (changes.ts). */
  private readonly log = new ChangeLog();
  /** Every new thread's id and number. */
  private readonly minter = new ThreadMint(
    () => this.maxNum(),
    (atLeast) => this.events.claimNum?.(atLeast) ?? atLeast,
    (num) => this.events.releaseNum?.(num),
  );

  constructor(
    readonly dispatch: Dispatch,
    /** Makes every thread's runner: the chat builds none itself. */
    readonly runners: Runners,
    private readonly services: ThreadServices,
    readonly events: ChatEvents,
    readonly clock: ChatClock,
    readonly limits: ChatLimits,
  ) {}

  get active(): Thread | undefined {
    return this.activeId === null ? undefined : this.threads.get(this.activeId);
  }

  has(id: ThreadId): boolean {
    return this.threads.has(id) || this.stored.has(id);
  }

  isStored(id: ThreadId): boolean {
    return this.stored.has(id);
  }

  titleOf(id: ThreadId): string | undefined {
    return this.threads.get(id)?.title ?? this.stored.get(id)?.title;
  }

  /** A live or stored thread's number in the list. */
  numOf(id: ThreadId): number | undefined {
    return this.threads.get(id)?.num ?? this.stored.get(id)?.num;
  }

  /** Children in the order they were forked. */
  childrenOf(id: ThreadId): ThreadId[] {
    return this.lineage.childrenOf(id).filter((child) => this.has(child));
  }

  /** The highest display number in use here. */
  private maxNum(): number {
    let max = 0;
    for (const t of this.threads.values()) max = Math.max(max, t.num);
    for (const t of this.stored.values()) max = Math.max(max, t.num);
    return max;
  }

  /** Why thread `id` cannot end as a fork now, `how` (it is no open fork of tine's), or null. */
  forkEndBlocker(id: ThreadId, how: ForkEnd): string | null {
    return this.exits.endBlocker(id, how);
  }

  worksApart(id: ThreadId): boolean {
    return this.services.worksApart(id);
  }

  /** Where thread `id`'s tools act (its folder follows its parent's once it is linked). */
  environmentFor(id: ThreadId): Environment {
    return this.services.environmentFor(id);
  }

  /** A new thread's id and number: the one place they are made, for every kind of thread (mint.ts). */
  mint(): NewThread {
    return this.minter.next();
  }

  /** A minted identity no thread was made with (a fork refused, failed or cancelled): its number is given again, when still the last given. */
  unmint(made: NewThread): void {
    if (!this.threads.has(made.id)) this.minter.release(made);
  }

  /** Bumped when threads, lineage, a status or the active thread change (the thread list redraws). */
  get version(): number {
    return this.log.version;
  }

  changed(): void {
    this.log.treeChanged();
  }

  /** Thread `id`'s place in the tree changed: the list redraws, and the displays that show it. */
  moved(id: ThreadId): void {
    this.log.moved(id);
  }

  /** What changed since the last call (ChangeLog.take): the host writes and draws only that. */
  takeChanges(): Changes {
    return this.log.take();
  }

  update(msg: RootMsg): void {
    if (msg.type === "thread-msg") {
      const thread = this.threads.get(msg.id);
      if (!thread) return;
      const title = thread.title;
      const label = thread.labels.thread;
      thread.update(msg.msg);
      const inner = msg.msg;
      const userSent = inner.type === "send" && !inner.auto;
      // A fork opened from disk gets its idle clock once it is used again (reading it starts none).
      const lineage = this.lineage.get(thread.id);
      if (userSent && lineage?.relation === "fork" && !this.forks.get(thread.id) && thread.runner.traits.forkLifecycle) {
        this.forks.update({
          type: "started",
          id: thread.id,
          parentId: lineage.parentId,
          background: false,
          idleTimeoutMs: this.clock.forkIdleTimeoutMs,
          openedBy: "user",
          now: this.clock.now(),
        });
      }
      // Any action of the user's in a fork (a send, an approval, a key the host hears) resets its clock.
      const by = actorOf(inner);
      if (userSent) this.forks.update({ type: "user-sent", id: thread.id, now: this.clock.now() });
      else if (by) this.forks.update({ type: "activity", id: thread.id, by, now: this.clock.now() });
      // Compared with what was last seen, as agents change status before their message arrives.
      const wasAtRest = this.seenAtRest.get(thread.id) ?? true;
      this.seenAtRest.set(thread.id, thread.atRest);
      if (!wasAtRest && thread.atRest) this.cameToRest(thread);
      // Agents change status before their message is handled: compare with what was last seen.
      const status = thread.status + thread.runner.statusDetail();
      if (this.seenStatus.get(thread.id) !== status || title !== thread.title || label !== thread.labels.thread) {
        this.seenStatus.set(thread.id, status);
        this.log.listChanged();
        // A title shows in its forks' banners and its parent's fork marks.
        if (title !== thread.title) this.moved(thread.id);
      }
      return;
    }
    this.changed();
    const m: ChatMsg = msg.msg;
    switch (m.type) {
      case "new-thread": {
        const runner = this.runners.start(m.runner, this.agentDispatch(m.newId));
        const thread = new Thread(m.newId, m.num, m.title ?? m.placeholder ?? `Thread ${m.num}`, runner, this.threadContext(m.newId), {
          titledBy: m.title === undefined ? "placeholder" : "kept",
          origin: m.origin,
        });
        if (m.parentId === undefined) {
          this.add(thread, {}, true);
          return;
        }
        // Continued elsewhere (an export): a child of the thread it came from, at its last message.
        const parent = this.threads.get(m.parentId);
        const atMessage = Math.max(0, (parent?.runner.history.length ?? 1) - 1);
        this.lineage.link(m.newId, { parentId: m.parentId, atMessage, relation: "handoff" });
        this.add(thread, { under: m.parentId }, true);
        return;
      }
      case "fork-thread":
        // The user forks it (the agent's forks, and those that waited for a rest, are taken in place): activity in a fork.
        this.forks.update({ type: "activity", id: m.sourceId, by: "user", now: this.clock.now() });
        takeFork(this, m);
        return;
      case "fork-waiting":
        // The user asked for a fork of it that waits: activity in a fork (the list redraws, as after every chat message).
        if (m.change === "waits") this.forks.update({ type: "activity", id: m.sourceId, by: "user", now: this.clock.now() });
        return;
      case "select-thread":
        if (!this.threads.has(m.id)) return;
        this.activeId = m.id;
        // The user went to it: that is activity in a fork.
        this.forks.update({ type: "activity", id: m.id, by: "user", now: this.clock.now() });
        return;
      case "stored-found":
        for (const t of m.threads) {
          if (this.threads.has(t.id)) continue;
          this.stored.set(t.id, t);
          this.moved(t.id);
          if (t.parentId) this.lineage.link(t.id, { parentId: t.parentId, atMessage: t.atMessage, relation: t.relation });
        }
        return;
      case "load-thread": {
        const live = this.threads.get(m.id);
        if (live) {
          // Open read-only here, its writer gone: read again, and writable here from now on.
          if (live.readOnlyBy !== null && m.readOnlyBy === null) {
            live.takenOver(this.runners.reopen(m.runner, m.history, this.agentDispatch(m.id), m.failed), m.title, m.reports);
            live.queue.restore(m.queue);
            live.grafts = m.grafts ?? [];
            live.code = m.code ?? [];
            live.labels = m.labels;
            live.side = m.side ?? [];
            this.moved(m.id);
          }
          return;
        }
        const stored = this.stored.get(m.id);
        if (!stored) return;
        this.stored.delete(m.id);
        const runner = this.runners.reopen(m.runner, m.history, this.agentDispatch(m.id), m.failed);
        const thread = new Thread(m.id, stored.num, m.title, runner, this.threadContext(m.id), {
          titledBy: "kept",
          readOnlyBy: m.readOnlyBy,
          created: stored.created,
        });
        thread.reports = m.reports;
        thread.grafts = m.grafts ?? [];
        thread.labels = m.labels;
        thread.side = m.side ?? [];
        // Another Neovim's queue is its own: it comes here with the thread when that one is taken over.
        if (m.readOnlyBy === null) thread.queue.restore(m.queue);
        thread.code = m.code ?? [];
        this.add(thread, { loaded: true }, true);
        return;
      }
      case "rename-stored": {
        const stored = this.stored.get(m.id);
        if (stored) this.stored.set(m.id, { ...stored, title: m.title });
        this.moved(m.id);
        return;
      }
      case "label-stored": {
        const stored = this.stored.get(m.id);
        if (stored) this.stored.set(m.id, { ...stored, label: m.label });
        return;
      }
      case "fork-discard":
        this.exits.discard(m.id);
        return;
      case "fork-promote":
        this.exits.promote(m.id, m.siblingId, m.siblingNum, m.codeMerged);
        return;
      case "fork-report":
        this.exits.report(m.id, m.text);
        return;
      case "fork-code-summed":
        this.exits.codeSummed(m.id, m.summary);
        return;
      case "code-noted":
        this.threads.get(m.id)?.codeNoted(m.note);
        return;
      case "code-note-undone":
        this.threads.get(m.id)?.codeNoteUndone(m.note);
        return;
      case "fork-opened":
        this.forks.update({ type: "opened", id: m.id });
        return;
      case "clock-tick":
        this.exits.tick(m.now);
        return;
      case "handoff": {
        const thread = this.threads.get(m.id);
        if (thread) this.exits.askHandoff(thread, m.goal);
        return;
      }
      case "compacted": {
        const source = this.threads.get(m.sourceId);
        if (!source) return;
        const runner = this.runners.reopen(source.runner.spec, m.history, this.agentDispatch(m.newId));
        const made = { id: m.newId, num: m.num, title: compactTitle(source.title), runner };
        linkedThread(this, m.sourceId, made, m.summarized - 1, "compact");
        return;
      }
      case "delete-thread":
        this.threads.get(m.id)?.update({ type: "abort" });
        this.threads.get(m.id)?.runner.close();
        this.threads.delete(m.id);
        this.stored.delete(m.id);
        this.exits.forget(m.id);
        this.forks.update({ type: "ended", id: m.id });
        if (this.activeId === m.id) this.activeId = null;
        this.moved(m.id);
        this.events.threadDeleted(m.id);
        return;
      default:
        assertUnreachable(m);
    }
  }

  /** A thread's reply finished and its tools are answered: what waited for that happens now. */
  private cameToRest(thread: Thread): void {
    if (this.exits.responseEnded(thread)) return;
    const due = this.events.forkDueAtRest(thread.id);
    if (due) takeFork(this, due);
    this.exits.atRest(thread);
  }

  forkNow(fork: ForkClone): void {
    takeFork(this, fork);
  }

  add(thread: Thread, how: CreatedHow, makeActive: boolean): void {
    this.threads.set(thread.id, thread);
    this.moved(thread.id);
    if (makeActive) this.activeId = thread.id;
    this.events.threadCreated(thread, how);
  }

  makeThread(id: ThreadId, num: number, title: string, runner: Runner, titledBy: TitledBy = "kept"): Thread {
    return new Thread(id, num, title, runner, this.threadContext(id), { titledBy });
  }

  remove(id: ThreadId): void {
    this.threads.delete(id);
  }

  agentDispatch(id: ThreadId): (msg: AgentMsg) => void {
    return (msg: AgentMsg) => this.dispatch({ type: "thread-msg", id, msg: { type: "agent", msg } });
  }

  private threadContext(id: ThreadId): ThreadContext {
    const { environmentFor, worksApart: _, ...services } = this.services;
    return {
      ...services,
      environment: environmentFor(id),
      dispatch: this.dispatch,
      forkTool: (thread, use) => this.exits.forkTool(thread, use),
      changed: (changedId) => this.log.threadChanged(changedId),
    };
  }
}
