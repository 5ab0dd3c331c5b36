/**
 * The root: one dispatch loop for every message and the RPC entry points the Lua side calls.
 * After each batch of messages, the store writes what changed (`Persistence`) and the buffers
 * are derived from state (`Buffers`).
 */
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { Chat } from "./chat/chat.ts";
import type { Dispatch, RootMsg, ThreadId } from "./chat/msgs.ts";
import { parseSend } from "./chat/send-command.ts";
import { type Thread, titleFrom } from "./chat/thread.ts";
import { watchActivity } from "./claude-code/activity.ts";
import { splitArgs } from "./claude-code/command.ts";
import { listSessions, projectSessionsDir } from "./claude-code/project.ts";
import { isClaudeCode } from "./claude-code/session.ts";
import { readSession, writeSession } from "./claude-code/sessions.ts";
import type { HostConfig } from "./config.ts";
import type { NvimBridge } from "./nvim/bridge.ts";
import { AnthropicAgent, connect } from "./providers/anthropic-agent.ts";
import { History } from "./providers/history.ts";
import { assistantMessage, type Entry, entry, freezeMessage, userMessage } from "./providers/native.ts";
import { Persistence } from "./store/persistence.ts";
import { ThreadStore, type Unreadable } from "./store/store.ts";
import { needsApproval } from "./tools/approval.ts";
import { FORK_TOOL_SPECS } from "./tools/fork-specs.ts";
import { localEnvironment } from "./tools/local-environment.ts";
import { TOOL_SPECS } from "./tools/specs.ts";
import { diffBranches } from "./view/branch-diff.ts";
import { Buffers } from "./view/buffers.ts";
import type { ListScope, OtherProject } from "./view/thread-list.ts";

export type ThreadInfo = {
  id: ThreadId;
  num: number;
  parent_id: ThreadId | null;
  title: string;
  status: string;
  stop_reason: string | null;
  messages: number;
  updated: number | null;
  bufnr: number | null;
  input_bufnr: number | null;
};

export class App {
  readonly chat: Chat;
  private readonly buffers: Buffers;
  /** Null with `persist = false`: nothing is written. */
  private readonly persistence: Persistence | null;
  private unreadable: readonly Unreadable[] = [];
  private readonly queue: RootMsg[] = [];
  private draining = false;

  constructor(
    private readonly nvim: NvimBridge,
    private readonly config: HostConfig,
  ) {
    const connection = connect({
      baseURL: config.base_url ?? undefined,
      retryDelayMs: config.retry_delay_ms,
      maxRetryWaitMs: config.max_retry_wait * 1000,
      streamIdleTimeoutMs: config.stream_idle_timeout * 1000,
    });
    const providerConfig = {
      model: config.model,
      maxTokens: config.max_tokens,
      thinking: config.thinking,
      effort: config.effort,
      webSearch: config.web_search,
      system: config.system_prompt,
      tools: [...TOOL_SPECS, ...FORK_TOOL_SPECS],
    };
    const environment = localEnvironment(config.cwd, { bashTimeoutSec: config.bash_timeout, envDeny: config.tool_env_deny });
    this.persistence = config.persist ? new Persistence(new ThreadStore(config.data_dir, config.cwd), config.model) : null;
    this.chat = new Chat(
      this.dispatch,
      (dispatch, history) => new AnthropicAgent(providerConfig, connection, dispatch, history),
      {
        environment,
        needsApproval: (name, input) => needsApproval(name, input, environment, config.tools_needing_approval),
        fileWritten: (path) => void this.nvim.call("file_written", [path]).catch((e) => this.nvim.log(`file_written failed: ${String(e)}`)),
      },
      {
        threadCreated: (thread, how) => {
          this.persistence?.created(thread, this.chat, how);
          // A background fork (or a promote's branch) gets its buffers when it is opened.
          if (!how.background) this.buffers.mount(thread, how);
          if (isClaudeCode(thread.agent)) this.watchClaude(thread.id);
        },
        threadDeleted: (id) => this.buffers.unmount(id),
        forkEnded: (fork, how, into) => {
          this.persistence?.ended(fork, fork.id, how, into);
          this.buffers.unmount(fork.id);
          const verb = { discarded: "was discarded", reported: "reported back", promoted: "was promoted" }[how];
          this.nvim.notifyInfo(`tine: ${fork.title} ${verb}${into ? ` into ${this.chat.titleOf(into)}` : ""}`);
        },
        reportToStored: (parentId, report) => this.persistence?.reportToStored(parentId, report),
        branched: (parentId, siblingId, atMessage) => this.persistence?.branched(parentId, siblingId, atMessage),
      },
      { now: () => Date.now(), forkIdleTimeoutMs: config.fork_idle_timeout * 60_000 },
    );
    this.buffers = new Buffers(
      nvim,
      this.chat,
      config.fork_open,
      { updated: (id) => this.persistence?.updated.get(id), unreadable: () => this.unreadable },
      config.empty_hint,
      config.fork_keys,
    );
    this.rescan();
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
    try {
      this.persistence?.sync(this.chat);
    } catch (error) {
      this.nvim.notifyError(`tine: could not store a thread: ${(error as Error).message}`);
    }
    this.armForkClock();
    this.buffers.scheduleRender();
  };

