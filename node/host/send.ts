/**
 * What the user's input to a thread becomes: `@`-commands routed (a fork, a background fork, a
 * hand-off, a compaction), the mentions resolved before anything is sent, a send refused while
 * the thread cannot take it or sent to a compaction when it would overflow the context window, a
 * queued message taken back, a failed turn sent again; and the forks a request asks for (`@fork`,
 * `:ForkThread`, `e` on a message), checked before they are made. App's entry points call it.
 *
 * Over 300 lines: it is the one place a send is decided (routed, refused, queued, sent again)
 * and a requested fork checked; the entry points are short and share those checks.
 */
import type { Chat } from "../chat/chat.ts";
import type { Dispatch, ForkRequest } from "../chat/msgs.ts";
import { threadName, typedText } from "../chat/names.ts";
import { parseSend } from "../chat/send-command.ts";
import type { Thread } from "../chat/thread.ts";
import type { Compaction } from "../compact/compaction.ts";
import { AwaitingApproval, expandMentions } from "../context/expand.ts";
import type { ContextLimits } from "../context/files.ts";
import type { SendContext } from "../context/follow.ts";
import type { ThreadId } from "../core/ids.ts";
import type { NvimBridge } from "../nvim/bridge.ts";
import type { SendResult } from "../nvim/lua-shapes.ts";
import type { Persistence } from "../store/persistence.ts";
import { randomUuid } from "../util/uuid.ts";
import type { Buffers } from "../view/buffers.ts";
import type { CodeActions } from "../worktree/code-actions.ts";
import { forkBase, type Workspaces } from "../worktree/workspaces.ts";
import type { HostConfig } from "./config.ts";
import type { LiveThreads } from "./live-threads.ts";
import type { Services } from "./services.ts";

export class SendFlow {
  private readonly chat: Chat;
  private readonly buffers: Buffers;
  private readonly persistence: Persistence | null;
  private readonly workspaces: Workspaces;
  private readonly code: CodeActions;
  private readonly compaction: Compaction;
  private readonly nvim: NvimBridge;
  private readonly config: HostConfig;
  private readonly contextLimits: ContextLimits;
  private readonly dispatch: Dispatch;

  /** A live thread (an error names a stored one, which must be opened first; live-threads.ts). */
  private readonly live: (id: ThreadId) => Thread;
  /** A thread open read-only here whose writer is gone is taken over first (live-threads.ts). */
  private readonly takeOverIfFree: (id: ThreadId) => void;
  /** Says what of a stored thread's header its runner does not use (live-threads.ts). */
  private readonly storedRunnerUsed: LiveThreads["storedRunnerUsed"];

  constructor(services: Services) {
    ({
      chat: this.chat,
      buffers: this.buffers,
      persistence: this.persistence,
      workspaces: this.workspaces,
      code: this.code,
      compaction: this.compaction,
      config: this.config,
      contextLimits: this.contextLimits,
      dispatch: this.dispatch,
      nvim: this.nvim,
    } = services);
    this.live = (id) => services.threads.live(id);
    this.takeOverIfFree = (id) => services.threads.takeOverIfFree(id);
    this.storedRunnerUsed = (id, title, spec) => services.threads.storedRunnerUsed(id, title, spec);
  }

