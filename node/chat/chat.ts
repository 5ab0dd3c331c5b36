/**
 * Chat owns the threads and their tree: the live ones and the ones known from disk but not
 * loaded. Forks are handled here, inside the dispatch loop: the source agent is cloned (in
 * whatever state it is) and never written to. Chat never touches files; the host reads the store
 * and dispatches what it found.
 */
import type { Agent, AgentMsg } from "../providers/agent.ts";
import type { History } from "../providers/history.ts";
import { assertUnreachable } from "../util/assert-unreachable.ts";
import type { ChatMsg, Dispatch, ForkRequest, RootMsg, StoredThread, ThreadId } from "./msgs.ts";
import { Thread, type ThreadContext } from "./thread.ts";

export type Lineage = {
  readonly parentId: ThreadId;
  /** The last source message the fork shares (the message it branched from). */
  readonly atMessage: number;
};

/** What the UI and the store do when a thread appears; Chat only says so. */
export type ChatEvents = {
  threadCreated(thread: Thread, how: { forkOf?: ThreadId; prefill?: string; loaded?: boolean }): void;
  threadDeleted(id: ThreadId): void;
};

export class Chat {
  readonly threads = new Map<ThreadId, Thread>();
  /** Threads on disk that are not loaded. */
  readonly stored = new Map<ThreadId, StoredThread>();
  /** Parents of forks, live or stored. */
  readonly lineage = new Map<ThreadId, Lineage>();
  /** Forks waiting for their source (the key) to come to rest; at most one per source. */
  readonly waitingForks = new Map<ThreadId, ForkRequest>();
  activeId: ThreadId | null = null;
  private readonly seenStatus = new Map<ThreadId, string>();
  /** Bumped when threads, lineage or the active thread change (the thread list redraws). */
  version = 0;

  constructor(
    private readonly dispatch: Dispatch,
    private readonly newAgent: (dispatch: (msg: AgentMsg) => void, history?: History) => Agent,
    private readonly context: Omit<ThreadContext, "dispatch">,
    private readonly events: ChatEvents,
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
    return [...this.lineage].filter(([child, l]) => l.parentId === id && this.has(child)).map(([child]) => child);
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
      // Agents change status before their message is handled: compare with what was last seen.
      if (this.seenStatus.get(thread.id) !== thread.status || title !== thread.title) {
        this.seenStatus.set(thread.id, thread.status);
        this.version++;
      }
      const waiting = this.waitingForks.get(thread.id);
      if (waiting && thread.atRest) {
        this.waitingForks.delete(thread.id);
        this.version++;
        this.fork(waiting);
      }
      return;
    }
    this.version++;
    const m: ChatMsg = msg.msg;
    switch (m.type) {
      case "new-thread": {
        const agent = this.newAgent(this.agentDispatch(m.newId), m.history);
        this.add(new Thread(m.newId, m.num, `Thread ${m.num}`, agent, this.threadContext(), { autoTitle: true }), {});
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
          if (t.parentId) this.lineage.set(t.id, { parentId: t.parentId, atMessage: t.atMessage });
        }
        return;
      case "load-thread": {
        const stored = this.stored.get(m.id);
        if (!stored || this.threads.has(m.id)) return;
        this.stored.delete(m.id);
        const agent = this.newAgent(this.agentDispatch(m.id), m.history);
        const thread = new Thread(m.id, stored.num, stored.title, agent, this.threadContext(), { autoTitle: false, readOnlyBy: m.readOnlyBy, created: stored.created });
        this.add(thread, { loaded: true });
        return;
      }
      case "rename-stored": {
        const stored = this.stored.get(m.id);
        if (stored) this.stored.set(m.id, { ...stored, title: m.title });
        return;
      }
      case "delete-thread":
        this.threads.get(m.id)?.update({ type: "abort" });
        this.threads.delete(m.id);
        this.stored.delete(m.id);
        this.waitingForks.delete(m.id);
        if (this.activeId === m.id) this.activeId = null;
        this.events.threadDeleted(m.id);
        return;
      default:
        assertUnreachable(m);
    }
  }

  private fork(request: ForkRequest): void {
    const live = this.threads.get(request.sourceId);
    const stored = this.stored.get(request.sourceId);
    // A stored source is cloned without loading it: a throwaway agent holds its history.
    const source = live?.agent ?? (request.storedSource && this.newAgent(() => {}, request.storedSource));
    const sourceTitle = live?.title ?? stored?.title;
    if (!source || sourceTitle === undefined) throw new Error(`no thread ${request.sourceId}`);
    const agent = source.clone(this.agentDispatch(request.newId), {
      knownResults: live?.forkResults(),
      atMessage: request.atMessage,
    });
    // Every fork ever listed counts, so a deleted fork's number is not given again.
    const siblings = [...this.lineage.values()].filter((l) => l.parentId === request.sourceId).length;
    const thread = new Thread(request.newId, request.num, `${sourceTitle} ⑂${siblings + 1}`, agent, this.threadContext(), { autoTitle: false });
    const sourceLength = source.history.length;
    this.lineage.set(thread.id, {
      parentId: request.sourceId,
      atMessage: Math.max(0, Math.min(request.atMessage ?? sourceLength - 1, sourceLength - 1)),
    });
    this.add(thread, { forkOf: request.sourceId, prefill: request.prefill });
    if (request.prompt) thread.update({ type: "send", text: request.prompt });
  }

  private add(thread: Thread, how: { forkOf?: ThreadId; prefill?: string; loaded?: boolean }): void {
    this.threads.set(thread.id, thread);
    this.activeId = thread.id;
    this.events.threadCreated(thread, how);
  }

  private agentDispatch(id: ThreadId) {
    return (msg: AgentMsg) => this.dispatch({ type: "thread-msg", id, msg: { type: "agent", msg } });
  }

  private threadContext(): ThreadContext {
    return { ...this.context, dispatch: this.dispatch };
  }
}