  private forkTimer: { at: number; timer: NodeJS.Timeout } | null = null;

  /** One timer, set for the next moment a fork's idle clock can run out. */
  private armForkClock(): void {
    const next = this.chat.forks.nextDeadline();
    if (this.forkTimer?.at === next) return;
    if (this.forkTimer) clearTimeout(this.forkTimer.timer);
    this.forkTimer = null;
    if (next === null) return;
    const timer = setTimeout(
      () => {
        this.forkTimer = null;
        this.dispatch({ type: "chat-msg", msg: { type: "clock-tick", now: Date.now() } });
      },
      Math.max(0, next - Date.now()),
    );
    timer.unref();
    this.forkTimer = { at: next, timer };
  }

  /** Releases the store's locks; the host is going away. */
  close(): void {
    this.persistence?.close();
  }

  // ---- RPC entry points (each answers one Lua request) ----

  /**
   * The one entry for user input: `@`-commands are routed here, before any Thread sees them.
   * After an error the new text replaces the failed turn's; that text is returned, for the input.
   */
  async send(id: ThreadId, text: string): Promise<{ replaced: string }> {
    const thread = this.live(id);
    const command = parseSend(text);
    if (command.type === "fork") {
      await this.fork(id, command.prompt);
      return { replaced: "" };
    }
    if (command.type === "background-fork") {
      if (!command.prompt) throw new Error("tine: @bg needs a prompt: the fork runs it without a window and reports back");
      await this.fork(id, command.prompt, { background: true });
      return { replaced: "" };
    }
    if (command.type === "handoff") {
      if (!command.goal) throw new Error("tine: @handoff needs a goal: what the fresh thread should do");
      const blocker = thread.sendBlocker();
      if (blocker) throw new Error(blocker);
      this.dispatch({ type: "chat-msg", msg: { type: "handoff", id, goal: command.goal } });
      return { replaced: "" };
    }
    if (!command.text) throw new Error("nothing to send");
    const blocker = thread.sendBlocker();
    if (blocker) throw new Error(blocker);
    const replaced = thread.failedText();
    this.dispatch({ type: "thread-msg", id, msg: { type: "send", text: command.text } });
    return { replaced: replaced === command.text ? "" : replaced };
  }

