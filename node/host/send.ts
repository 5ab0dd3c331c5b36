/**
 * What the user's input to a thread becomes: `@`-commands routed (a fork and a background fork
 * to the fork flow, node/fork/; a hand-off; a compaction), the mentions resolved before anything
 * is sent, a send refused while the thread cannot take it or sent to a compaction when it would
 * overflow the context window, a queued message taken back, a failed turn sent again. The requests call
 * it (requests.ts).
 */

import type { Chat } from "../chat/chat.ts";
import type { Dispatch } from "../chat/msgs.ts";
import { listedName } from "../chat/names.ts";
import { parseSend } from "../chat/send-command.ts";
import type { Thread } from "../chat/thread.ts";
import type { Compaction } from "../compact/compaction.ts";
import { AwaitingApproval, expandMentions } from "../context/expand.ts";
import type { ContextLimits } from "../context/files.ts";
import type { SendContext } from "../context/follow.ts";
import { parseMentions } from "../context/mentions.ts";
import type { ThreadId } from "../core/ids.ts";
import type { FanOutAsk, FanOuts } from "../fork/fanout.ts";
import type { ForkFlow } from "../fork/flow.ts";
import type { ForkAsk } from "../fork/request.ts";
import type { NvimBridge } from "../nvim/bridge.ts";
import type { SendResult } from "../nvim/lua-shapes.ts";
import type { Buffers } from "../view/buffers.ts";
import type { Services } from "./services.ts";

export class SendFlow {
  private readonly chat: Chat;
  private readonly buffers: Buffers;
  /** Where `@fork` and `@bg` go (node/fork/). */
  private readonly forks: ForkFlow;
  /** Where `@fork×N` goes (node/fork/fanout.ts). */
  private readonly fanouts: FanOuts;
  private readonly compaction: Compaction;
  private readonly nvim: NvimBridge;
  private readonly contextLimits: ContextLimits;
  private readonly dispatch: Dispatch;

  /** A live thread (an error names a stored one, which must be opened first; live-threads.ts). */
  private readonly live: (id: ThreadId) => Thread;
  /** A thread open read-only here whose writer is gone is taken over first (live-threads.ts). */
  private readonly takeOverIfFree: (id: ThreadId) => void;

  constructor(services: Services) {
    ({
      chat: this.chat,
      buffers: this.buffers,
      forks: this.forks,
      fanouts: this.fanouts,
      compaction: this.compaction,
      contextLimits: this.contextLimits,
      dispatch: this.dispatch,
      nvim: this.nvim,
    } = services);
    this.live = (id) => services.threads.live(id);
    this.takeOverIfFree = (id) => services.threads.takeOverIfFree(id);
  }

  /**
   * The one entry for user input: `@`-commands are routed here, before any Thread sees them; the
   * thread decides whether a message goes now or waits for the turn to end (send-queue.ts). An
   * empty send sends what waits; with nothing waiting it is refused, saying so. After an error the new text replaces the failed
   * turn's; that text is returned, for the input.
   */
  async send(id: ThreadId, text: string, approved: readonly string[] = []): Promise<SendResult> {
    try {
      const result = await this.sendNow(id, text, new Set(approved));
      this.buffers.sendTaken();
      return result;
    } catch (error) {
      // Files named alone lead outside the project: nothing was sent, Neovim asks the user, then sends again with their answer.
      if (error instanceof AwaitingApproval) return { replaced: "", outside: error.files.map((f) => ({ path: f.name, target: f.target })) };
      throw error;
    }
  }

  /** `approved`: where the files outside the project the user said yes to lead (FilePlace.target). */
  private async sendNow(id: ThreadId, text: string, approved: ReadonlySet<string>): Promise<SendResult> {
    this.takeOverIfFree(id);
    const thread = this.live(id);
    // The thread the user sends in becomes the active one: `:Tine add`/`ask`, the list's ▶ and `:Tine` after a restart follow it.
    if (this.chat.activeId !== id && !this.chat.forks.get(id)?.background)
      this.dispatch({ type: "chat-msg", msg: { type: "select-thread", id } });
    const command = parseSend(text);
    if (command.type === "fork") {
      await this.fork(id, command.prompt, forkPlace(command), approved);
      return { replaced: "" };
    }
    if (command.type === "background-fork") {
      if (!command.prompt)
        throw new Error(`tine: @bg${command.unattended ? "!" : ""} needs a prompt: the fork runs it without a window and reports back`);
      await this.fork(id, command.prompt, { background: true, ...forkPlace(command) }, approved);
      return { replaced: "" };
    }
    if (command.type === "fan-out") {
      await this.fanout(id, command.prompt, { n: command.n }, approved);
      return { replaced: "" };
    }
    if (command.type === "handoff") {
      if (!command.goal) throw new Error("tine: @handoff needs a goal: what the fresh thread should do");
      const blocker =
        thread.sendBlocker() ??
        (thread.atRest ? null : `${thread.title} is ${thread.status}: @handoff waits for the turn to end (or abort it)`);
      if (blocker) throw new Error(blocker);
      this.dispatch({ type: "chat-msg", msg: { type: "handoff", id, goal: command.goal } });
      return { replaced: "" };
    }
    if (command.type === "compact") {
      await this.compact(id, command.instructions);
      return { replaced: "" };
    }
    // <CR> in an empty input sends the messages that wait (held after an abort or an error); with none, it says so.
    if (command.type === "now" && !command.text) throw new Error("tine: @now needs a message: it goes with the next tool results");
    // A fork made by `e` holds tool results for the edited text: an empty <CR> sends them alone.
    if (!command.text && !thread.queue.length && thread.status === "idle" && thread.runner.history.last()?.message.role === "user") {
      const blocker = thread.sendBlocker();
      if (blocker) throw new Error(blocker);
      this.dispatch({ type: "thread-msg", id, msg: { type: "answer" } });
      return { replaced: "" };
    }
    if (!command.text && !thread.queue.length)
      throw new Error(
        thread.status === "error"
          ? "tine: nothing to send: type a message (R sends the failed turn again)"
          : "tine: nothing to send: type a message first",
      );
    const blocker = thread.sendBlocker();
    if (blocker) throw new Error(blocker);
    // Mentions are resolved first (an unresolvable one throws: nothing is sent, the input stays).
    const context = await this.expand(thread, command.text, approved);
    const meanwhile = thread.sendBlocker();
    if (meanwhile) throw new Error(meanwhile);
    const replaced = thread.failedText();
    // A request that would overflow the context window goes to a compaction of the thread instead.
    const to = await this.compaction.beforeSend(thread, command.text + JSON.stringify(context ?? ""));
    if (to !== id) await this.buffers.of(to);
    this.dispatch({
      type: "thread-msg",
      id: to,
      msg: { type: "send", text: command.text, ...(context ? { context } : {}), ...(command.type === "now" ? { now: true } : {}) },
    });
    return { replaced: replaced === command.text ? "" : replaced };
  }

