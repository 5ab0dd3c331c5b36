/**
 * The root: one dispatch loop for every message and the RPC entry points the Lua side calls.
 * After each batch of messages, the store writes what changed (`Persistence`) and the buffers
 * are derived from state (`Buffers`).
 *
 * Longer than 300 lines because it is the one list of what the host answers (rpc/methods.ts
 * names them): each entry point checks what only the host knows and dispatches, in a few lines;
 * the work lives in chat/, view/, store/ and claude-code/.
 */
import { Chat } from "./chat/chat.ts";
import { isEmptyThread } from "./chat/empty-thread.ts";
import { ForkClock } from "./chat/fork-clock.ts";
import { cleanLabel, type LabelTarget } from "./chat/labels.ts";
import type { ChatMsg, Dispatch, ForkEnd, ForkRequest, RootMsg, ThreadId } from "./chat/msgs.ts";
import { threadName, typedText } from "./chat/names.ts";
import type { Runners } from "./chat/runner.ts";
import { parseSend } from "./chat/send-command.ts";
import { cleanTitle, type Thread } from "./chat/thread.ts";
import { workingNow } from "./chat/working.ts";
import { ClaudeCodeThreads, type Opened } from "./claude-code/threads.ts";
import { Compaction } from "./compact/compaction.ts";
import type { HostConfig } from "./config.ts";
import { MentionCompleter } from "./context/complete.ts";
import { expandMentions } from "./context/expand.ts";
import type { ContextLimits } from "./context/files.ts";
import type { SendContext } from "./context/follow.ts";
import { McpServers } from "./mcp/registry.ts";
import { McpTools } from "./mcp/tools.ts";
import type { NvimBridge } from "./nvim/bridge.ts";
import { choiceNotice, modelChoices, type ThinkingEffort } from "./providers/models.ts";
import { askTitle, askTitles, type Exchange } from "./providers/title.ts";
import { connectionFor, runnerRegistryFor } from "./runners.ts";
import type { CodeActions, ThreadCode } from "./snapshot/actions.ts";
import { latestMark } from "./snapshot/code.ts";
import { compareBranches } from "./snapshot/compare.ts";
import { codeRecorder } from "./snapshot/recorder.ts";
import { LastActive } from "./store/last-active.ts";
import { Persistence } from "./store/persistence.ts";
import { ThreadStore, type Unreadable } from "./store/store.ts";
import { StoreClock } from "./store/store-clock.ts";
import { builtinTools } from "./tools/builtin.ts";
import { ToolSources } from "./tools/source.ts";
import { UsageBook } from "./usage/book.ts";
import { startTimer } from "./util/timer.ts";
import { randomUuid } from "./util/uuid.ts";
import { diffBranches } from "./view/branch-diff.ts";
import { Buffers } from "./view/buffers.ts";
import { type LineAction, lineAction } from "./view/line-actions.ts";
import { ThreadListEntry } from "./view/list-entry.ts";
import { OpenFromEnd } from "./view/open-from-end.ts";
import { ThreadQueries } from "./view/thread-queries.ts";
import { CodeServices } from "./worktree/code-services.ts";
import type { ForkCode } from "./worktree/fork-code.ts";
import { forkBase, type Workspaces } from "./worktree/workspaces.ts";

/** How long after start-up the snapshot housekeeping runs (once a day at most). */
const SNAPSHOT_HOUSEKEEPING_DELAY_MS = 10_000;

/** The fields of a `new-thread` message the caller chooses (the id is the host's; the number too unless claimed before). */
type NewThreadFields = Omit<Extract<ChatMsg, { type: "new-thread" }>, "type" | "newId" | "num"> & { num?: number };

