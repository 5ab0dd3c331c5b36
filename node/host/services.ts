/**
 * The host's services, built once from the options and wired to each other: the chat, the store
 * and its clock, the buffers, usage, compaction, the code side (snapshots, worktrees), MCP, the
 * fork side (fork-services.ts: the fork flow and fan-outs) and the fork clock; and the one
 * dispatch loop they share (dispatch-loop.ts), on which each service registers what it does after
 * a batch (`reactAfterEachBatch`): the store writes what changed (`Persistence`), the buffers are
 * derived from state (`Buffers`), and so on. Requests call the service that answers them
 * (requests.ts). What the chat's events do to the others is in chat-events.ts.
 *
 * Over 300 lines because it is the one place where the services are built and meet: each callback
 * below says what one service asks of the others.
 */
import { existsSync } from "node:fs";
import { AcpAgents } from "../acp/agent-pool.ts";
import { AcpThreads } from "../acp/threads.ts";
import { Chat } from "../chat/chat.ts";
import { ForkClock } from "../chat/fork-clock.ts";
import type { Dispatch } from "../chat/msgs.ts";
import { threadName } from "../chat/names.ts";
import type { Runners } from "../chat/runner.ts";
import { workingNow } from "../chat/working.ts";
import { ClaudeCodeThreads } from "../claude-code/threads.ts";
import { Compaction } from "../compact/compaction.ts";
import { MentionCompleter } from "../context/complete.ts";
import { readFacts, requestFor } from "../context/editor.ts";
import type { ContextLimits } from "../context/files.ts";
import type { ThreadId } from "../core/ids.ts";
import type { FanOuts } from "../fork/fanout.ts";
import type { ForkFlow } from "../fork/flow.ts";
import { McpServers } from "../mcp/registry.ts";
import { McpTools } from "../mcp/tools.ts";
import type { NvimBridge } from "../nvim/bridge.ts";
import { askTitle, askTitles, type Exchange, type TitleAnswer } from "../providers/title.ts";
import { type Reviews, reviewsFor } from "../review/review-services.ts";
import { LastActive } from "../store/last-active.ts";
import { Persistence } from "../store/persistence.ts";
import { ThreadStore, type Unreadable } from "../store/store.ts";
import { StoreClock } from "../store/store-clock.ts";
import { builtinTools } from "../tools/builtin.ts";
import { deniedVariables } from "../tools/environment.ts";
import { ToolSources } from "../tools/source.ts";
import { UsageBook } from "../usage/book.ts";
import { shownPath } from "../util/shown-path.ts";
import { startTimer } from "../util/timer.ts";
import { Buffers } from "../view/buffers.ts";
import { signInWaitLines } from "../view/display-parts.ts";
import { ThreadListEntry } from "../view/list-entry.ts";
import { OpenFromEnd } from "../view/open-from-end.ts";
import { ThreadQueries } from "../view/thread-queries.ts";
import { ThreadsMirror } from "../view/threads-mirror.ts";
import type { CodeActions } from "../worktree/code-actions.ts";
import { type CodeHooks, CodeServices } from "../worktree/code-services.ts";
import type { ForkCode } from "../worktree/fork-code.ts";
import { worktreeRefused } from "../worktree/stored-folder.ts";
import type { Workspaces } from "../worktree/workspaces.ts";
import { chatEvents } from "./chat-events.ts";
import type { HostConfig } from "./config.ts";
import { type Batch, DispatchLoop } from "./dispatch-loop.ts";
import { forkServices } from "./fork-services.ts";
import { LiveThreads } from "./live-threads.ts";
import { connectionFor, runnerRegistryFor } from "./runners.ts";

/** How long after start-up the snapshot housekeeping runs (once a day at most). */
const SNAPSHOT_HOUSEKEEPING_DELAY_MS = 10_000;

