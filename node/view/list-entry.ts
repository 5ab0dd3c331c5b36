/**
 * What the Lua side asks of the thread list (`:Tine threads[!]`, `/`, the folds, the line under
 * the cursor, restoring an ended fork from `:Tine threads!`). The list itself is drawn by
 * thread-list.ts; this keeps which scope it shows and where the cursor goes.
 */
import type { Chat } from "../chat/chat.ts";
import type { ThreadId } from "../core/ids.ts";
import type { ListShown } from "../nvim/lua-shapes.ts";
import type { Persistence } from "../store/persistence.ts";
import type { ListBuffer } from "./list-buffer.ts";
import type { FoldHow, ListScope } from "./thread-list.ts";

export type ListChange = { type: "filter"; text: string } | { type: "fold"; line: number; how: FoldHow };

export class ThreadListEntry {
  /** The list shows every project (`:Tine threads!`). */
  private all = false;

  constructor(
    private readonly chat: Chat,
    private readonly listBuffer: ListBuffer,
    /** Null with `persist = false`: only this Neovim's threads are listed. */
    private readonly persistence: Persistence | null,
    /** Reads what the store holds for this project into the chat again. */
    private readonly rescan: () => void,
  ) {}

  /** The thread-list buffer, the cursor on the active thread; `all`: every project's threads, grouped by project. */
  async show(all = false): Promise<ListShown> {
    this.rescan();
    this.all = all && this.persistence !== null;
    const scope: ListScope = this.all && this.persistence ? { type: "all", ...this.persistence.everyProject() } : { type: "project" };
    const bufnr = await this.listBuffer.show(scope);
    return this.shown(bufnr, this.chat.activeId);
  }

  /** `/` and the folds: what the list shows changes; the cursor goes to the thread acted on. */
  async change(change: ListChange): Promise<ListShown> {
    const list = this.listBuffer.list;
    let at = this.chat.activeId;
    if (change.type === "filter") list.filter = change.text.trim();
    else at = list.fold(this.chat, change.line, change.how);
    const bufnr = await this.listBuffer.redraw();
    if (bufnr === null) throw new Error("tine: the thread list is not open (:Tine threads)");
    return this.shown(bufnr, at);
  }

  /** An ended fork back in the tree (stored); a list of every project is drawn again, without it among the ended. */
  async restore(id: ThreadId): Promise<void> {
    if (!this.persistence) throw new Error("tine: nothing is stored (persist = false)");
    this.persistence.restore(id);
    this.rescan();
    if (this.all) await this.show(true);
  }

  idAt(line: number): ThreadId | null {
    return this.listBuffer.list.idAt(line);
  }

  itemAt(line: number) {
    return this.listBuffer.list.itemAt(line);
  }

  private shown(bufnr: number, at: ThreadId | null): ListShown {
    const list = this.listBuffer.list;
    return { bufnr, line: at === null ? null : list.lineOf(at), filter: list.filter };
  }
}
