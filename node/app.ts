/**
 * The root: one dispatch loop for every message, the RPC entry points the Lua side calls, and
 * the derivation of buffers from state after each batch of messages.
 */
import { Chat } from "./chat/chat.ts";
import type { Dispatch, RootMsg, ThreadId } from "./chat/msgs.ts";
import { parseSend } from "./chat/send-command.ts";
import type { Thread } from "./chat/thread.ts";
import { AnthropicAgent, connect } from "./providers/anthropic-agent.ts";
import { History } from "./providers/history.ts";
import { assistantMessage, entry, userMessage, type Entry } from "./providers/native.ts";
import type { HostConfig } from "./config.ts";
import type { NvimBridge } from "./nvim/bridge.ts";
import { TOOL_SPECS } from "./tools/specs.ts";
import { ThreadList } from "./view/thread-list.ts";
import { ThreadView } from "./view/thread-view.ts";

/** `rendered`: the thread and chat versions last drawn (lineage lives in the chat). */
type Mounted = { view: ThreadView; display: number; input: number; rendered: [number, number] };

export class App {
  readonly chat: Chat;
  private readonly mounted = new Map<ThreadId, Mounted>();
  /** Buffers being created: rendering and RPC replies wait for them. */
  private readonly mounting = new Map<ThreadId, Promise<Mounted>>();
  private readonly queue: RootMsg[] = [];
  private draining = false;
  private renderScheduled = false;
  private readonly list = new ThreadList();
  private listBuf: number | null = null;
  private listVersion = -1;

  constructor(
    private readonly nvim: NvimBridge,
    private readonly config: HostConfig,
  ) {
    const connection = connect({ baseURL: config.base_url ?? undefined, retryDelayMs: config.retry_delay_ms });
    const providerConfig = {
      model: config.model,
      maxTokens: config.max_tokens,
      thinking: config.thinking,
      effort: config.effort,
      webSearch: config.web_search,
      system: config.system_prompt,
      tools: TOOL_SPECS,
    };
    this.chat = new Chat(
      this.dispatch,
      (dispatch, history) => new AnthropicAgent(providerConfig, connection, dispatch, history),
      { cwd: config.cwd, needsApproval: (name) => config.tools_needing_approval.includes(name) },
      { threadCreated: (thread, how) => this.mount(thread, how) },
    );
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
    this.scheduleRender();
  };

  // ---- RPC entry points (each answers one Lua request) ----

  /** The one entry for user input: `@`-commands are routed here, before any Thread sees them. */
  async send(id: ThreadId, text: string): Promise<void> {
    const thread = this.thread(id);
    const command = parseSend(text);
    if (command.type === "fork") {
      await this.fork(id, command.prompt);
      return;
    }
    if (!command.text) throw new Error("nothing to send");
    const blocker = thread.sendBlocker();
    if (blocker) throw new Error(blocker);
    this.dispatch({ type: "thread-msg", id, msg: { type: "send", text: command.text } });
  }

  async fork(sourceId: ThreadId, prompt: string, opts: { at_message?: number; prefill?: string; open?: string } = {}): Promise<ThreadId> {
    const source = this.thread(sourceId);
    if (opts.at_message !== undefined && (opts.at_message < 0 || opts.at_message >= source.agent.history.length)) {
      throw new Error(`${source.title} has no message ${opts.at_message}`);
    }
    const newId = this.chat.allocateId();
    this.dispatch({ type: "chat-msg", msg: { type: "fork-thread", sourceId, newId, prompt, atMessage: opts.at_message, prefill: opts.prefill } });
    await this.mounting.get(newId);
    return newId;
  }

  async newThread(): Promise<Mounted & { id: ThreadId }> {
    const newId = this.chat.allocateId();
    this.dispatch({ type: "chat-msg", msg: { type: "new-thread", newId } });
    return { id: newId, ...(await this.mounting.get(newId)!) };
  }

  /** The active thread's buffers, creating a first thread when there is none. */
  async activeBuffers(): Promise<{ id: ThreadId; display: number; input: number }> {
    const active = this.chat.active;
    if (!active) return this.newThread();
    const m = await this.mountedOf(active.id);
    return { id: active.id, display: m.display, input: m.input };
  }

  async select(id: ThreadId): Promise<{ id: ThreadId; display: number; input: number }> {
    this.thread(id);
    this.dispatch({ type: "chat-msg", msg: { type: "select-thread", id } });
    const m = await this.mountedOf(id);
    return { id, display: m.display, input: m.input };
  }

  abort(id: ThreadId): void {
    this.thread(id);
    this.dispatch({ type: "thread-msg", id, msg: { type: "abort" } });
  }

  threadForBuffer(buf: number): ThreadId | null {
    for (const [id, m] of this.mounted) if (m.display === buf || m.input === buf) return id;
    return null;
  }

  /** What is at a display-buffer line: the message index and block. */
  locate(id: ThreadId, line: number) {
    return this.mounted.get(id)?.view.locate(line) ?? null;
  }

  messageLine(id: ThreadId, index: number): number | null {
    const m = this.mounted.get(id);
    return m && index < this.thread(id).agent.history.length ? m.view.messageLine(index) : null;
  }