  /**
   * The one entry for user input: `@`-commands are routed here, before any Thread sees them; the
   * thread decides whether a message goes now or waits for the turn to end (send-queue.ts). An
   * empty send sends what waits; with nothing waiting it is refused, saying so. After an error the new text replaces the failed
   * turn's; that text is returned, for the input.
   */
  async send(id: ThreadId, text: string, approved: readonly string[] = []): Promise<SendResult> {
    try {
      return await this.sendNow(id, text, new Set(approved));
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
      // A fork's prompt is a message like any other: its mentions go with it (the fork shares this history).
      const tree = command.worktree ? { worktree: true } : {};
      await this.fork(id, command.prompt, tree, (command.prompt && (await this.expand(thread, command.prompt, approved))) || undefined);
      return { replaced: "" };
    }
    if (command.type === "background-fork") {
      if (!command.prompt) throw new Error("tine: @bg needs a prompt: the fork runs it without a window and reports back");
      const tree = command.worktree ? { worktree: true } : {};
      await this.fork(
        id,
        command.prompt,
        { background: true, ...tree },
        (await this.expand(thread, command.prompt, approved)) ?? undefined,
      );
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

  /**
   * Forks a live or stored thread (a stored one is read, not loaded: no buffers of its own).
   * `wait`: the fork is taken once the source is at rest; the id is returned at once. A fork
   * request on a source that already has a waiting fork cancels that one instead (null).
   */
  async fork(
    sourceId: ThreadId,
    prompt: string,
    opts: {
      at_message?: number;
      prefill?: string;
      wait?: boolean;
      background?: boolean;
      restore_code?: boolean;
      /** With restore_code: files changed since the thread's last turn are restored too. */
      restore_overwrite?: boolean;
      worktree?: boolean;
    } = {},
    /** What the prompt's mentions resolved to (a prompt typed in the input: `@fork`, `@bg`). */
    context?: SendContext,
  ): Promise<ThreadId | null> {
    const live = this.chat.threads.get(sourceId);
    if (opts.restore_code && opts.at_message === undefined) throw new Error("tine: restore_code forks at a message: give at_message too");
    // A worktree asked for must be made; one the option gives is made where it can be (a git repository).
    const tree = opts.worktree ?? (this.wantsWorktree(sourceId, opts.background === true) && (await this.workspaces.available()));
    if (!live && !this.chat.stored.has(sourceId)) throw new Error(`tine: ${threadName(this.chat, sourceId)} cannot be forked`);
    if (this.cancelWaitingFork(sourceId)) return null;
    const storedSource = live ? undefined : this.persistence?.storedSource(sourceId);
    const length = live ? live.runner.history.length : storedSource!.history.length;
    // -1: before the first message (`e` on it); Lua's requests give 0 or more.
    if (opts.at_message !== undefined && (opts.at_message < -1 || opts.at_message >= length)) {
      throw new Error(`${this.chat.titleOf(sourceId)} has no message ${opts.at_message}`);
    }
    const newId = randomUuid();
    const num = this.chat.nextNum();
    const wait = opts.wait === true;
    const background = opts.background === true;
    if (background && !prompt) throw new Error("tine: a background fork needs a prompt");
    // The files last, once nothing can refuse the fork, and before it is made (its first turn finds
    // them): as they were at the fork point (files changed since left alone and named, unless overwritten).
    if (opts.restore_code && !tree) {
      const { written, left, skipped } = await this.code.restore(sourceId, opts.at_message!, opts.restore_overwrite === true);
      const kept = left.length ? `; left alone (changed since, not overwritten): ${left.join(", ")}` : "";
      const out = skipped.length ? `; skipped (a link out of the project, and what is under it): ${skipped.join(", ")}` : "";
      this.nvim.notifyInfo(`tine: the fork's files: restored ${written.length} to that message${kept}${out}`);
    }
    // In a worktree made from the fork point's files (with restore_code: the message's), or where its source works;
    // one that waits for its source gets it when due, made from the files as the source's turn left them.
    const base = opts.restore_code ? forkBase(await this.code.settledCode(sourceId), opts.at_message!) : null;
    const whenDue = tree && wait && base === null;
    const request: ForkRequest = {
      sourceId,
      newId,
      num,
      prompt,
      ...(context ? { context } : {}),
      atMessage: opts.at_message,
      prefill: opts.prefill,
      storedSource,
      wait,
      background,
      ...(whenDue ? { worktreeWhenDue: true } : {}),
    };
    /** Makes the fork, unless `wanted` says no more once its worktree is made (which then goes). */
    const make = async (wanted = () => true) => {
      if (!tree) this.workspaces.share(newId, sourceId);
      else if (!whenDue) {
        const made = await this.workspaces.fork(sourceId, newId, num, base);
        if (!wanted()) return this.workspaces.remove(made.root);
      }
      // A stored source runs by its header: the fork is told what of it is not replayed.
      if (storedSource)
        this.storedRunnerUsed(sourceId, this.chat.titleOf(sourceId) ?? threadName(this.chat, sourceId), storedSource.runner);
      this.dispatch({ type: "chat-msg", msg: { type: "fork-thread", ...request } });
    };
    // A program mid-turn keeping its own conversation (Claude Code) is copied whole, with the files
    // as its turn left them: the fork waits (listed, cancelled as a `wait` fork is) and is made when the turn ends.
    const turnEnd = tree ? live?.runner.betweenTurns() : null;
    if (turnEnd && live) {
      this.dispatch({ type: "chat-msg", msg: { type: "fork-held", request } });
      this.nvim.notifyInfo(`tine: the fork of ${live.title} is made in its own worktree once its turn ends (asking again cancels it)`);
      const held = () => this.chat.waitingForks.get(sourceId)?.newId === newId;
      void turnEnd
        .then(() => (held() ? make(held) : undefined))
        .catch((e: Error) => this.nvim.notifyError(`tine: the fork of ${live.title} was not made: ${e.message}`));
      return newId;
    }
    await make();
    if (!whenDue && !this.chat.waitingForks.has(sourceId) && !background) await this.buffers.of(newId);
    return newId;
  }

  /**
   * Whether `fork_worktree` gives a fork (a background one or not) a worktree without being asked;
   * a fork of a thread in a worktree gets one of its own (unless "never"): forks never disturb each other's files.
   */
  private wantsWorktree(sourceId: ThreadId, background: boolean): boolean {
    const option = this.config.fork_worktree;
    return option === "always" || (option === "background" && (background || this.workspaces.inWorktree(sourceId)));
  }

  /** Cancels the fork waiting for `sourceId` to come to rest, if any, and says so. */
  cancelWaitingFork(sourceId: ThreadId): boolean {
    if (!this.chat.waitingForks.has(sourceId)) return false;
    this.dispatch({ type: "chat-msg", msg: { type: "cancel-waiting-fork", sourceId } });
    this.nvim.notifyInfo(`tine: the fork waiting for "${this.chat.titleOf(sourceId)}" is cancelled`);
    return true;
  }

  /** `e` on a message the user wrote: a fork at the message before it, with its text in the fork's input to edit and send. */
  editMessage(id: ThreadId, index: number): Promise<ThreadId | null> {
    const history = this.live(id).runner.history;
    // fork() would take the request for a cancel of that fork.
    if (this.chat.waitingForks.has(id)) throw new Error("tine: a fork waits for this reply to finish: cancel it first (<C-c> in the list)");
    const text = index < history.length ? typedText(history.at(index).message) : "";
    if (!text) throw new Error("tine: e edits a message you wrote: put the cursor on one of yours");
    return this.fork(id, "", { at_message: index - 1, prefill: text });
  }
}
