/**
 * Chat owns the threads and their tree. Forks are handled here, inside the dispatch loop: the
 * source agent is cloned (in whatever state it is) and never written to.
 */
import type { Agent, AgentMsg } from "../providers/agent.ts";
import type { History } from "../providers/history.ts";
import { assertUnreachable } from "../util/assert-unreachable.ts";
import type { ChatMsg, Dispatch, ForkRequest, RootMsg, ThreadId } from "./msgs.ts";
import { Thread, type ThreadContext } from "./thread.ts";

export type Lineage = {
  readonly parentId: ThreadId;
  /** The last source message the fork shares (the message it branched from). */
  readonly atMessage: number;
};

/** What the UI does when a thread appears; Chat only says so. */
export type ChatEvents = {
  threadCreated(thread: Thread, how: { forkOf?: Thread; prefill?: string }): void;
};

export class Chat {
  readonly threads = new Map<ThreadId, Thread>();
  readonly lineage = new Map<ThreadId, Lineage>();
  activeId: ThreadId | null = null;
  private lastId = 0;
  private readonly seenStatus = new Map<ThreadId, string>();
  /** Bumped when threads, lineage or the active thread change (the thread list redraws). */
  version = 0;

  constructor(
    private readonly dispatch: Dispatch,
    private readonly newAgent: (dispatch: (msg: AgentMsg) => void, history?: History) => Agent,
    private readonly context: Omit<ThreadContext, "dispatch">,
    private readonly events: ChatEvents,
  ) {}

  allocateId(): ThreadId {
    return ++this.lastId;
  }

  get active(): Thread | undefined {
    return this.activeId === null ? undefined : this.threads.get(this.activeId);
  }

  childrenOf(id: ThreadId): ThreadId[] {
    return [...this.lineage].filter(([, l]) => l.parentId === id).map(([child]) => child);
  }

  update(msg: RootMsg): void {
    if (msg.type === "thread-msg") {
      const thread = this.threads.get(msg.id);
      if (!thread) return;
      thread.update(msg.msg);
      // Agents change status before their message is handled: compare with what was last seen.
      if (this.seenStatus.get(thread.id) !== thread.status) {
        this.seenStatus.set(thread.id, thread.status);
        this.version++;
      }
      return;
    }
    this.version++;
    const m: ChatMsg = msg.msg;
    switch (m.type) {
      case "new-thread":
        this.add(new Thread(m.newId, `Thread ${m.newId}`, this.newAgent(this.agentDispatch(m.newId), m.history), this.threadContext()), {});
        return;
      case "fork-thread":
        this.fork(m);
        return;
      case "select-thread":
        if (this.threads.has(m.id)) this.activeId = m.id;
        return;
      default:
        assertUnreachable(m);
    }
  }

  private fork(request: ForkRequest): void {
    const source = this.threads.get(request.sourceId);
    if (!source) throw new Error(`no thread ${request.sourceId}`);
    const agent = source.agent.clone(this.agentDispatch(request.newId), {
      knownResults: source.finishedResults(),
      atMessage: request.atMessage,
    });
    const siblings = this.childrenOf(source.id).length;
    const thread = new Thread(request.newId, `${source.title} ⑂${siblings + 1}`, agent, this.threadContext());
    const sourceLength = source.agent.history.length;
    this.lineage.set(thread.id, {
      parentId: source.id,
      atMessage: Math.max(0, Math.min(request.atMessage ?? sourceLength - 1, sourceLength - 1)),
    });
    this.add(thread, { forkOf: source, prefill: request.prefill });
    if (request.prompt) thread.update({ type: "send", text: request.prompt });
  }

  private add(thread: Thread, how: { forkOf?: Thread; prefill?: string }): void {
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
