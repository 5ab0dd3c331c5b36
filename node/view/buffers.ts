/**
 * The Neovim buffers of live threads and of the thread list, kept in step with the chat: each
 * thread's display buffer is derived from its state after every batch of messages (one render
 * per event-loop turn), the list from the chat's tree. A display opens at its thread's end and
 * the rest is filled in by steps, each written once Neovim has applied the one before.
 *
 * Over 300 lines: it is the one owner of every thread's buffers (a transcript, a terminal, a
 * stored thread's end shown before it is read) and of the passes that draw them with the list's
 * (list-buffer.ts): making, handing over and drawing them share its maps of mounted threads.
 */
import type { Changes, Chat } from "../chat/chat.ts";
import { threadName } from "../chat/names.ts";
import type { Thread } from "../chat/thread.ts";
import { workingNow } from "../chat/working.ts";
import type { ThreadId } from "../core/ids.ts";
import type { WaitingMerge } from "../core/waiting-merge.ts";
import type { NvimBridge } from "../nvim/bridge.ts";
import type { ThreadBufnrs } from "../nvim/lua-api.ts";
import type { ForkOpen } from "../nvim/lua-shapes.ts";
import { assertUnreachable } from "../util/assert-unreachable.ts";
import { DisplayFill } from "./display-fill.ts";
import { displayParts } from "./display-parts.ts";
import { ListBuffer } from "./list-buffer.ts";
import type { ListExtras } from "./thread-list.ts";
import { ThreadMarks, type ToldMarks } from "./thread-marks.ts";
import { ThreadView } from "./thread-view.ts";

/**
 * `rendered`: the thread version last drawn (-1: draw it again); `treeKey`: what of the tree it
 * showed (its banner's parent, its fork marks), so a change elsewhere in the tree redraws only the
 * threads that show it. Its buffers' marks as last told to Neovim: thread-marks.ts.
 */
export type Mounted = ToldMarks & {
  view: ThreadView;
  rendered: number;
  /** The display shows a preview of the thread's end (`showEnd`): the first render writes over it. */
  replacesPreview: boolean;
  treeKey: string;
  /** What writes the display, and fills it in from its end. */
  fill: DisplayFill;
};

export class Buffers {
  private readonly mounted = new Map<ThreadId, Mounted>();
  /** Buffers being created: rendering and RPC replies wait for them. */
  private readonly mounting = new Map<ThreadId, Promise<Mounted>>();
  private renderScheduled = false;
  /** Threads changed since the last render, and those that moved in the tree (see `Changes.moved`). */
  private readonly dirty = new Set<ThreadId>();
  private readonly moved = new Set<ThreadId>();
  /** The thread list's buffer, drawn in the same passes as the threads'. */
  readonly listBuffer: ListBuffer;
  private readonly marks: ThreadMarks;
  /** Unsent input of threads whose buffers the user wiped, for the buffers made next. */
  private readonly drafts = new Map<ThreadId, string[]>();
  /** What works, as Neovim was last told (a quit or a restart asks first while anything does). */
  /** What Neovim was last told works (null: tell it at the next pass, changed or not). */
  private toldWorking: string | null = "";
  /** Buffers showing a stored thread's end while it is read whole: its mount takes them. */
  private readonly previews = new Map<ThreadId, { display: number; input: number; title: string }>();
  /** Told at the end of each drawing pass, once its writes are sent (threads-mirror.ts). */
  private readonly afterDrawing: (() => void)[] = [];
  /** Told when a thread's buffers are made and show it: threads() gives their numbers. */
  private readonly afterMounting: ((id: ThreadId) => void)[] = [];

  constructor(
    private readonly nvim: NvimBridge,
    private readonly chat: Chat,
    private readonly forkOpen: ForkOpen,
    /** What the list's rows add from the other services (the thread queries read them too). */
    readonly listExtras: ListExtras,
    /** Shown in a thread with no messages yet. */
    private readonly emptyHint: string,
    /** Named under a tool call waiting for approval: the display's keys for it. */
    private readonly approvalHint: string,
    /** The keys a fork's banner names, the one named under queued messages, and the one a waiting merge's line names. */
    private readonly keys: { report: string; promote: string; discard: string; editQueued: string | false; resolveMerge: string | false },
    /** About how many bytes of a display's text one step of filling it in writes (display_fill_step). */
    private readonly fillStep: number,
  ) {
    this.listBuffer = new ListBuffer(nvim, chat, listExtras);
    this.marks = new ThreadMarks(nvim, (thread) => listExtras.winbar(thread));
  }