export class App {
  readonly chat: Chat;
  private readonly buffers: Buffers;
  private readonly runners: Runners;
  readonly queries: ThreadQueries;
  /** Long stored threads shown from their end before they are read whole. */
  private readonly opening: OpenFromEnd;
  readonly claudeCode: ClaudeCodeThreads;
  /** Completion of mentions in the inputs, for the project's folder. */
  readonly completer: MentionCompleter;
  /** What the user does with code snapshots: change lists, restore (node/snapshot/). */
  readonly code: CodeActions;
  /** Snapshots, workspaces, worktree forks' ends (node/worktree/code-services.ts). */
  private readonly codeServices: CodeServices;
  /** Where each thread works: the project's folder or a fork's worktree (node/worktree/). */
  readonly workspaces: Workspaces;
  /** What a worktree fork's end does to its files: merge, summary, removal. */
  readonly forkCode: ForkCode;
  /** Null with `persist = false`: nothing is written. */
  private readonly persistence: Persistence | null;
  private unreadable: readonly Unreadable[] = [];
  /** What the Lua side asks of the thread list. */
  readonly list: ThreadListEntry;
  /** Null with `persist = false`. */
  private readonly storeClock: StoreClock | null;
  private readonly forkClock: ForkClock;
  private readonly queue: RootMsg[] = [];
  private draining = false;
  private readonly contextLimits: ContextLimits;
  /** Asks the model for a thread's title (`auto_title`); null when turned off. */
  private readonly askTitle: ((exchange: Exchange) => Promise<string | null>) | null;
  /** The MCP servers, shared by every thread; each starts on first use. */
  readonly mcp: McpServers;
  /** What each thread's requests used and cost (node/usage/). */
  readonly usage: UsageBook;
  /** `@compact`, `C` and `auto_compact` (node/compact/). */
  readonly compaction: Compaction;
  /** The thread the user was last in, kept for `:Tine` after a restart; null with `persist = false`. */
  private readonly lastActive: LastActive | null;