  /** A key pressed on a display line: toggle a detail, or answer a tool awaiting approval. */
  lineAction(id: ThreadId, line: number, action: "toggle" | "approve" | "deny"): void {
    const thread = this.thread(id);
    const at = this.locate(id, line);
    if (action === "toggle") {
      if (at?.block == null) return;
      this.dispatch({ type: "thread-msg", id, msg: { type: "toggle-detail", key: `${at.message}:${at.block}` } });
      return;
    }
    const pending = thread.toolRuns.filter((r) => r.state === "awaiting-approval");
    const history = thread.agent.history;
    const block = at?.block != null && at.message === history.length - 1 ? history.at(at.message).message.content[at.block] : undefined;
    const run = pending.find((r) => block?.type === "tool_use" && r.use.id === block.id) ?? pending[0];
    if (!run) throw new Error("no tool call is awaiting approval");
    this.dispatch({ type: "thread-msg", id, msg: { type: "tool-decision", toolUseId: run.use.id, approved: action === "approve" } });
  }

  threads() {
    return [...this.chat.threads.values()].map((t) => {
      const s = t.agent.status;
      return {
        id: t.id,
        parent_id: this.chat.lineage.get(t.id)?.parentId ?? null,
        title: t.title,
        status: t.status,
        stop_reason: s.type === "stopped" ? s.stopReason : null,
        bufnr: this.mounted.get(t.id)?.display ?? null,
        input_bufnr: this.mounted.get(t.id)?.input ?? null,
      };
    });
  }

  messages(id: ThreadId) {
    return this.thread(id).agent.history.messages();
  }

  lineageOf(id: ThreadId) {
    const l = this.chat.lineage.get(id);
    return l ? { parent_id: l.parentId, at_message: l.atMessage } : null;
  }

  /** The thread-list buffer (created on first use) and the thread id on each line. */
  async threadList(): Promise<{ bufnr: number }> {
    if (this.listBuf === null) this.listBuf = (await this.nvim.call("list_buffer", [])) as number;
    this.listVersion = -1;
    await this.renderList();
    return { bufnr: this.listBuf };
  }

  threadAtListLine(line: number): ThreadId | null {
    return this.list.idAt(line);
  }

  /** A new thread holding `n` messages of conversation (benchmarks). */
  async seedThread(n: number): Promise<{ id: ThreadId; display: number; lines: number }> {
    const entries: Entry[] = [];
    for (let i = 0; i < n; i++) {
      const text = `message ${i}: ${"lorem ipsum dolor sit amet ".repeat(3).trim()}`;
      entries.push(entry(i % 2 ? assistantMessage([{ type: "text", text }]) : userMessage([{ type: "text", text }])));
    }
    const newId = this.chat.allocateId();
    this.dispatch({ type: "chat-msg", msg: { type: "new-thread", newId, history: History.of(entries) } });
    const m = await this.mounting.get(newId)!;
    return { id: newId, display: m.display, lines: m.view.text().length };
  }

  /** Lines and status of a thread's display buffer as the host sees it (tests, :checkhealth). */
  displayText(id: ThreadId): string[] {
    return this.mounted.get(id)?.view.text() ?? [];
  }

  // ---- view ----

  private thread(id: ThreadId): Thread {
    const t = this.chat.threads.get(id);
    if (!t) throw new Error(`no thread ${id}`);
    return t;
  }

  private mountedOf(id: ThreadId): Promise<Mounted> {
    const m = this.mounted.get(id);
    return m ? Promise.resolve(m) : this.mounting.get(id)!;
  }

  private mount(thread: Thread, how: { forkOf?: Thread; prefill?: string }): void {
    const promise = (async () => {
      const bufs = (await this.nvim.call("create_thread_buffers", [thread.id, thread.title])) as { display: number; input: number };
      const m: Mounted = { view: new ThreadView(), ...bufs, rendered: [-1, -1] };
      this.mounted.set(thread.id, m);
      this.renderThread(thread, m);
      if (how.forkOf) {
        const source = this.mounted.get(how.forkOf.id);
        await this.nvim.call("open_fork", [bufs.display, bufs.input, source?.display ?? -1, this.config.fork_open, how.prefill ?? ""]);
      }
      return m;
    })();
    this.mounting.set(thread.id, promise);
    promise.catch((error) => this.nvim.notifyError(`tine: could not open a thread buffer: ${String(error)}`));
  }

  private scheduleRender(): void {
    if (this.renderScheduled) return;
    this.renderScheduled = true;
    // Deltas arrive in bursts: one render per event-loop turn coalesces them.
    setImmediate(() => {
      this.renderScheduled = false;
      for (const [id, m] of this.mounted) {
        const thread = this.chat.threads.get(id);
        if (thread && (thread.version !== m.rendered[0] || this.chat.version !== m.rendered[1])) this.renderThread(thread, m);
      }
      void this.renderList();
    });
  }

  private renderThread(thread: Thread, m: Mounted): void {
    m.rendered = [thread.version, this.chat.version];
    const lineage = this.chat.lineage.get(thread.id);
    const parent = lineage && this.chat.threads.get(lineage.parentId);
    const headerLines = parent
      ? [`⑂ Forked from "${parent.title}" at message ${lineage.atMessage + 1} · gp: go to parent`, ""]
      : [];
    const forkMarks = this.chat.childrenOf(thread.id).map((child) => ({
      atMessage: this.chat.lineage.get(child)!.atMessage,
      text: `⑂ ${this.chat.threads.get(child)!.title}`,
    }));
    const update = m.view.sync({ thread, headerLines, forkMarks });
    if (update.edits.length || update.marks || update.busySince !== undefined) this.nvim.applyView(m.display, update);
  }

  private async renderList(): Promise<void> {
    if (this.listBuf === null || this.listVersion === this.chat.version) return;
    this.listVersion = this.chat.version;
    this.nvim.applyView(this.listBuf, { edits: [[0, -1, this.list.render(this.chat)]] });
  }
}