  /** `:Tine retry`: the turn that failed is sent again, as it was. */
  retry(id: ThreadId): void {
    const thread = this.live(id);
    if (!thread.failedText() && thread.agent.status.type !== "error")
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
    opts: { at_message?: number; prefill?: string; wait?: boolean; background?: boolean } = {},
  ): Promise<ThreadId | null> {
    const live = this.chat.threads.get(sourceId);
    if (!live && !this.chat.stored.has(sourceId)) throw new Error(`tine: no thread ${sourceId}`);
    if (this.cancelWaitingFork(sourceId)) return null;
    const storedSource = live ? undefined : this.persistence?.storedSource(sourceId);
    const length = live ? live.agent.history.length : storedSource!.length;
    if (opts.at_message !== undefined && (opts.at_message < 0 || opts.at_message >= length)) {
      throw new Error(`${this.chat.titleOf(sourceId)} has no message ${opts.at_message}`);
    }
    const newId = randomUUID();
    const num = this.chat.maxNum() + 1;
    const wait = opts.wait === true;
    const background = opts.background === true;
    if (background && !prompt) throw new Error("tine: a background fork needs a prompt");
    this.dispatch({
      type: "chat-msg",
      msg: {
        type: "fork-thread",
        sourceId,
        newId,
        num,
        prompt,
        atMessage: opts.at_message,
        prefill: opts.prefill,
        storedSource,
        wait,
        background,
      },
    });
    if (!this.chat.waitingForks.has(sourceId) && !background) await this.buffers.of(newId);
    return newId;
  }

  async newThread(): Promise<{ id: ThreadId; display: number; input: number }> {
    const newId = randomUUID();
    this.dispatch({ type: "chat-msg", msg: { type: "new-thread", newId, num: this.chat.maxNum() + 1 } });
    const m = await this.buffers.of(newId);
    return { id: newId, display: m.display, input: m.input };
  }

  /** The active thread's buffers, creating a first thread when there is none. */
  async activeBuffers(): Promise<{ id: ThreadId; display: number; input: number }> {
    const active = this.chat.active;
    if (!active) return this.newThread();
    const m = await this.buffers.of(active.id);
    return { id: active.id, display: m.display, input: m.input };
  }

  /** Makes a thread the active one, loading it from disk first when it is stored. */
  async select(id: ThreadId): Promise<{ id: ThreadId; display: number; input: number; read_only_by: number | null }> {
    if (!this.chat.threads.has(id)) this.load(id);
    if (this.chat.forks.get(id)?.background) this.dispatch({ type: "chat-msg", msg: { type: "fork-opened", id } });
    this.dispatch({ type: "chat-msg", msg: { type: "select-thread", id } });
    const m = await this.buffers.of(id);
    return { id, display: m.display, input: m.input, read_only_by: this.live(id).readOnlyBy };
  }

  private load(id: ThreadId): void {
    if (!this.chat.stored.has(id) || !this.persistence) throw new Error(`tine: no thread ${id}`);
    const { loaded, readOnlyBy } = this.persistence.open(id);
    if (loaded.problems.length) {
      const lines = loaded.problems.map((p) => `line ${p.line}: ${p.error}`).join("; ");
      this.nvim.notifyError(`tine: ${loaded.raw.title}: some of its transcript could not be read and was skipped (${lines})`);
    }
    this.dispatch({ type: "chat-msg", msg: { type: "load-thread", id, history: loaded.history, readOnlyBy, reports: loaded.raw.reports } });
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
    this.dispatch({ type: "chat-msg", msg: { type: "fork-discard", id } });
  }

  /** The parent (loaded first if stored) takes the fork's history. */
  async promoteFork(id: ThreadId): Promise<ThreadId> {
    const parentId = this.chat.lineage.get(id)?.parentId;
    if (!parentId || !this.chat.threads.has(id)) throw new Error("tine: promote works on an open fork");
    if (!this.chat.threads.has(parentId)) this.load(parentId);
    this.dispatch({ type: "chat-msg", msg: { type: "fork-promote", id, siblingId: randomUUID(), siblingNum: this.chat.maxNum() + 1 } });
    if (this.chat.threads.has(id)) throw new Error(`tine: could not promote ${this.chat.titleOf(id)}`);
    return parentId;
  }

  reportFork(id: ThreadId, text?: string): void {
    this.dispatch({ type: "chat-msg", msg: { type: "fork-report", id, ...(text?.trim() ? { text } : {}) } });
  }

  /** A discarded or reported fork back in the tree (stored). */
  restore(id: ThreadId): void {
    if (!this.persistence) throw new Error("tine: nothing is stored (persist = false)");
    this.persistence.restore(id);
    this.rescan();
  }