  get(id: ThreadId): Mounted | undefined {
    return this.mounted.get(id);
  }

  /** The thread's buffers, once created; made anew when the user deleted them (:bd, :bw). */
  of(id: ThreadId): Promise<Mounted> {
    const m = this.mounted.get(id) ?? this.mounting.get(id);
    if (m) return Promise.resolve(m);
    const thread = this.chat.threads.get(id);
    if (!thread) throw new Error(`tine: ${threadName(this.chat, id)} is not open`);
    this.mount(thread, {});
    return this.mounting.get(id)!;
  }

  /** The user unloaded or wiped a thread's buffer (the Lua side closed both): made again when shown. */
  gone(id: ThreadId, draft: string[]): void {
    this.previews.delete(id);
    if (!this.mounted.delete(id)) return;
    if (draft.some((l) => l !== "")) this.drafts.set(id, draft);
    // Its entry in threads() loses its buffer numbers now, not at the list's next tick.
    for (const fn of this.afterMounting) fn(id);
    this.scheduleRender({ threads: [], tree: false, moved: [] });
  }

  /** What is at line `line` of thread `id`'s display, the line as Neovim numbered it when it asked. */
  locate(id: ThreadId, line: number): ReturnType<ThreadView["locate"]> {
    const m = this.mounted.get(id);
    return m ? m.view.locate(m.fill.line(line)) : null;
  }

  /** The queued message at a display line Neovim gave (0-based), allowing for a fill step in flight. */
  queuedAt(id: ThreadId, line: number): number | undefined {
    const m = this.mounted.get(id);
    return m ? m.view.queuedAt(m.fill.line(line)) : undefined;
  }

  /** The waiting merge whose line a display line Neovim gave (0-based) is, allowing for a fill step in flight. */
  mergeAt(id: ThreadId, line: number): WaitingMerge | undefined {
    const m = this.mounted.get(id);
    return m ? m.view.mergeAt(m.fill.line(line)) : undefined;
  }

  /** The display line of message `index`, as Neovim numbers it when it gets the answer: after the fill step on its way. */
  async messageLine(id: ThreadId, index: number): Promise<number | null> {
    const m = this.mounted.get(id);
    if (!m) return null;
    await m.fill.settled();
    return this.mounted.get(id) === m ? m.view.messageLine(index) : null;
  }

  threadForBuffer(buf: number): ThreadId | null {
    for (const [id, m] of this.mounted) if (m.display === buf || m.input === buf) return id;
    return null;
  }

  mount(thread: Thread, how: { under?: ThreadId; prefill?: string; later?: boolean }): void {
    const promise = (async () => {
      const draft = this.drafts.get(thread.id) ?? [];
      this.drafts.delete(thread.id);
      const preview = this.previews.get(thread.id);
      this.previews.delete(thread.id);
      const surface = thread.runner.surface;
      let bufs: ThreadBufnrs;
      switch (surface.type) {
        case "transcript":
          bufs = preview
            ? { display: preview.display, input: preview.input }
            : await this.nvim.call("create_thread_buffers", [thread.id, thread.num, thread.title, draft]);
          break;
        case "terminal":
          // The terminal is the thread's one buffer (display and input alike).
          bufs = await this.nvim.call("create_terminal_thread", [
            thread.id,
            thread.num,
            thread.title,
            surface.argv,
            surface.firstInput,
            surface.cwd,
          ]);
          surface.started();
          break;
        default:
          assertUnreachable(surface);
      }
      const view = new ThreadView();
      const m: Mounted = {
        view,
        ...bufs,
        rendered: -1,
        replacesPreview: preview !== undefined,
        treeKey: this.treeKey(thread),
        // The preview's buffers are named with the title the list knew.
        title: preview?.title ?? thread.title,
        pending: false,
        winbar: "[]",
        failed: false,
        fill: new DisplayFill(
          view,
          (update) => this.nvim.applyView(bufs.display, update),
          () => (this.mounted.get(thread.id) === m ? (this.chat.threads.get(thread.id) ?? null) : null),
          this.fillStep,
        ),
      };
      this.mounted.set(thread.id, m);
      this.mounting.delete(thread.id);
      // Ready once Neovim shows the first screen: a caller (the open of a stored thread) finds it there.
      await this.renderThread(thread, m);
      for (const fn of this.afterMounting) fn(thread.id);
      this.scheduleRender({ threads: [], tree: false, moved: [] });
      if (how.under !== undefined) {
        const source = this.mounted.get(how.under);
        const opened = { prefill: how.prefill ?? "", take_cursor: how.later !== true };
        await this.nvim.call("open_fork", [bufs.display, bufs.input, source?.display ?? -1, this.forkOpen, opened]);
      }
      return m;
    })();
    this.mounting.set(thread.id, promise);
    promise.catch((error) => this.nvim.notifyError(`tine: could not open a thread buffer: ${String(error)}`));
  }

