/**
 * What `init` starts: every service, wired (services.ts), what the user's input becomes
 * (send.ts), and the entry points that combine services: each checks what only the host knows
 * and dispatches, in a few lines. A request one service answers alone calls it directly
 * (requests.ts); the work lives in chat/, view/, store/ and claude-code/.
 *
 * A little over 300 lines: what is left here are the entry points that need two services or more
 * (a promote, a delete, a line's action); each is short, and one that grows goes to its service.
 */
import type { Chat } from "../chat/chat.ts";
import { isEmptyThread } from "../chat/empty-thread.ts";
import { cleanLabel, type LabelTarget } from "../chat/labels.ts";
import type { Dispatch, ForkEnd } from "../chat/msgs.ts";
import { threadName } from "../chat/names.ts";
import { drive, modelNameOf, showsUsage } from "../chat/runner.ts";
import { cleanTitle, type Thread } from "../chat/thread.ts";
import { latestMark } from "../core/code-marks.ts";
import type { ThreadId } from "../core/ids.ts";
import type { ThinkingEffort } from "../core/model-choice.ts";
import type { ForkFlow } from "../fork/flow.ts";
import type { NvimBridge } from "../nvim/bridge.ts";
import { choiceNotice, describeSetupThinking, modelChoices, unknownModel } from "../providers/models.ts";
import { branchStates, compareBranches } from "../snapshot/compare.ts";
import type { LastActive } from "../store/last-active.ts";
import type { Persistence } from "../store/persistence.ts";
import type { UsageBook } from "../usage/book.ts";
import { diffBranches } from "../view/branch-diff.ts";
import type { Buffers } from "../view/buffers.ts";
import { type LineAction, lineAction } from "../view/line-actions.ts";
import type { OpenFromEnd } from "../view/open-from-end.ts";
import type { ThreadQueries } from "../view/thread-queries.ts";
import type { CodeActions, ThreadCode } from "../worktree/code-actions.ts";
import type { CodeServices } from "../worktree/code-services.ts";
import type { ForkCode } from "../worktree/fork-code.ts";
import { type WorktreeReport, worktreeUsers } from "../worktree/health.ts";
import type { Workspaces } from "../worktree/workspaces.ts";
import type { HostConfig } from "./config.ts";
import type { LiveThreads } from "./live-threads.ts";
import { SendFlow } from "./send.ts";
import { Services } from "./services.ts";

export class App {
  /** Every service, wired (services.ts): a request one of them answers alone calls it here. */
  readonly services: Services;
  /** `send`, `compact`, `retry`, the queue (send.ts). */
  readonly sending: SendFlow;
  // The parts of `services` the entry points below use.
  private readonly chat: Chat;
  /** When and where forks are made (node/fork/): a thread with a fork waiting on it is not empty. */
  private readonly forks: ForkFlow;
  private readonly buffers: Buffers;
  private readonly queries: ThreadQueries;
  private readonly opening: OpenFromEnd;
  private readonly threads: LiveThreads;
  private readonly code: CodeActions;
  private readonly workspaces: Workspaces;
  private readonly forkCode: ForkCode;
  private readonly persistence: Persistence | null;
  private readonly usage: UsageBook;
  private readonly lastActive: LastActive | null;
  private readonly codeServices: CodeServices;
  private readonly dispatch: Dispatch;

  constructor(
    private readonly nvim: NvimBridge,
    readonly config: HostConfig,
  ) {
    this.services = new Services(nvim, config);
    ({
      chat: this.chat,
      buffers: this.buffers,
      queries: this.queries,
      opening: this.opening,
      threads: this.threads,
      code: this.code,
      workspaces: this.workspaces,
      forkCode: this.forkCode,
      persistence: this.persistence,
      usage: this.usage,
      lastActive: this.lastActive,
      codeServices: this.codeServices,
      dispatch: this.dispatch,
      forks: this.forks,
    } = this.services);
    this.sending = new SendFlow(this.services);
  }

