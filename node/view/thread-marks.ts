/**
 * What Neovim is told of a thread beside its display's text, each sent only when it changed: its
 * buffers' name (the title), the display's winbar, whether a tool call waits for approval and
 * whether the thread stopped on an error (the input's keys depend on these two). A wait for
 * approval is told once, whether it began in a window or in the background (a thread with no
 * buffers, told with a notification).
 */
import type { Thread } from "../chat/thread.ts";
import type { ThreadId } from "../core/ids.ts";
import type { NvimBridge } from "../nvim/bridge.ts";
import type { ListExtras } from "./thread-list.ts";

/** Each as last told to Neovim, for one thread's buffers. */
export type ToldMarks = {
  readonly display: number;
  readonly input: number;
  title: string;
  /** Whether a tool waits for approval. */
  pending: boolean;
  /** The winbar's parts last sent, as JSON (usage, a cache warning: node/usage/). */
  winbar: string;
  /** Whether the thread stopped on an error. */
  failed: boolean;
};

/** A tool call of tine's awaits approval, or the runner's program asks the user (an ACP agent's permission request). */
const awaitsApproval = (thread: Thread) =>
  thread.toolRuns.some((r) => r.state === "awaiting-approval") || (thread.runner.questions?.pending().length ?? 0) > 0;

export class ThreadMarks {
  /** Threads whose waiting approval the user was told of (in a window or in the background). */
  private readonly toldPending = new Set<ThreadId>();

  constructor(
    private readonly nvim: NvimBridge,
    private readonly winbarOf: ListExtras["winbar"],
  ) {}

  /** A terminal's buffer is named after its thread too (a Claude Code thread, from its first prompt). */
  title(thread: Thread, m: ToldMarks): void {
    if (m.title === thread.title) return;
    m.title = thread.title;
    this.nvim.call("set_title", [m.display, thread.num, thread.title]).catch((e) => this.nvim.log(`set_title failed: ${String(e)}`));
  }

  /** The winbar: sent only when it changed (it changes with a request, or when the cache expires, not per delta). */
  winbar(thread: Thread, m: ToldMarks): void {
    const parts = this.winbarOf(thread);
    const key = JSON.stringify(parts);
    if (key === m.winbar) return;
    m.winbar = key;
    this.nvim.call("set_winbar", [m.display, parts]).catch((e) => this.nvim.log(`set_winbar failed: ${String(e)}`));
  }

  /** Whether a tool call waits for approval, and whether the thread stopped on an error. */
  pendingAndFailed(thread: Thread, m: ToldMarks): void {
    const pending = awaitsApproval(thread);
    if (pending !== m.pending) {
      m.pending = pending;
      // Told once per wait, whether it began in the background or in a window.
      const tell = pending && !this.toldPending.has(thread.id);
      if (pending) this.toldPending.add(thread.id);
      else this.toldPending.delete(thread.id);
      this.nvim
        .call("set_pending", [m.display, m.input, pending, thread.title, tell])
        .catch((e) => this.nvim.log(`set_pending failed: ${String(e)}`));
    }
    const failed = thread.status === "error";
    if (failed !== m.failed) {
      m.failed = failed;
      this.nvim.call("set_failed", [m.input, failed]).catch((e) => this.nvim.log(`set_failed failed: ${String(e)}`));
    }
  }

  /** A thread with no buffers (a background fork): a wait for approval is told with a notification. */
  inBackground(thread: Thread): void {
    const pending = awaitsApproval(thread);
    if (pending && !this.toldPending.has(thread.id)) {
      this.toldPending.add(thread.id);
      this.nvim.notifyInfo(`tine: ${thread.title} (in the background) waits for your approval of a tool call: open it from :Tine threads`);
    } else if (!pending) this.toldPending.delete(thread.id);
  }
}