export class Services {
  readonly chat: Chat;
  readonly buffers: Buffers;
  private readonly runners: Runners;
  readonly queries: ThreadQueries;
  readonly threadsMirror: ThreadsMirror;
  /** Long stored threads shown from their end before they are read whole. */
  readonly opening: OpenFromEnd;
  /** Which threads are live, and making them so (live-threads.ts). */
  readonly threads: LiveThreads;
  /** When and where every fork is made, and the forks that wait (node/fork/). */
  readonly forks: ForkFlow;
  /** Fork ×N: fan-outs and their forks (node/fork/fanout.ts). */
  readonly fanouts: FanOuts;
  readonly claudeCode: ClaudeCodeThreads;
  /** ACP agents' threads (`:Tine agent`) and their processes. */
  readonly agents: AcpThreads;
  /** Completion of mentions in the inputs, for the project's folder. */
  readonly completer: MentionCompleter;
  /** What the user does with code snapshots: change lists, restore (node/snapshot/). */
  readonly code: CodeActions;
  /** Snapshots, workspaces, worktree forks' ends (node/worktree/code-services.ts). */
  readonly codeServices: CodeServices;
  /** A turn's edits reviewed hunk by hunk (node/review/). */
  readonly reviews: Reviews;
  /** Where each thread works: the project's folder or a fork's worktree (node/worktree/). */
  readonly workspaces: Workspaces;
  /** What a worktree fork's end does to its files: merge, summary, removal. */
  readonly forkCode: ForkCode;
  /** Null with `persist = false`: nothing is written. */
  readonly persistence: Persistence | null;
  /** What the last scan of the store could not read (the list and :checkhealth show it). */
  unreadable: readonly Unreadable[] = [];
  /** What the Lua side asks of the thread list. */
  readonly list: ThreadListEntry;
  /** Null with `persist = false`. */
  private readonly storeClock: StoreClock | null;
  private readonly forkClock: ForkClock;
  /** The one loop every service dispatches to; what reacts to its batches registers below (`afterEachBatch`). */
  private readonly loop = new DispatchLoop(
    { update: (msg) => this.chat.update(msg), takeChanges: () => this.chat.takeChanges() },
    (error) => {
      // Most of the chat's refusals already speak as tine ("tine: promote waits …"): one prefix.
      const text = error instanceof Error ? error.message : String(error);
      this.nvim.notifyError(text.startsWith("tine: ") ? text : `tine: ${text}`);
    },
  );
  readonly dispatch: Dispatch = this.loop.dispatch;
  readonly contextLimits: ContextLimits;
  /** Asks the model for a thread's title (`auto_title`); null when turned off. */
  private readonly askTitle: ((exchange: Exchange) => Promise<TitleAnswer>) | null;
  /** The MCP servers, shared by every thread; each starts on first use. */
  readonly mcp: McpServers;
  /** What each thread's requests used and cost (node/usage/). */
  readonly usage: UsageBook;
  /** `@compact`, `C` and `auto_compact` (node/compact/). */
  readonly compaction: Compaction;
  /** The thread the user was last in, kept for `:Tine` after a restart; null with `persist = false`. */
  readonly lastActive: LastActive | null;