  /**
   * Every fork the user asks for with a prompt (`@fork`, `@bg`, `fork()`, :ForkThread, the list's
   * keys): its mentions go with it as a typed message's do (`forkContext`). Its id, as ForkFlow.fork.
   */
  async fork(id: ThreadId, prompt: string, ask: ForkAsk = {}, approved: ReadonlySet<string> = new Set()): Promise<ThreadId | null> {
    return this.forks.fork(id, prompt, ask, await this.forkContext(id, prompt, approved));
  }

  /** Every fan-out (`@fork×N`, `fanout()`, :ForkThread --n, the list's count and `f`): its prompt's mentions go with each fork. */
  async fanout(id: ThreadId, prompt: string, ask: FanOutAsk = {}, approved: ReadonlySet<string> = new Set()): Promise<ThreadId[]> {
    return this.fanouts.fanout(id, prompt, ask, await this.forkContext(id, prompt, approved));
  }

  /**
   * The one rule for a fork's prompt, however it came: what a message of that text typed in
   * thread `id`'s input would carry (its mentions, the files followed). A stored thread's fork
   * cannot read the editor for it: a prompt with mentions is refused, naming them.
   */
  private async forkContext(id: ThreadId, prompt: string, approved: ReadonlySet<string>): Promise<SendContext | undefined> {
    if (!prompt.trim()) return undefined;
    const thread = this.chat.threads.get(id);
    if (thread) return (await this.expand(thread, prompt, approved)) ?? undefined;
    const mentions = parseMentions(prompt);
    if (mentions.length && this.chat.stored.has(id))
      throw new Error(
        `tine: ${listedName(this.chat, id)} is not open, so the prompt's ${mentions.map((m) => m.source).join(", ")} cannot be read for its fork: open it first`,
      );
    return undefined;
  }

  /** `@compact`, `:Tine compact`, `C` on a message: a new thread under `id`, opened once made; its id. */
  async compact(id: ThreadId, instructions: string, atMessage?: number): Promise<ThreadId> {
    this.takeOverIfFree(id);
    this.live(id);
    const newId = await this.compaction.compact(id, instructions, atMessage);
    await this.buffers.of(newId);
    return newId;
  }

  /**
   * What a send of `text` to `thread` carries besides the text: its mentions and the files
   * followed, resolved. Throws AwaitingApproval for files outside the project not `approved`.
   */
  expand(thread: Thread, text: string, approved: ReadonlySet<string> = new Set()) {
    return expandMentions(text, thread.sendBase(), {
      environment: thread.environment,
      limits: this.contextLimits,
      gather: (request) => this.nvim.gatherContext(request),
      approved,
      tell: (notice) => this.nvim.notifyInfo(notice),
    });
  }

  /** The queued message shown at a display line (0-based), or null. */
  queuedAt(id: ThreadId, line: number): { item: number; text: string } | null {
    const item = this.buffers.queuedAt(id, line);
    const queued = item === undefined ? undefined : this.live(id).queue.items.find((q) => q.id === item);
    return queued ? { item: queued.id, text: queued.msg.text } : null;
  }

  /** A queued message cancelled, or taken back to be edited: refused when it went meanwhile. */
  unqueue(id: ThreadId, item: number): void {
    if (!this.live(id).queue.items.some((q) => q.id === item)) throw new Error("tine: that message is no longer queued: it was sent");
    this.dispatch({ type: "thread-msg", id, msg: { type: "unqueue", item } });
  }

  /** `:Tine retry`: the turn that failed is sent again, as it was. */
  retry(id: ThreadId): void {
    const thread = this.live(id);
    if (!thread.failedText() && thread.runner.status.type !== "error")
      throw new Error(`tine: ${thread.title} has no failed turn to send again`);
    this.dispatch({ type: "thread-msg", id, msg: { type: "retry" } });
  }
}

/** Where a fork typed in the input works: the flags it was typed with (absent: the options decide). */
function forkPlace(command: { readonly worktree?: true; readonly unattended?: true }): ForkAsk {
  return { ...(command.worktree ? { worktree: true } : {}), ...(command.unattended ? { unattended: true } : {}) };
}