  constructor(
    private readonly nvim: NvimBridge,
    readonly config: HostConfig,
  ) {
    this.contextLimits = { maxBytes: config.context_max_bytes, maxFiles: config.context_max_files };
    const written = (by: string) => (path: string) =>
      void this.nvim.call("file_written", [path, by]).catch((e) => this.nvim.log(`file_written failed: ${String(e)}`));
    const tell = (text: string, error: boolean) => (error ? nvim.notifyError(text) : nvim.notifyInfo(text));
    this.codeServices = new CodeServices(config, {
      thread: (id) => this.live(id),
      codeOf: (id) => this.codeOf(id),
      parentOf: (id) => this.chat.lineage.get(id)?.parentId,
      dispatch: this.dispatch,
      written,
      log: (text) => nvim.log(text),
      tell,
      quickfix: (title, items) =>
        void nvim.call("set_quickfix", [title, items]).catch((e) => nvim.log(`set_quickfix failed: ${String(e)}`)),
      report: (parentId, report) =>
        this.chat.threads.has(parentId)
          ? this.dispatch({ type: "thread-msg", id: parentId, msg: { type: "queue-report", report } })
          : this.persistence?.reportToStored(parentId, report),
      live: () => this.chat.threads.keys(),
    });
    const { workspaces, actions, forkCode, snapshotsOf } = this.codeServices;
    this.workspaces = workspaces;
    this.code = actions;
    this.forkCode = forkCode;
    this.persistence = config.persist ? new Persistence(new ThreadStore(config.data_dir, config.cwd), config.model) : null;
    this.lastActive = this.persistence ? new LastActive(this.persistence.store.dir) : null;
    if (this.persistence) this.persistence.worktreeOf = (id) => this.workspaces.of(id).stored ?? undefined;
    this.mcp = new McpServers(config.mcp_servers, {
      root: config.cwd,
      vars: process.env,
      timeoutMs: config.mcp_timeout * 1000,
      projectFiles: config.mcp_project_files,
      notify: (n) => (n.level === "error" ? this.nvim.notifyError(n.text) : this.nvim.notifyInfo(n.text)),
    });
    const mcpTools = new McpTools(this.mcp, config.mcp_auto_approve);
    const tools = new ToolSources([builtinTools(config.tools_needing_approval), mcpTools]);
    const connection = connectionFor(config);
    this.runners = runnerRegistryFor(config, connection, mcpTools);
    const titleModel = config.auto_title === true ? config.model : config.auto_title || null;
    this.askTitle = titleModel ? (exchange) => askTitle(connection, titleModel, exchange) : null;
    this.chat = new Chat(
      this.dispatch,
      this.runners,
      {
        // The project's folder, or the worktree of a fork made with one (and of the forks that share it).
        environmentFor: (id) => this.workspaces.of(id).environment,
        worksApart: (id) => this.workspaces.apart(id),
        tools,
        fileWritten: written("edit_file"),
        code: codeRecorder(snapshotsOf, this.dispatch, tell),
      },
      {
        threadCreated: (thread, how) => {
          this.persistence?.created(thread, this.chat, how);
          // A background fork (or a promote's branch) gets its buffers when it is opened.
          if (!how.background) this.buffers.mount(thread, how);
        },
        threadDeleted: (id) => {
          this.buffers.unmount(id);
          this.usage.forget(id);
          this.compaction.forget(id);
        },
        forkEnded: (fork, how, into) => {
          this.persistence?.ended(this.chat, fork, how, into);
          // The parent takes the fork's windows: one stored is loaded to show the report.
          const parentId = into ?? this.chat.lineage.get(fork.id)?.parentId;
          if (parentId && this.buffers.get(fork.id) && this.chat.isStored(parentId)) this.load(parentId);
          this.buffers.handOver(fork.id, parentId);
          const verb = { discarded: "was discarded", reported: "reported back", promoted: "was promoted" }[how];
          // A conversation tine does not hold stays where it is: only the code of such a fork comes back.
          const kept = how === "promoted" && fork.runner.traits.ownConversation;
          const codeOnly = kept && parentId ? ` into ${this.chat.titleOf(parentId)} by its code: its conversation stays in ${kept}` : "";
          this.nvim.notifyInfo(`tine: ${fork.title} ${verb}${into ? ` into ${this.chat.titleOf(into)}` : codeOnly}`);
          if (parentId)
            this.forkCode.ended({ id: fork.id, title: fork.title, parentId, parentTitle: this.chat.titleOf(parentId) ?? "" }, how);
        },
        reportToStored: (parentId, report) => this.persistence?.reportToStored(parentId, report),
        branched: (parentId, siblingId, atMessage) => this.persistence?.branched(parentId, siblingId, atMessage),
        claimNum: (atLeast) => this.persistence?.store.claimNum(atLeast) ?? atLeast,
      },
      { now: () => Date.now(), forkIdleTimeoutMs: config.fork_idle_timeout * 60_000 },
      { agentForkLimit: config.agent_fork_limit },
    );
    const expired = (id: ThreadId) => this.buffers.scheduleRender({ threads: [id], tree: false, moved: [] });
    const storedHistory = (id: ThreadId) => this.persistence?.storedSource(id).history ?? null;
    this.usage = new UsageBook(this.chat, config.prices, config.cache_lifetime * 60_000, expired, storedHistory);
    this.buffers = new Buffers(
      nvim,
      this.chat,
      config.fork_open,
      {
        usage: (thread) => this.usage.listDetails(thread),
        winbar: (thread) => this.usage.winbar(thread),
        updated: (id) => this.persistence?.updated.get(id),
        unreadable: () => this.unreadable,
        label: (spec) => this.runners.label(spec),
        ownMessages: (spec) => this.runners.ownMessages(spec),
        notSaved: (id) => this.persistence?.notSaved(id),
        worksIn: (id) => this.workspaces.of(id).stored?.path ?? null,
      },
      config.empty_hint,
      { ...config.fork_keys, editQueued: config.keymaps.edit_queued },
      config.display_fill_step,
    );
    this.queries = new ThreadQueries(
      this.chat,
      this.buffers,
      (id) => this.persistence?.updated.get(id),
      this.usage,
      (id) => this.workspaces.of(id).root,
    );
    this.opening = new OpenFromEnd({
      stored: (id) => (this.persistence ? this.chat.stored.get(id) : undefined),
      tail: (id, minBytes) => this.persistence?.tail(id, minBytes) ?? null,
      lockedBy: (id) => this.persistence?.store.lockedBy(id) ?? null,
      showEnd: (id, num, title, lines) => this.buffers.showEnd(id, num, title, lines),
      fillStep: config.display_fill_step,
      open: (id) => {
        if (!this.chat.threads.has(id)) this.load(id);
        this.dispatch({ type: "chat-msg", msg: { type: "select-thread", id } });
      },
      notifyError: (text) => this.nvim.notifyError(text),
    });
    this.claudeCode = new ClaudeCodeThreads(
      {
        create: (fields) => this.create(fields),
        historyOf: (id) =>
          this.chat.threads.get(id)?.runner.history ?? (this.chat.stored.has(id) ? this.persistence?.storedSource(id).history : undefined),
        titleOf: (id) => this.chat.titleOf(id),
        nextNum: () => this.chat.nextNum(),
        warn: (message) => this.nvim.notifyError(message),
      },
      config.cwd,
    );
    this.completer = new MentionCompleter(config.cwd, config.complete_max_items);
    this.list = new ThreadListEntry(this.chat, this.buffers, this.persistence, () => this.rescan());
    this.storeClock = this.persistence
      ? new StoreClock(this.persistence, this.chat, {
          notify: (level, text) => (level === "error" ? this.nvim.notifyError(text) : this.nvim.notifyInfo(text)),
          redraw: () => this.buffers.redraw(),
        })
      : null;
    this.forkClock = new ForkClock(this.chat, this.dispatch);
    this.compaction = new Compaction(
      {
        chat: this.chat,
        dispatch: this.dispatch,
        notifyInfo: (text) => this.nvim.notifyInfo(text),
        offer: (id, text) =>
          void this.nvim.call("offer_compact", [id, text]).catch((e) => this.nvim.log(`offer_compact failed: ${String(e)}`)),
        contextWindow: (model) => this.usage.contextWindow(model),
      },
      config.auto_compact,
    );
    this.rescan();
    // Off the start's path: snapshots of threads that are gone (and old ones) are dropped, once a day.
    startTimer(
      () =>
        this.codeServices.prune(() => [...(this.persistence?.store.list().threads.map((t) => t.id) ?? []), ...this.chat.threads.keys()]),
      SNAPSHOT_HOUSEKEEPING_DELAY_MS,
    ).unref();
  }