  constructor(
    readonly nvim: NvimBridge,
    readonly config: HostConfig,
  ) {
    this.contextLimits = {
      maxBytes: config.context_max_bytes,
      maxFiles: config.context_max_files,
      gitTimeoutMs: config.context_git_timeout * 1000,
    };
    const written = (by: string) => (path: string) =>
      void this.nvim.call("file_written", [path, by]).catch((e) => this.nvim.log(`file_written failed: ${String(e)}`));
    const reviewed = (path: string) =>
      void nvim.call("review_changed", [path]).catch((e) => nvim.log(`review_changed failed: ${String(e)}`));
    const tell = (text: string, error: boolean) => (error ? nvim.notifyError(text) : nvim.notifyInfo(text));
    const codeHooks: CodeHooks = {
      thread: (id) => this.threads.live(id),
      codeOf: (id) => this.threads.codeOf(id),
      parentOf: (id) => this.chat.lineage.get(id)?.parentId,
      load: (id) => this.threads.load(id),
      storedWorktree: (id) => this.chat.stored.get(id)?.worktree ?? undefined,
      storedWorktreeRefused: (id, path, why) => this.threads.storedWorktreeRefused(id, path, why),
      unattendedLost: (id, why) =>
        tell(
          `${why}. "${this.chat.titleOf(id) ?? threadName(this.chat, id)}" works on in its worktree, attended: its tools ask as any thread's`,
          true,
        ),
      dispatch: this.dispatch,
      written,
      unsaved: async () => [...readFacts(await nvim.gatherContext(requestFor(new Set(["modified"])))).modified.keys()],
      log: (text) => nvim.log(text),
      tell,
      quickfix: (title, items) =>
        void nvim.call("set_quickfix", [title, items]).catch((e) => nvim.log(`set_quickfix failed: ${String(e)}`)),
      live: () => this.chat.threads.keys(),
      mergesChanged: () => this.buffers.redraw(),
    };
    this.codeServices = new CodeServices(config, codeHooks);
    this.reviews = reviewsFor(this.codeServices, config, { ...codeHooks, written: written("a review"), reviewed });
    const { workspaces, actions, forkCode, recorder } = this.codeServices;
    this.workspaces = workspaces;
    this.code = actions;
    this.forkCode = forkCode;
    this.persistence = config.persist ? new Persistence(new ThreadStore(config.data_dir, config.cwd), config.model) : null;
    this.lastActive = this.persistence ? new LastActive(this.persistence.store.dir) : null;
    if (this.persistence) this.persistence.worktreeOf = (id) => this.workspaces.of(id).stored ?? undefined;
    this.mcp = new McpServers(config.mcp_servers, {
      root: config.cwd,
      vars: process.env,
      denied: deniedVariables(config.tool_env_deny),
      timeoutMs: config.mcp_timeout * 1000,
      projectFiles: config.mcp_project_files,
      dataDir: config.data_dir,
      openUrl: (server, url) => this.nvim.openUrl(server, url),
      notify: (n) => (n.level === "error" ? this.nvim.notifyError(n.text) : this.nvim.notifyInfo(n.text)),
      elicitationWaiting: (id) =>
        void nvim.call("elicitation_waiting", [id, this.chat.titleOf(id) ?? ""]).catch((e) => nvim.log(String(e))),
      // What waits for a sign-in says so in its display (view/display-parts.ts).
      signInChanged: () => {
        for (const id of this.chat.threads.keys()) this.buffers.notesChanged(id);
      },
    });
    const mcpTools = new McpTools(this.mcp, config.mcp_auto_approve);
    const tools = new ToolSources([builtinTools(config.tools_needing_approval), mcpTools]);
    const connection = connectionFor(config);
    const acp = new AcpAgents(config.acp_agents, config.cwd, (line) => this.nvim.log(line));
    // The agents' sessions get tine's MCP servers, as tine resolves them (never with the host's credentials).
    acp.useMcp({ specs: () => this.mcp.all().map((s) => s.spec), denied: deniedVariables(config.tool_env_deny) });
    this.runners = runnerRegistryFor(config, connection, mcpTools, acp);
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
        code: recorder,
      },
      chatEvents(this, tell),
      { now: () => Date.now(), forkIdleTimeoutMs: config.fork_idle_timeout * 60_000 },
      { agentForkLimit: config.agent_fork_limit },
    );
    // A cache expiring, a fan-out fork's check starting or ending: its winbar, its list line and its entry in threads() change.
    const entryChanged = (id: ThreadId) => {
      this.threadsMirror.note([id], false);
      this.buffers.listBuffer.outdated();
      this.buffers.scheduleRender({ threads: [id], tree: false, moved: [] });
    };
    this.usage = new UsageBook(this.chat, config.prices, config.cache_lifetime * 60_000, entryChanged);
    this.buffers = new Buffers(
      nvim,
      this.chat,
      config.fork_open,
      {
        usage: (id) => this.usage.listDetails(id),
        winbar: (thread) => this.usage.winbar(thread),
        updated: (id) => this.persistence?.updated.get(id),
        unreadable: () => this.unreadable,
        label: (spec) => this.runners.label(spec),
        ownMessages: (spec) => this.runners.ownMessages(spec),
        notSaved: (id) => this.persistence?.notSaved(id),
        worksIn: (id) => this.workspaces.of(id).stored?.path ?? null,
        unattended: (id) => this.workspaces.of(id).unattended,
        waitingFork: (id) => this.forks.waiting(id)?.fork,
        onDisk: (path) => existsSync(path) && worktreeRefused(path, this.workspaces.folder()) === null,
        merges: (id) => this.forkCode.mergesInto(id),
        shownPath: (path) => shownPath(path, config.data_dir),
        fanOutMark: (id) => this.fanouts.listMark(id),
        checking: (id) => this.fanouts.checks.running(id),
        fanOutNotes: (id) => this.fanouts.notes(id),
        waitNotes: (id) => signInWaitLines(this.chat.threads.get(id)?.runner.status, () => this.mcp.waitingForSignIn()),
      },
      config.empty_hint,
      config.approval_hint,
      { ...config.fork_keys, editQueued: config.keymaps.edit_queued, resolveMerge: config.keymaps.resolve_merge },
      config.display_fill_step,
    );
    this.queries = new ThreadQueries(
      this.chat,
      this.buffers,
      (id) => this.persistence?.updated.get(id),
      this.usage,
      (id) => this.workspaces.of(id),
      // A runner whose conversation is tine's own keeps its requests' usage in its transcript.
      (spec) => this.runners.ownMessages(spec),
    );
    this.threadsMirror = new ThreadsMirror(
      this.queries,
      (mirrored) => void nvim.call("threads_pushed", [mirrored]).catch((e) => nvim.log(`threads_pushed failed: ${String(e)}`)),
    );
    // Pushed after the pass's buffer writes: once threads() says a reply came, its display shows it.
    this.buffers.afterEachPass(() => this.threadsMirror.passed());
    this.buffers.afterMountOrGone((id) => this.threadsMirror.note([id], false));
    this.opening = new OpenFromEnd({
      stored: (id) => (this.persistence ? this.chat.stored.get(id) : undefined),
      tail: (id, minBytes) => this.persistence?.tail(id, minBytes) ?? null,
      lockedBy: (id) => this.persistence?.store.lockedBy(id) ?? null,
      showEnd: (id, num, title, lines) => this.buffers.showEnd(id, num, title, lines),
      fillStep: config.display_fill_step,
      open: (id) => {
        if (!this.chat.threads.has(id)) this.threads.load(id);
        this.dispatch({ type: "chat-msg", msg: { type: "select-thread", id } });
      },
      notifyError: (text) => this.nvim.notifyError(text),
    });
    this.threads = new LiveThreads(this.chat, this.persistence, this.workspaces, this.opening, this.buffers, nvim, this.dispatch);
    ({ forks: this.forks, fanouts: this.fanouts } = forkServices(this, config, entryChanged));
    if (this.persistence) this.persistence.fanOutOf = (id) => this.fanouts.placeOf(id);
    this.claudeCode = new ClaudeCodeThreads(
      {
        create: (fields) => this.threads.create(fields),
        historyOf: (id) =>
          this.chat.threads.get(id)?.runner.history ?? (this.chat.stored.has(id) ? this.persistence?.storedSource(id).history : undefined),
        titleOf: (id) => this.chat.titleOf(id),
        mint: () => this.chat.mint(),
        warn: (message) => this.nvim.notifyError(message),
      },
      config.cwd,
    );
    this.agents = new AcpThreads({ create: (fields) => this.threads.create(fields), mint: () => this.chat.mint() }, acp);
    this.completer = new MentionCompleter(this.workspaces.project.environment, config.complete_max_items, this.contextLimits.gitTimeoutMs);
    this.list = new ThreadListEntry(this.chat, this.buffers.listBuffer, this.persistence, () => this.rescan());
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
        branch: (sourceId) => this.forks.branch(sourceId),
        notifyInfo: (text) => this.nvim.notifyInfo(text),
        offer: (id, text) =>
          void this.nvim.call("offer_compact", [id, text]).catch((e) => this.nvim.log(`offer_compact failed: ${String(e)}`)),
        contextWindow: (model) => this.usage.contextWindow(model),
      },
      config.auto_compact,
    );
    this.reactAfterEachBatch();
    this.rescan();
    // Off the start's path: snapshots of threads that are gone (and old ones) are dropped, once a day.
    startTimer(() => void this.housekeep(), SNAPSHOT_HOUSEKEEPING_DELAY_MS).unref();
  }

  /** Drops the snapshots of threads that are gone, and old ones (at most once a day: the store keeps a stamp). */
  housekeep(): Promise<void> {
    return this.codeServices.prune(() => [...(this.persistence?.store.list().threads.map((t) => t.id) ?? []), ...this.chat.threads.keys()]);
  }

  /** Reads what the store holds for this project into the chat (threads stay unloaded). */
  rescan(): void {
    if (!this.persistence) return;
    try {
      const { threads, unreadable, summaries } = this.persistence.scan();
      this.unreadable = unreadable;
      // Before the list draws them: stored fan-out forks are grouped again (node/fork/fanout.ts).
      this.fanouts.found(summaries);
      this.dispatch({ type: "chat-msg", msg: { type: "stored-found", threads } });
    } catch (error) {
      this.nvim.notifyError(`tine: could not list stored threads: ${(error as Error).message}`);
    }
  }

  /**
   * What each service does after a batch of messages, registered in the order it runs. The order
   * that matters: a reaction that dispatches (titles: `title-asked`) runs a whole batch of its own,
   * every reaction included, before the reactions after it see this batch. So the store comes first
   * (a batch is written before the batches it causes), and titles and compaction, which dispatch
   * or ask Neovim, come last. The others only note or schedule (the buffers draw on the next turn
   * of the event loop); their order among themselves is free.
   */
  private reactAfterEachBatch(): void {
    const after = (react: (batch: Batch) => void) => this.loop.afterEachBatch(react);
    const { storeClock, lastActive, forkClock, threadsMirror, buffers, askTitle, compaction, chat } = this;
    if (storeClock) after(({ changes }) => storeClock.sync(null, changes));
    if (lastActive) after(() => lastActive.note(chat));
    after(() => forkClock.arm());
    after(({ msgs, changes }) => threadsMirror.batched(msgs, changes, () => [...chat.threads.keys(), ...chat.stored.keys()]));
    after(({ changes }) => buffers.scheduleRender(changes));
    after(({ changes }) => this.fanouts.checks.batched(changes.threads));
    if (askTitle) after(({ changes }) => askTitles(chat.threads, changes.threads, askTitle, this.dispatch));
    after(({ changes }) => compaction.checkMarks(changes.threads));
  }

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
    this.threadsMirror.close();
    this.mcp.killAll();
    void this.agents.pool.closeAll();
  }
}