  rename(id: ThreadId, title: string): void {
    const clean = title.trim().replace(/\s+/g, " ");
    if (!clean) throw new Error("tine: a title cannot be empty");
    if (this.chat.threads.has(id)) {
      this.dispatch({ type: "thread-msg", id, msg: { type: "rename", title: clean } });
      return;
    }
    if (!this.chat.stored.has(id)) throw new Error(`tine: no thread ${id}`);
    this.persistence?.renameStored(id, clean);
    this.dispatch({ type: "chat-msg", msg: { type: "rename-stored", id, title: clean } });
  }

  /** Deletes a thread; its forks keep their whole history (see Persistence / ThreadStore.delete). */
  delete(id: ThreadId): void {
    if (!this.chat.has(id)) throw new Error(`tine: no thread ${id}`);
    const thread = this.chat.threads.get(id);
    if (thread?.readOnlyBy != null) throw new Error(`tine: ${thread.title} is open in another Neovim (pid ${thread.readOnlyBy})`);
    this.persistence?.delete(id);
    this.dispatch({ type: "chat-msg", msg: { type: "delete-thread", id } });
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
    return this.buffers.get(id)?.view.locate(line) ?? null;
  }

  messageLine(id: ThreadId, index: number): number | null {
    const m = this.buffers.get(id);
    return m && index < this.live(id).agent.history.length ? m.view.messageLine(index) : null;
  }

  /** A key pressed on a display line: toggle a detail, or answer a tool awaiting approval. */
  lineAction(id: ThreadId, line: number, action: "toggle" | "approve" | "deny"): void {
    const thread = this.live(id);
    const at = this.locate(id, line);
    if (action === "toggle") {
      if (at?.block == null) return;
      this.dispatch({ type: "thread-msg", id, msg: { type: "toggle-detail", key: `${at.message}:${at.block}` } });
      return;
    }
    const pending = thread.toolRuns.filter((r) => r.state === "awaiting-approval");
    const history = thread.agent.history;
    const block = at?.block != null && at.message === history.length - 1 ? history.at(at.message).message.content[at.block] : undefined;
    // The call under the cursor, or the only one waiting: never one the user is not looking at.
    const run = pending.find((r) => block?.type === "tool_use" && r.use.id === block.id) ?? (pending.length === 1 ? pending[0] : undefined);
    if (!run) {
      throw new Error(
        pending.length
          ? `tine: ${pending.length} tool calls wait for approval: put the cursor on the one to ${action}`
          : "tine: no tool call is awaiting approval",
      );
    }
    this.dispatch({ type: "thread-msg", id, msg: { type: "tool-decision", toolUseId: run.use.id, approved: action === "approve" } });
  }

  /** Every thread of this project, live and stored, oldest first. */
  threads(): ThreadInfo[] {
    const live = [...this.chat.threads.values()].map((t): ThreadInfo => {
      const s = t.agent.status;
      const m = this.buffers.get(t.id);
      return {
        id: t.id,
        num: t.num,
        parent_id: this.chat.lineage.get(t.id)?.parentId ?? null,
        title: t.title,
        status: t.status,
        stop_reason: s.type === "stopped" ? s.stopReason : null,
        messages: t.agent.history.length,
        updated: this.persistence?.updated.get(t.id) ?? null,
        bufnr: m?.display ?? null,
        input_bufnr: m?.input ?? null,
      };
    });
    const stored = [...this.chat.stored.values()].map(
      (t): ThreadInfo => ({
        id: t.id,
        num: t.num,
        parent_id: t.parentId,
        title: t.title,
        status: "stored",
        stop_reason: null,
        messages: t.messages,
        updated: t.updated,
        bufnr: null,
        input_bufnr: null,
      }),
    );
    const created = (id: ThreadId) => this.chat.threads.get(id)?.created ?? this.chat.stored.get(id)?.created ?? 0;
    return [...live, ...stored].sort((a, b) => created(a.id) - created(b.id));
  }

  /** Threads for `:Tine resume`: most recent first. */
  recent(): ThreadInfo[] {
    return this.threads().sort((a, b) => (b.updated ?? 0) - (a.updated ?? 0));
  }

  messages(id: ThreadId) {
    return this.live(id).agent.history.messages();
  }