  /** Reads what the store holds for this project into the chat (threads stay unloaded). */
  private rescan(): void {
    if (!this.persistence) return;
    try {
      const { threads, unreadable } = this.persistence.scan();
      this.unreadable = unreadable;
      this.dispatch({ type: "chat-msg", msg: { type: "stored-found", threads } });
    } catch (error) {
      this.nvim.notifyError(`tine: could not list stored threads: ${(error as Error).message}`);
    }
  }

  dispatch: Dispatch = (msg) => {
    this.queue.push(msg);
    if (this.draining) return;
    this.draining = true;
    try {
      while (this.queue.length) {
        const next = this.queue.shift()!;
        try {
          this.chat.update(next);
        } catch (error) {
          this.nvim.notifyError(`tine: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    } finally {
      this.draining = false;
    }
    // Only what this batch changed is written and drawn.
    const changes = this.chat.takeChanges();
    this.storeClock?.sync(null, changes);
    this.lastActive?.note(this.chat);
    this.forkClock.arm();
    this.buffers.scheduleRender(changes);
    if (this.askTitle) askTitles(this.chat.threads, changes.threads, this.askTitle, this.dispatch);
    this.compaction?.checkMarks(changes.threads);
  };

  /** Writes what waits (streamed text, a retry), marks what the exit cuts, and releases the store's locks; the host is going away. */
  close(): void {
    try {
      this.persistence?.sync(this.chat, Number.POSITIVE_INFINITY);
      this.persistence?.interrupted(workingNow(this.chat).map((w) => w.id));
    } catch (error) {
      // On the way out: the locks must still be released.
      this.nvim.log(`the last store sync failed: ${String(error)}`);
    }
    this.persistence?.close();
    this.mcp.killAll();
  }

  // ---- RPC entry points (each answers one Lua request) ----

  /**
   * The one entry for user input: `@`-commands are routed here, before any Thread sees them; the
   * thread decides whether a message goes now or waits for the turn to end (send-queue.ts). An
   * empty send sends what waits; with nothing waiting it is refused, saying so. After an error the new text replaces the failed
   * turn's; that text is returned, for the input.
   */
  async send(id: ThreadId, text: string): Promise<{ replaced: string }> {
    this.takeOverIfFree(id);
    const thread = this.live(id);
    const command = parseSend(text);
    if (command.type === "fork") {
      // A fork's prompt is a message like any other: its mentions go with it (the fork shares this history).
      const tree = command.worktree ? { worktree: true } : {};
      await this.fork(id, command.prompt, tree, (command.prompt && (await this.expand(thread, command.prompt))) || undefined);
      return { replaced: "" };
    }
    if (command.type === "background-fork") {
      if (!command.prompt) throw new Error("tine: @bg needs a prompt: the fork runs it without a window and reports back");
      const tree = command.worktree ? { worktree: true } : {};
      await this.fork(id, command.prompt, { background: true, ...tree }, (await this.expand(thread, command.prompt)) ?? undefined);
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
    const context = await this.expand(thread, command.text);
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

  /** `:Tine model`: what the picker offers for thread `id`, and what it uses now. */
  modelChoices(id: ThreadId) {
    const runner = this.live(id).runner;
    return modelChoices(runner.spec.model, runner.modelName, this.config);
  }

  /** `:Tine model`: thread `id`'s next requests use this model and thinking effort (its forks inherit them). */
  chooseModel(id: ThreadId, model: string, effort: ThinkingEffort): void {
    const thread = this.live(id);
    if (thread.readOnlyBy !== null)
      throw new Error(`tine: ${thread.title} is open for writing in another Neovim: its model cannot be changed here`);
    if (thread.runner.modelName === null) thread.runner.chooseModel({ model, effort }); // its runner says why not
    const notice = choiceNotice(thread.title, thread.runner.spec.model, { model, effort });
    this.dispatch({ type: "thread-msg", id, msg: { type: "choose-model", choice: { model, effort } } });
    if (notice) this.nvim.notifyInfo(notice);
  }

  /** What a send of `text` to `thread` carries besides the text: its mentions and the files followed, resolved. */
  expand(thread: Thread, text: string) {
    return expandMentions(text, thread.sendBase(), {
      environment: thread.environment,
      limits: this.contextLimits,
      gather: (request) => this.nvim.gatherContext(request),
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
    opts: { at_message?: number; prefill?: string; wait?: boolean; background?: boolean; restore_code?: boolean; worktree?: boolean } = {},
    /** What the prompt's mentions resolved to (a prompt typed in the input: `@fork`, `@bg`). */
    context?: SendContext,
  ): Promise<ThreadId | null> {
    const live = this.chat.threads.get(sourceId);
    if (opts.restore_code && opts.at_message === undefined) throw new Error("tine: restore_code forks at a message: give at_message too");
    // A worktree asked for must be made; one the option gives is made where it can be (a git repository).
    const tree = opts.worktree ?? (this.wantsWorktree(opts.background === true) && (await this.workspaces.available()));
    if (opts.restore_code && !tree) {
      // The files first, as they were at the fork point (files changed since are left alone, and named).
      const { left } = await this.code.restore(sourceId, opts.at_message!, false);
      if (left.length) this.nvim.notifyInfo(`tine: left alone (changed since, not overwritten): ${left.join(", ")}`);
    }
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
    };
    /** Makes the fork, unless `wanted` says no more once its worktree is made (which then goes). */
    const make = async (wanted = () => true) => {
      // In a worktree made from the fork point's files (with restore_code: the message's), or where its source works.
      if (!tree) this.workspaces.share(newId, sourceId);
      else {
        const made = await this.workspaces.fork(sourceId, newId, num, opts.restore_code && live ? forkBase(live, opts.at_message!) : null);
        if (!wanted()) return this.workspaces.remove(made.root);
      }
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
    if (!this.chat.waitingForks.has(sourceId) && !background) await this.buffers.of(newId);
    return newId;
  }

  /** Whether `fork_worktree` gives a fork (a background one or not) a worktree without being asked. */
  private wantsWorktree(background: boolean): boolean {
    const option = this.config.fork_worktree;
    return option === "always" || (option === "background" && background);
  }

  newThread(): Promise<Opened> {
    return this.create({ runner: { kind: "api" } });
  }

  /** Makes a thread of any kind and waits for its buffers. */
  async create(fields: NewThreadFields): Promise<Opened> {
    const newId = randomUuid();
    const { num, ...rest } = fields;
    this.dispatch({ type: "chat-msg", msg: { type: "new-thread", newId, num: num ?? this.chat.nextNum(), ...rest } });
    const m = await this.buffers.of(newId);
    return { id: newId, display: m.display, input: m.input };
  }

  /** The active thread's buffers; without one, the thread the user was last in (after a restart), else a first thread. */
  async activeBuffers(): Promise<{ id: ThreadId; display: number; input: number }> {
    const active = this.chat.active;
    if (!active) {
      const last = this.lastActive?.pick(this.chat, this.queries.recent());
      return last ? this.select(last) : this.newThread();
    }
    const m = await this.buffers.of(active.id);
    return { id: active.id, display: m.display, input: m.input };
  }

  /** Makes a thread the active one, loading it from disk first when it is stored. */
  async select(id: ThreadId): Promise<{ id: ThreadId; display: number; input: number; read_only_by: number | null }> {
    if (!this.chat.threads.has(id)) {
      // A long one shows its end first; it is read whole after this answer (see `opening`).
      const early = await this.opening.showEnd(id);
      if (early) return { id, ...early };
      this.load(id);
    } else this.takeOverIfFree(id);
    if (this.chat.forks.get(id)?.background) this.dispatch({ type: "chat-msg", msg: { type: "fork-opened", id } });
    this.dispatch({ type: "chat-msg", msg: { type: "select-thread", id } });
    const m = await this.buffers.of(id);
    return { id, display: m.display, input: m.input, read_only_by: this.live(id).readOnlyBy };
  }

  /** Reads a stored thread (or one open read-only here, to take it over) and makes it live. */
  private load(id: ThreadId): void {
    if (!this.chat.has(id) || !this.persistence) throw new Error(`tine: ${threadName(this.chat, id)} cannot be opened`);
    const { loaded, readOnlyBy } = this.persistence.open(id);
    if (loaded.problems.length) {
      const lines = loaded.problems.map((p) => `line ${p.line}: ${p.error}`).join("; ");
      this.nvim.notifyError(`tine: ${loaded.raw.title}: some of its transcript could not be read and was skipped (${lines})`);
    }
    const { title, reports, queue, code, labels } = loaded.raw;
    const { history, runner } = loaded;
    // Before the thread is made: its tools work in its worktree from the start.
    this.workspaces.adopt(id, loaded.header.worktree, code.at(-1)?.id ?? null);
    this.dispatch({
      type: "chat-msg",
      msg: { type: "load-thread", id, title, history, runner, readOnlyBy, reports, queue, code, labels },
    });
  }

  /**
   * A thread open read-only here whose writer is gone (that Neovim quit or died) is taken over
   * before anything would write it: read again from disk, and writable here.
   */
  private takeOverIfFree(id: ThreadId): void {
    if (this.chat.threads.get(id)?.readOnlyBy == null || this.persistence?.store.lockedBy(id) !== null) return;
    this.load(id);
  }

  abort(id: ThreadId): void {
    this.live(id);
    this.dispatch({ type: "thread-msg", id, msg: { type: "abort" } });
  }

  /** Cancels the fork waiting for `sourceId` to come to rest, if any, and says so. */
  cancelWaitingFork(sourceId: ThreadId): boolean {
    if (!this.chat.waitingForks.has(sourceId)) return false;
    this.dispatch({ type: "chat-msg", msg: { type: "cancel-waiting-fork", sourceId } });
    this.nvim.notifyInfo(`tine: the fork waiting for "${this.chat.titleOf(sourceId)}" is cancelled`);
    return true;
  }

  // ---- forks that come back ----

  discardFork(id: ThreadId): void {
    this.checkForkEnd(id, "discarded");
    this.dispatch({ type: "chat-msg", msg: { type: "fork-discard", id } });
  }

  /** The parent (loaded first if stored) takes the fork's history. */
  async promoteFork(id: ThreadId): Promise<ThreadId> {
    this.checkForkEnd(id, "promoted");
    const parentId = this.chat.lineage.get(id)!.parentId;
    if (!this.chat.threads.has(parentId)) this.load(parentId);
    this.dispatch({ type: "chat-msg", msg: { type: "fork-promote", id, siblingId: randomUuid(), siblingNum: this.chat.nextNum() } });
    if (this.chat.threads.has(id)) throw new Error(`tine: could not promote ${this.chat.titleOf(id)}`);
    // A worktree fork's files are merged into the parent's by then (node/worktree/fork-code.ts).
    await this.forkCode.settled(id);
    return parentId;
  }

  reportFork(id: ThreadId, text?: string): void {
    this.checkForkEnd(id, "reported");
    this.dispatch({ type: "chat-msg", msg: { type: "fork-report", id, ...(text?.trim() ? { text } : {}) } });
  }

  /** The reason a fork exit called on `id` is refused, as the caller's error. */
  private checkForkEnd(id: ThreadId, how: ForkEnd): void {
    const blocker = this.chat.forkEndBlocker(id, how);
    if (blocker) throw new Error(blocker);
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

  /** `e` on a message the user wrote: a fork at the message before it, with its text in the fork's input to edit and send. */
  editMessage(id: ThreadId, index: number): Promise<ThreadId | null> {
    const history = this.live(id).runner.history;
    // fork() would take the request for a cancel of that fork.
    if (this.chat.waitingForks.has(id)) throw new Error("tine: a fork waits for this reply to finish: cancel it first (<C-c> in the list)");
    const text = index < history.length ? typedText(history.at(index).message) : "";
    if (!text) throw new Error("tine: e edits a message you wrote: put the cursor on one of yours");
    return this.fork(id, "", { at_message: index - 1, prefill: text });
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
    if (!thread || this.chat.activeId === id || !isEmptyThread(this.chat, thread)) return;
    this.delete(id);
  }

  /** The user deleted a thread's buffer (:bd, :bw): they are made again when next shown. */
  buffersGone(id: ThreadId, draft: string[]): void {
    this.buffers.gone(id, draft);
  }

  threadForBuffer(buf: number): ThreadId | null {
    return this.buffers.threadForBuffer(buf);
  }

  /** What is at a display-buffer line: the message index and block. */
  locate(id: ThreadId, line: number) {
    return this.buffers.locate(id, line);
  }

  messageLine(id: ThreadId, index: number): Promise<number | null> | null {
    return index < this.live(id).runner.history.length ? this.buffers.messageLine(id, index) : null;
  }

  /** A key pressed on a display line: toggle a detail, or answer a tool awaiting approval. */
  lineAction(id: ThreadId, line: number, action: LineAction, reason?: string): void {
    lineAction(
      this.live(id),
      this.locate(id, line),
      action,
      this.dispatch,
      (thread, message, file) => this.code.toggle(thread, message, file).catch((e: Error) => this.nvim.notifyError(e.message)),
      reason,
    );
  }

  messages(id: ThreadId) {
    return this.live(id).runner.history.messages();
  }

  /** A thread's usage (node/usage/); a stored one is loaded first: its figures are in its history. */
  usageOf(id: ThreadId) {
    if (this.chat.isStored(id)) this.load(id);
    const thread = this.live(id);
    return thread.runner.nextRequest() === null ? null : this.usage.info(thread);
  }

  /**
   * Two branches from their common ancestor, for `:Tine diff`: their messages, and the files
   * their latest snapshots differ in. `b` defaults to `a`'s parent. Threads by id or display number.
   */
  async diff(aRef: string, bRef?: string) {
    const a = this.queries.resolve(aRef);
    const b = bRef ? this.queries.resolve(bRef) : this.chat.lineage.get(a)?.parentId;
    if (!b || !this.chat.has(b))
      throw new Error("tine: :Tine diff in a fork compares it with its parent; elsewhere name two threads (:Tine diff 1 3)");
    const side = (id: ThreadId) => {
      const { title, code, history } = this.codeOf(id);
      const shown = this.chat.threads.get(id)?.runner.history ?? this.persistence!.storedSource(id).history;
      return { title, history: shown, snapshot: latestMark(code, history)?.id ?? null };
    };
    const [sa, sb] = [side(a), side(b)];
    return { ...diffBranches(sa, sb), code: await compareBranches(this.code.snapshots, sa, sb) };
  }

  /** The code snapshots of a live or stored thread's messages (a stored one is read, not loaded). */
  private codeOf(id: ThreadId): ThreadCode {
    const title = this.chat.titleOf(id) ?? threadName(this.chat, id);
    const live = this.chat.threads.get(id);
    if (live) return { title, code: live.code, history: live.runner.history };
    if (!this.persistence || !this.chat.stored.has(id)) throw new Error(`tine: ${title} is not a thread of this project`);
    return { title, ...this.persistence.storedCode(id) };
  }

  /** What `:checkhealth tine` reports of the store. */
  storeHealth() {
    if (!this.persistence) return { persist: false, dir: null, threads: 0, unreadable: [], problems: [] };
    const { health, unreadable } = this.persistence.health();
    this.unreadable = unreadable;
    return health;
  }

  /** A thread's terminal program ended (a Claude Code session). */
  terminalExited(id: ThreadId): void {
    const surface = this.chat.threads.get(id)?.runner.surface;
    if (surface?.type === "terminal") surface.exited();
  }

  /** Lines of a thread's display buffer as the host sees it (tests, :checkhealth). */
  displayText(id: ThreadId): string[] {
    return this.buffers.get(id)?.view.text() ?? [];
  }

  /** A live thread (an error names a stored one, which must be opened first). */
  live(id: ThreadId): Thread {
    this.opening.finish(id);
    const t = this.chat.threads.get(id);
    if (!t) throw new Error(`tine: ${threadName(this.chat, id)} is not open${this.chat.stored.has(id) ? ": open it first" : ""}`);
    return t;
  }
}