  /**
   * A stored thread's buffers, made before it is loaded, showing `lines` (its end, see
   * end-preview.ts): its mount takes them and its first render writes over the lines.
   */
  async showEnd(id: ThreadId, num: number, title: string, lines: string[]): Promise<ThreadBufnrs> {
    const draft = this.drafts.get(id) ?? [];
    this.drafts.delete(id);
    const bufs = await this.nvim.call("create_thread_buffers", [id, num, title, draft]);
    this.previews.set(id, { ...bufs, title });
    // Awaited: Neovim waiting for the open may take its answer before a request still queued.
    await this.nvim.applyView(bufs.display, { edits: [[0, -1, lines]] });
    return bufs;
  }

  /** A thread was deleted: its buffers go. */
  unmount(id: ThreadId): void {
    const m = this.mounted.get(id);
    this.mounted.delete(id);
    if (m) this.nvim.call("close_thread_buffers", [m.display, m.input]).catch((e) => this.nvim.log(`close failed: ${String(e)}`));
  }

  /**
   * A fork ended: its windows go to `parentId` (live by then, or loading: asked after this turn
   * of the loop), which shows the report; then its buffers go (lua/tine/ui.lua `fork_ended`).
   */
  handOver(id: ThreadId, parentId: ThreadId | undefined): void {
    const m = this.mounted.get(id);
    this.mounted.delete(id);
    if (!m) return;
    void (async () => {
      await Promise.resolve(); // a stored parent being loaded is live once the dispatch loop is through
      const parent = parentId !== undefined && this.chat.threads.has(parentId) ? await this.of(parentId) : undefined;
      await this.nvim.call("fork_ended", [id, m.display, m.input, parent?.display ?? -1, parent?.input ?? -1]);
    })().catch((e) => this.nvim.log(`fork_ended failed: ${String(e)}`));
  }

  /** What every view shows changed outside the chat (a thread not being saved): all are drawn again. */
  redraw(): void {
    for (const m of this.mounted.values()) m.rendered = -1;
    this.listBuffer.outdated();
    this.scheduleRender({ threads: [...this.mounted.keys()], tree: false, moved: [] });
  }

  /** What thread `id`'s display notes changed outside its history (a fan-out fork's check started or ended): it is drawn again. */
  notesChanged(id: ThreadId): void {
    const m = this.mounted.get(id);
    if (m) m.rendered = -1;
    this.scheduleRender({ threads: [id], tree: false, moved: [] });
  }

  /** `fn` runs at the end of every drawing pass: what it sends reaches Neovim after the pass's writes. */
  afterEachPass(fn: () => void): void {
    this.afterDrawing.push(fn);
  }

  /** `fn` runs when a thread's buffers are made and first drawn, or gone (:bd, :bw); a drawing pass follows. */
  afterMountOrGone(fn: (id: ThreadId) => void): void {
    this.afterMounting.push(fn);
  }