  /** Writes what waits, marks what the exit cuts, and releases the store's locks (services.ts); the host is going away. */
  close(): void {
    this.services.close();
  }

  // ---- RPC entry points (each answers one Lua request) ----

  /** `:Tine model`: what the picker offers for thread `id`, and what it uses now. */
  modelChoices(id: ThreadId) {
    const runner = this.live(id).runner;
    const setupThinking = describeSetupThinking(this.config.thinking, this.config.effort);
    return modelChoices(runner.spec.model, modelNameOf(runner), { ...this.config, setupThinking });
  }

  /** `:Tine model`: thread `id`'s next requests use this model and thinking effort (its forks inherit them). */
  chooseModel(id: ThreadId, model: string, effort: ThinkingEffort): void {
    const thread = this.live(id);
    if (thread.readOnlyBy !== null)
      throw new Error(`tine: ${thread.title} is open for writing in another Neovim: its model cannot be changed here`);
    const conversation = drive(thread.runner, "choose its model");
    if (conversation.modelName === null) conversation.chooseModel({ model, effort }); // its program says why not
    const unknown = unknownModel(model, this.config);
    if (unknown) throw new Error(unknown);
    // Without a choice of its own it used setup's model and thinking: choosing them again changes nothing.
    const before = thread.runner.spec.model ?? { model: this.config.model, effort: "setup" };
    const notice = choiceNotice(thread.title, before, { model, effort });
    this.dispatch({ type: "thread-msg", id, msg: { type: "choose-model", choice: { model, effort } } });
    if (notice) this.nvim.notifyInfo(notice);
  }

  /** The active thread's buffers; without one, the thread the user was last in (after a restart), else a first thread. */
  async activeBuffers(): Promise<{ id: ThreadId; display: number; input: number; interrupted?: boolean }> {
    const active = this.chat.active;
    if (!active) {
      const last = this.lastActive?.pick(this.chat, this.queries.recent());
      return last ? this.select(last) : this.threads.newThread();
    }
    const m = await this.buffers.of(active.id);
    return { id: active.id, display: m.display, input: m.input };
  }

  /** Makes a thread the active one, loading it from disk first when it is stored. */
  async select(
    id: ThreadId,
  ): Promise<{ id: ThreadId; display: number; input: number; read_only_by: number | null; interrupted?: boolean }> {
    // Read from disk cut off when tine stopped: the Lua side offers to go on.
    const cut = this.chat.stored.get(id)?.interrupted ? { interrupted: true } : {};
    if (!this.chat.threads.has(id)) {
      // A long one shows its end first; it is read whole after this answer (see `opening`).
      const early = await this.opening.showEnd(id);
      if (early) return { id, ...early, ...cut };
      this.load(id);
    } else this.takeOverIfFree(id);
    if (this.chat.forks.get(id)?.background) this.dispatch({ type: "chat-msg", msg: { type: "fork-opened", id } });
    this.dispatch({ type: "chat-msg", msg: { type: "select-thread", id } });
    const m = await this.buffers.of(id);
    return { id, display: m.display, input: m.input, read_only_by: this.live(id).readOnlyBy, ...cut };
  }

  /** Reads a stored thread and makes it live (live-threads.ts). */
  private load(id: ThreadId): void {
    this.threads.load(id);
  }

  /** A thread open read-only here whose writer is gone is taken over (live-threads.ts). */
  private takeOverIfFree(id: ThreadId): void {
    this.threads.takeOverIfFree(id);
  }

  abort(id: ThreadId): void {
    this.live(id);
    this.dispatch({ type: "thread-msg", id, msg: { type: "abort" } });
  }

  // ---- forks that come back ----

  discardFork(id: ThreadId): void {
    this.checkForkEnd(id, "discarded");
    this.dispatch({ type: "chat-msg", msg: { type: "fork-discard", id } });
  }

