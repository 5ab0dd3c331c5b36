/**
 * The thread list's buffer (`:Tine threads`): made on first use, then drawn again in a drawing
 * pass (buffers.ts) only when the chat changed since it was last drawn. What its lines say is
 * thread-list.ts's; what the Lua side asks of it, list-entry.ts's.
 */
import type { Chat } from "../chat/chat.ts";
import type { NvimBridge } from "../nvim/bridge.ts";
import { type ListExtras, type ListScope, ThreadList } from "./thread-list.ts";

export class ListBuffer {
  readonly list = new ThreadList();
  private buf: number | null = null;
  /** The chat version last drawn (-1: draw it again). */
  private version = -1;
  private scope: ListScope = { type: "project" };

  constructor(
    private readonly nvim: NvimBridge,
    private readonly chat: Chat,
    private readonly extras: ListExtras,
  ) {}

  /** The buffer (created on first use), showing `scope`. */
  async show(scope: ListScope): Promise<number> {
    if (this.buf === null) this.buf = await this.nvim.call("list_buffer", []);
    this.scope = scope;
    this.version = -1;
    // Drawn before the answer: the Lua side sizes the window to the lines and puts the cursor on one.
    await this.render();
    return this.buf;
  }

  /** Drawn again now (its filter or folds changed); the buffer once drawn, or null when it was never shown. */
  async redraw(): Promise<number | null> {
    this.version = -1;
    await this.render();
    return this.buf;
  }

  /** What it shows changed outside the chat: the next `render` draws it. */
  outdated(): void {
    this.version = -1;
  }

  /** Draws the list when the chat changed since; settles once Neovim shows it. */
  render(): Promise<void> {
    if (this.buf === null || this.version === this.chat.version) return Promise.resolve();
    this.version = this.chat.version;
    return this.nvim.applyView(this.buf, { edits: [[0, -1, this.list.render(this.chat, this.scope, this.extras)]] });
  }
}