  /**
   * Draws what `changes` touched, once per event-loop turn (deltas arrive in bursts): the threads
   * that changed, and the threads whose banner or fork marks show a thread that moved in the tree
   * (it, its parent, its children). A streamed delta costs its own thread's render, a fork its own
   * and its source's, whatever else is open.
   */
  scheduleRender(changes: Changes): void {
    for (const id of changes.threads) this.dirty.add(id);
    for (const id of changes.moved) this.moved.add(id);
    if (this.renderScheduled) return;
    this.renderScheduled = true;
    // One message for the whole pass (bridge.ts): Neovim never shows half of it.
    setImmediate(() => this.nvim.together(() => this.renderPass()));
  }

  /** Draws what changed since the last pass (see scheduleRender). */
  private renderPass(): void {
    this.renderScheduled = false;
    const dirty = [...this.dirty];
    const showMoves = this.showingMoves();
    this.dirty.clear();
    this.moved.clear();
    for (const id of new Set([...dirty, ...showMoves])) {
      const m = this.mounted.get(id);
      const thread = this.chat.threads.get(id);
      if (!m || !thread) continue;
      this.marks.winbar(thread, m);
      const key = showMoves.has(id) ? this.treeKey(thread) : m.treeKey;
      if (thread.version === m.rendered && key === m.treeKey) continue;
      m.treeKey = key;
      this.renderThread(thread, m);
    }
    for (const id of dirty) {
      const thread = this.chat.threads.get(id);
      if (thread && !this.mounted.has(id)) this.marks.inBackground(thread);
    }
    void this.listBuffer.render();
    this.tellWorking();
    for (const fn of this.afterDrawing) fn();
  }

  /**
   * A send was taken: Neovim counts it as working until it is told what works (lua/tine/quit.lua),
   * so the next pass tells, whether or not that changed.
   */
  sendTaken(): void {
    this.toldWorking = null;
    this.scheduleRender({ threads: [], tree: false, moved: [] });
  }

  /** Neovim knows what works now, before the user quits (lua/tine/quit.lua): told when it changes. */
  private tellWorking(): void {
    // Numbered as buffer names are, so that a question or a refused quit says which thread.
    const working = workingNow(this.chat).map((w) => `#${this.chat.threads.get(w.id)?.num ?? "?"} ${w.what}`);
    if (working.join("\n") === this.toldWorking) return;
    this.toldWorking = working.join("\n");
    this.nvim.call("set_working", [working]).catch((e) => this.nvim.log(`set_working failed: ${String(e)}`));
  }

  /** The mounted threads whose display may show a move: the threads that moved, their parents and their children. */
  private showingMoves(): Set<ThreadId> {
    const out = new Set<ThreadId>();
    const add = (id: ThreadId) => {
      if (this.mounted.has(id)) out.add(id);
    };
    for (const id of this.moved) {
      add(id);
      const parent = this.chat.lineage.get(id)?.parentId;
      if (parent !== undefined) add(parent);
      for (const child of this.chat.lineage.childrenOf(id)) add(child);
    }
    return out;
  }

  /** What a thread's display shows of the tree: its banner's parent, its forks' marks, who writes it. */
  private treeKey(thread: Thread): string {
    const l = this.chat.lineage.get(thread.id);
    const parent = l ? `${l.relation}:${l.atMessage}:${this.chat.titleOf(l.parentId) ?? ""}` : "";
    const forks = this.chat.childrenOf(thread.id).map((c) => `${this.chat.lineage.get(c)!.atMessage}:${this.chat.titleOf(c)}`);
    return `${parent}\u0001${forks.join("\u0000")}\u0001${thread.readOnlyBy}`;
  }

  private renderThread(thread: Thread, m: Mounted): Promise<void> | undefined {
    m.rendered = thread.version;
    this.marks.title(thread, m);
    if (thread.runner.surface.type === "terminal") return; // its program draws it
    this.marks.winbar(thread, m);
    this.marks.pendingAndFailed(thread, m);
    const update = m.view.sync({
      thread,
      ...displayParts(thread, this.chat, this.listExtras, { keys: this.keys, emptyHint: this.emptyHint }),
      editQueuedKey: this.keys.editQueued,
      approvalHint: this.approvalHint,
    });
    if (m.replacesPreview) {
      // The view starts from the one empty line of a new buffer: the preview goes in the same write.
      m.replacesPreview = false;
      update.edits.unshift([0, -1, [""]]);
    }
    return m.fill.write(update, thread);
  }
}