  /** The parent (loaded first if stored) takes the fork's history. */
  async promoteFork(id: ThreadId): Promise<ThreadId> {
    // The parent takes the fork's marks with its history: its last turn's snapshot among them.
    await this.code.settled();
    this.checkForkEnd(id, "promoted");
    const parentId = this.chat.lineage.get(id)!.parentId;
    if (!this.chat.threads.has(parentId)) this.load(parentId);
    const branch = this.chat.mint();
    this.dispatch({ type: "chat-msg", msg: { type: "fork-promote", id, siblingId: branch.id, siblingNum: branch.num } });
    // A worktree fork's files are merged into the parent's first, then it is promoted (node/worktree/fork-code.ts).
    await this.forkCode.settled(id);
    if (this.chat.threads.has(id)) throw new Error(`tine: could not promote ${this.chat.titleOf(id)}`);
    return parentId;
  }

  reportFork(id: ThreadId, text?: string): void {
    this.checkForkEnd(id, "reported");
    this.dispatch({ type: "chat-msg", msg: { type: "fork-report", id, ...(text?.trim() ? { text } : {}) } });
  }

  /**
   * The reason a fork exit called on `id` is refused, as the caller's error. A stored fork (a
   * fan-out's after a restart, ended from :Tine compare or the list) is opened for its end first,
   * as graft opens one: it ends as a live fork does.
   */
  private checkForkEnd(id: ThreadId, how: ForkEnd): void {
    if (!this.chat.threads.has(id) && this.chat.stored.get(id)?.relation === "fork") this.load(id);
    const blocker = this.chat.forkEndBlocker(id, how);
    if (blocker) throw new Error(blocker);
    if (this.forkCode.busy(id)) throw new Error(`tine: ${this.chat.titleOf(id)}: its code is being merged into its parent's folder`);
  }

  rename(id: ThreadId, title: string): void {
    const clean = cleanTitle(title);
    if (!clean) throw new Error("tine: a title cannot be empty (control characters are left out)");
    const live = this.chat.threads.get(id);
    if (live) {
      this.takeOverIfFree(id);
      // Not written here, a new title would be lost: refused, as a send is.
      if (live.readOnlyBy !== null)
        throw new Error(`tine: ${live.title} is open for writing in another Neovim (pid ${live.readOnlyBy}): it cannot be renamed here`);
      this.dispatch({ type: "thread-msg", id, msg: { type: "rename", title: clean } });
      return;
    }
    if (!this.chat.stored.has(id)) throw new Error(`tine: ${threadName(this.chat, id)} cannot be renamed`);
    this.persistence?.renameStored(id, clean);
    this.dispatch({ type: "chat-msg", msg: { type: "rename-stored", id, title: clean } });
  }

  /** `L`: the user's label on a thread (`target` null) or on one of its messages; "" removes it. */
  label(id: ThreadId, target: LabelTarget, text: string): void {
    const clean = cleanLabel(text);
    const live = this.chat.threads.get(id);
    if (live) {
      if (live.readOnlyBy !== null)
        throw new Error(`tine: ${threadName(this.chat, id)} is open for writing in another Neovim: it cannot be labelled here`);
      if (target !== null && target >= live.runner.history.length)
        throw new Error(`tine: ${threadName(this.chat, id)} has no such message`);
      this.dispatch({ type: "thread-msg", id, msg: { type: "label", target, text: clean } });
      return;
    }
    if (!this.chat.stored.has(id) || target !== null)
      throw new Error(`tine: ${threadName(this.chat, id)} is not open: open it to label its messages`);
    this.persistence?.labelStored(id, clean);
    this.dispatch({ type: "chat-msg", msg: { type: "label-stored", id, label: clean || null } });
  }