  /** Forks taken at the message on a display line, in fork order. */
  forksAt(id: ThreadId, line: number): { id: ThreadId; title: string }[] {
    const at = this.locate(id, line);
    if (!at) return [];
    return this.chat
      .childrenOf(id)
      .filter((child) => this.chat.lineage.get(child)!.atMessage === at.message)
      .map((child) => ({ id: child, title: this.chat.titleOf(child) ?? child }));
  }

  lineageOf(id: ThreadId) {
    const l = this.chat.lineage.get(id);
    return l ? { parent_id: l.parentId, at_message: l.atMessage } : null;
  }

  /** The thread-list buffer; `all`: every project's threads, grouped by project. */
  async threadList(all = false): Promise<{ bufnr: number }> {
    this.rescan();
    let scope: ListScope = { type: "project" };
    if (all && this.persistence) {
      const others: OtherProject[] = this.persistence.store
        .listAll()
        .filter((p) => p.cwd !== this.config.cwd)
        .map((p) => ({
          cwd: p.cwd,
          threads: p.threads
            .filter((t) => !t.deleted)
            .map((t) => ({ id: t.id, title: t.title, parentId: t.parent?.id ?? null, messages: t.messages, updated: t.updated })),
        }));
      const ended = this.persistence.scan().ended.map((t) => ({ id: t.id, title: t.title, messages: t.messages, updated: t.updated }));
      scope = { type: "all", ended, others };
    }
    return { bufnr: await this.buffers.showList(scope) };
  }

  threadAtListLine(line: number): ThreadId | null {
    return this.buffers.list.idAt(line);
  }

  listItem(line: number) {
    return this.buffers.list.itemAt(line);
  }

  /** Two branches from their common ancestor, for `:Tine diff`: `b` defaults to `a`'s parent. Threads by id or display number. */
  diff(aRef: string, bRef?: string) {
    const resolve = (ref: string): ThreadId => {
      const byNum = /^\d+$/.test(ref) ? this.threads().find((t) => t.num === Number(ref)) : undefined;
      const id = byNum?.id ?? ref;
      if (!this.chat.has(id)) throw new Error(`tine: no thread ${ref}`);
      return id;
    };
    const a = resolve(aRef);
    const b = bRef ? resolve(bRef) : this.chat.lineage.get(a)?.parentId;
    if (!b || !this.chat.has(b))
      throw new Error("tine: :Tine diff in a fork compares it with its parent; elsewhere name two threads (:Tine diff 1 3)");
    const side = (id: ThreadId) => ({
      title: this.chat.titleOf(id) ?? id,
      history: this.chat.threads.get(id)?.agent.history ?? this.persistence!.storedSource(id),
    });
    return diffBranches(side(a), side(b));
  }

  /** What `:checkhealth tine` reports of the store. */
  storeHealth() {
    if (!this.persistence) return { persist: false, dir: null, threads: 0, unreadable: [], problems: [] };
    const { threads, unreadable, summaries } = this.persistence.scan();
    this.unreadable = unreadable;
    const problems = summaries.flatMap((s) => s.problems.map((p) => `${s.title} (${s.id}.jsonl) line ${p.line}: ${p.error}`));
    return {
      persist: true,
      dir: this.persistence.store.dir,
      threads: threads.length,
      unreadable: unreadable.map((u) => `${u.path}: ${u.error}`),
      problems,
    };
  }

  // ---- Claude Code ----

  /** This project's Claude Code sessions, newest first (for the `:Tine import` picker). */
  claudeSessions() {
    return listSessions(this.config.cwd).map((s) => ({ id: s.id, path: s.path, modified: s.modified, first_prompt: s.firstPrompt }));
  }

  /** `:Tine claude [args]`: a thread run by the Claude Code CLI in a terminal. */
  async newClaude(args: string): Promise<{ id: ThreadId; display: number; input: number }> {
    const command = [...this.config.claude_command, ...splitArgs(args)];
    const newId = randomUUID();
    this.dispatch({ type: "chat-msg", msg: { type: "new-claude-thread", newId, num: this.chat.maxNum() + 1, command } });
    const m = await this.buffers.of(newId);
    return { id: newId, display: m.display, input: m.input };
  }

