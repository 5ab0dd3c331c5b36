/**
 * Compaction as a branch: `@compact`, `:Tine compact`, `C` on a message, and `auto_compact`.
 * The source thread's runner is asked for one summary (a request of its own that never joins the
 * history: the source stays as it was, in memory and on disk); the new thread opens under the
 * source with the summary as its first message (chat.ts `compacted`). Past `auto_compact` of the
 * model's context window the user is offered a compaction once; a send that would overflow the
 * window compacts first without asking, and goes to the new thread.
 */
import type { Chat } from "../chat/chat.ts";
import type { NewThread } from "../chat/mint.ts";
import type { Dispatch } from "../chat/msgs.ts";
import { drive, modelNameOf } from "../chat/runner.ts";
import type { Thread } from "../chat/thread.ts";
import { followedAfter } from "../context/follow.ts";
import type { History } from "../core/history.ts";
import type { ThreadId } from "../core/ids.ts";
import type { SideRequest } from "../core/side-request.ts";
import { compactedHistory, compactPrompt, contextTokens, cutAt, estimateTokens } from "./rules.ts";

export type CompactionHost = {
  readonly chat: Chat;
  readonly dispatch: Dispatch;
  /** The new thread's id and number, from the fork flow (node/fork/): it works where its source works. */
  branch(sourceId: ThreadId): NewThread;
  notifyInfo(text: string): void;
  /** Asks the user whether to compact thread `id` now (`text` says why); a yes comes back as a `compact` request. */
  offer(id: ThreadId, text: string): void;
  /** The context window of a model, in tokens (the price table's: node/usage/). */
  contextWindow(model: string): number;
};

const k = (n: number) => `${Math.round(n / 1000)}k`;

export class Compaction {
  /** Threads whose summary is being written: one compaction at a time each. */
  private readonly running = new Set<ThreadId>();
  /** The context last seen per thread: an offer is made when it crosses the mark, not while it stays past it. */
  private readonly seen = new Map<ThreadId, number>();
  /**
   * What each thread was last checked at: a streamed delta changes neither its history nor its
   * rest, so it is not measured again (measuring walks back to the last reply with usage).
   */
  private readonly checked = new Map<ThreadId, { readonly history: History; readonly atRest: boolean }>();

  constructor(
    private readonly host: CompactionHost,
    /** `auto_compact`: the fraction of the context window past which compaction is offered; false: never offered nor done by itself. */
    private readonly mark: number | false,
  ) {}

  /**
   * Compacts thread `id` up to message `atMessage` (the whole thread without it) into a new
   * thread under it; resolves to the new thread's id once it is open.
   */
  async compact(id: ThreadId, instructions: string, atMessage?: number): Promise<ThreadId> {
    const { chat } = this.host;
    const thread = chat.threads.get(id);
    if (!thread) throw new Error("tine: open the thread before compacting it");
    const blocker =
      thread.sendBlocker() ??
      (thread.atRest ? null : `${thread.title} is ${thread.status}: compaction waits for the turn to end (or abort it)`) ??
      (this.running.has(id) ? `${thread.title} is being compacted already` : null);
    if (blocker) throw new Error(`tine: ${blocker.replace(/^tine: /, "")}`);
    // The history as it is now: what the user does in the source meanwhile stays the source's.
    const history = thread.runner.history;
    const cut = cutAt(history, atMessage ?? history.length);
    if (cut === 0) throw new Error("tine: there is nothing before that message to summarize");
    this.running.add(id);
    this.host.notifyInfo(`tine: compacting "${thread.title}": the model summarizes its first ${cut} messages (the thread stays as it is)`);
    let summary: string;
    let request: SideRequest | null;
    try {
      ({ text: summary, request } = await drive(thread.runner, "compact it").summarize(cut, compactPrompt(instructions)));
    } finally {
      this.running.delete(id);
    }
    if (!summary) throw new Error(`tine: the model wrote no summary of ${thread.title}: nothing was compacted`);
    const { id: newId, num } = this.host.branch(id);
    const compacted = compactedHistory(history, cut, summary, followedAfter(history.prefix(cut)), thread.title);
    this.host.dispatch({ type: "chat-msg", msg: { type: "compacted", sourceId: id, newId, num, history: compacted, summarized: cut } });
    if (!chat.threads.has(newId)) throw new Error(`tine: ${thread.title} could not be compacted`);
    // The summary request is the new thread's: it made its first message, and the source stays byte for byte as it was.
    if (request) this.host.dispatch({ type: "thread-msg", id: newId, msg: { type: "side-request", request } });
    return newId;
  }

  /** After a batch: a thread whose context crossed the mark (a reply just ended there) is offered a compaction, once. */
  checkMarks(ids: readonly ThreadId[]): void {
    for (const id of ids) {
      const thread = this.host.chat.threads.get(id);
      if (!thread) continue;
      const history = thread.runner.history;
      const was = this.checked.get(id);
      if (was?.history === history && was.atRest === thread.atRest) continue;
      this.checked.set(id, { history, atRest: thread.atRest });
      const used = this.used(thread);
      const before = this.seen.get(id);
      this.seen.set(id, used?.tokens ?? 0);
      if (!used || before === undefined || this.mark === false || !thread.atRest) continue;
      const at = this.mark * used.window;
      if (before < at && used.tokens >= at && !this.running.has(id))
        this.host.offer(
          id,
          `"${thread.title}" uses ${k(used.tokens)} of its ${k(used.window)} context window: compact it into a new thread (this one is kept whole)?`,
        );
    }
  }

  /**
   * Before a send of about `incoming` characters: when its request would overflow the model's
   * context window, the thread is compacted first, without asking. The thread the send goes to.
   */
  async beforeSend(thread: Thread, incoming: string): Promise<ThreadId> {
    const used = this.used(thread);
    if (this.mark === false || !used || !thread.atRest) return thread.id;
    if (used.tokens + estimateTokens(incoming) < used.window) return thread.id;
    this.host.notifyInfo(`tine: this message would overflow the context window of "${thread.title}": it is compacted first`);
    return this.compact(thread.id, "");
  }

  forget(id: ThreadId): void {
    this.seen.delete(id);
    this.checked.delete(id);
  }

  /** The thread's context after its last reply against its model's window; null for a thread that has none (or no model of tine's). */
  private used(thread: Thread): { tokens: number; window: number } | null {
    const model = modelNameOf(thread.runner);
    // No model of tine's (an ACP agent's thread, whose history changes with every update): no walk of it.
    if (model === null) return null;
    const tokens = contextTokens(thread.runner.history);
    return tokens === null ? null : { tokens, window: this.host.contextWindow(model) };
  }
}