  /** Deletes a thread; its forks keep their whole history (see Persistence / ThreadStore.delete). */
  delete(id: ThreadId): void {
    if (!this.chat.has(id)) throw new Error(`tine: ${threadName(this.chat, id)} cannot be deleted`);
    const thread = this.chat.threads.get(id);
    if (thread?.readOnlyBy != null) throw new Error(`tine: ${thread.title} is open in another Neovim (pid ${thread.readOnlyBy})`);
    this.persistence?.delete(id);
    this.dispatch({ type: "chat-msg", msg: { type: "delete-thread", id } });
  }

  /** The user left a thread (another took its windows, its input blank): an empty one goes (empty-thread.ts). */
  threadLeft(id: ThreadId): void {
    const thread = this.chat.threads.get(id);
    if (!thread || this.chat.activeId === id || !isEmptyThread(this.chat, thread, this.forks.waiting(id) !== undefined)) return;
    this.delete(id);
  }

  messageLine(id: ThreadId, index: number): Promise<number | null> | null {
    return index < this.live(id).runner.history.length ? this.buffers.messageLine(id, index) : null;
  }

  /** A key pressed on a display line: toggle a detail, or answer a tool awaiting approval. */
  lineAction(id: ThreadId, line: number, action: LineAction, reason?: string): void {
    lineAction(
      this.live(id),
      this.buffers.locate(id, line),
      action,
      this.dispatch,
      (thread, message, file) => this.code.toggle(thread, message, file).catch((e: Error) => this.nvim.notifyError(e.message)),
      reason,
    );
  }

  /** A thread's usage (node/usage/); a stored one is loaded first: its figures are in its history. */
  usageOf(id: ThreadId) {
    if (this.chat.isStored(id)) this.load(id);
    const thread = this.live(id);
    return showsUsage(thread.runner) ? this.usage.info(thread) : null;
  }

  /**
   * Two branches from their common ancestor, for `:Tine diff`: their messages, and the files they
   * differ in (as they are now, snapshot/compare.ts). `b` defaults to `a`'s parent. Threads by id or display number.
   */
  async diff(aRef: string, bRef?: string) {
    const a = this.queries.resolve(aRef);
    const b = bRef ? this.queries.resolve(bRef) : this.chat.lineage.get(a)?.parentId;
    if (!b || !this.chat.has(b))
      throw new Error("tine: :Tine diff in a fork compares it with its parent; elsewhere name two threads (:Tine diff 1 3)");
    const [ca, cb] = [await this.code.settledCode(a), await this.code.settledCode(b)];
    const side = (id: ThreadId, { title, code, history }: ThreadCode) => {
      const shown = this.chat.threads.get(id)?.runner.history ?? this.persistence!.storedSource(id).history;
      return { id, title, history: shown, latest: latestMark(code, history)?.id ?? null, folder: this.workspaces.of(id) };
    };
    const [sa, sb] = [side(a, ca), side(b, cb)];
    const states = await branchStates(sa, sb);
    return { ...diffBranches(sa, sb), code: await compareBranches(this.code.snapshots, ...states) };
  }

  /** What `:checkhealth tine` reports of the store. */
  storeHealth() {
    if (!this.persistence) return { persist: false, dir: null, threads: 0, unreadable: [], problems: [] };
    const { health, unreadable } = this.persistence.health();
    this.services.unreadable = unreadable;
    return health;
  }

  /** What `:checkhealth tine` reports of this project's worktrees (node/worktree/health.ts). */
  worktreeHealth(): Promise<WorktreeReport> {
    const stored = [...this.chat.stored.values(), ...(this.persistence?.scan().ended ?? [])];
    const worksIn = (id: ThreadId) => this.workspaces.of(id).stored?.path ?? null;
    return this.codeServices.health(
      worktreeUsers(this.chat.threads.values(), stored, worksIn, (id) => this.persistence?.storedCode(id) ?? null),
    );
  }

  /** A live thread (an error names a stored one, which must be opened first; live-threads.ts). */
  live(id: ThreadId): Thread {
    return this.threads.live(id);
  }
}