  /** A Claude Code thread's process ended. */
  terminalExited(id: ThreadId): void {
    const agent = this.chat.threads.get(id)?.agent;
    if (agent && isClaudeCode(agent)) agent.setTerminal("exited");
    this.activityWatches.get(id)?.();
    this.activityWatches.delete(id);
  }

  /** Watches on the transcripts of running Claude Code threads (busy / idle). */
  private readonly activityWatches = new Map<ThreadId, () => void>();

  /** A Claude Code thread started: its transcript tells when it works and when it waits. */
  private watchClaude(id: ThreadId): void {
    const agent = this.chat.threads.get(id)?.agent;
    if (!agent || !isClaudeCode(agent) || this.activityWatches.has(id)) return;
    const path = join(projectSessionsDir(this.config.cwd), `${agent.sessionId}.jsonl`);
    this.activityWatches.set(
      id,
      watchActivity(path, (activity) => {
        agent.setActivity(activity);
        this.buffers.scheduleRender();
      }),
    );
  }

  /** A Claude Code session (by id or path) becomes a tine thread holding the same conversation. */
  async importClaude(idOrPath: string): Promise<{ id: ThreadId; display: number; input: number }> {
    const session = readSession(idOrPath);
    const newId = randomUUID();
    const history = History.of(session.messages.map((m) => entry(freezeMessage(m))));
    const title = titleFrom(session.firstPrompt ?? "Claude Code session");
    const origin = { kind: "claude-code" as const, sessionId: session.sessionId, path: session.path };
    this.dispatch({ type: "chat-msg", msg: { type: "new-thread", newId, num: this.chat.maxNum() + 1, history, title, origin } });
    const m = await this.buffers.of(newId);
    return { id: newId, display: m.display, input: m.input };
  }

  /**
   * A thread written as a new Claude Code session (the thread itself unchanged), continued in
   * Claude Code as a thread of its own: a child of this one in the tree, resuming that session.
   */
  async exportClaude(id: ThreadId): Promise<{ session_id: string; path: string; id: ThreadId; display: number; input: number }> {
    const history = this.chat.threads.get(id)?.agent.history ?? (this.chat.stored.has(id) ? this.persistence?.storedSource(id) : undefined);
    if (!history) throw new Error(`tine: no thread ${id}`);
    const { sessionId, path } = writeSession(history.messages(), this.config.cwd);
    const newId = randomUUID();
    const title = `${this.chat.titleOf(id)} → Claude Code`;
    this.dispatch({
      type: "chat-msg",
      msg: {
        type: "new-claude-thread",
        newId,
        num: this.chat.maxNum() + 1,
        command: this.config.claude_command,
        resume: { sessionId, parentId: id, title },
      },
    });
    const m = await this.buffers.of(newId);
    return { session_id: sessionId, path, id: newId, display: m.display, input: m.input };
  }

  /** A new thread holding `n` messages of conversation (benchmarks). */
  async seedThread(n: number): Promise<{ id: ThreadId; display: number; lines: number }> {
    const entries: Entry[] = [];
    for (let i = 0; i < n; i++) {
      const text = `message ${i}: ${"lorem ipsum dolor sit amet ".repeat(3).trim()}`;
      entries.push(entry(i % 2 ? assistantMessage([{ type: "text", text }]) : userMessage([{ type: "text", text }])));
    }
    const newId = randomUUID();
    this.dispatch({ type: "chat-msg", msg: { type: "new-thread", newId, num: this.chat.maxNum() + 1, history: History.of(entries) } });
    const m = await this.buffers.of(newId);
    return { id: newId, display: m.display, lines: m.view.text().length };
  }

  /** Lines of a thread's display buffer as the host sees it (tests, :checkhealth). */
  displayText(id: ThreadId): string[] {
    return this.buffers.get(id)?.view.text() ?? [];
  }

  private live(id: ThreadId): Thread {
    const t = this.chat.threads.get(id);
    if (!t) throw new Error(this.chat.stored.has(id) ? `tine: thread ${id} is stored and not open: open it first` : `no thread ${id}`);
    return t;
  }
}
