/**
 * The thread the user was last in, per project (`<project folder>/active`, its id): `:Tine` after
 * a restart reopens it instead of starting an empty thread. Recorded once the active thread has
 * something stored (a thread with no message is never on disk); a background fork never becomes
 * active, so it never changes what is recorded.
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Chat } from "../chat/chat.ts";
import { isThreadId, type ThreadId } from "../core/ids.ts";

export class LastActive {
  private readonly path: string;
  private recorded: ThreadId | null;

  constructor(projectDir: string) {
    this.path = join(projectDir, "active");
    let text = "";
    try {
      text = readFileSync(this.path, "utf8").trim();
    } catch {
      // none yet
    }
    this.recorded = isThreadId(text) ? text : null;
  }

  /** After a batch of messages: the active thread is recorded once it has something stored. */
  note(chat: Chat): void {
    const active = chat.active;
    if (!active || active.id === this.recorded || active.readOnlyBy !== null) return;
    if (active.runner.history.length === 0 && !active.runner.traits.storedAtOnce) return;
    this.recorded = active.id;
    const tmp = `${this.path}.${process.pid}.tmp`;
    try {
      writeFileSync(tmp, `${active.id}\n`, { mode: 0o600 });
      renameSync(tmp, this.path);
    } catch {
      // A data dir that cannot be written: `:Tine` falls back on the most recent thread.
    }
  }

  /**
   * What `:Tine` opens when no thread is active: the thread recorded, else the most recent one
   * (`recent`, most recent first) with a message; never one another Neovim writes. Null: none.
   */
  pick(chat: Chat, recent: readonly { id: ThreadId; messages: number }[]): ThreadId | null {
    const free = (id: ThreadId) => (chat.stored.get(id)?.busyBy ?? chat.threads.get(id)?.readOnlyBy ?? null) === null;
    if (this.recorded && chat.has(this.recorded) && free(this.recorded)) return this.recorded;
    return recent.find((t) => t.messages > 0 && free(t.id))?.id ?? null;
  }
}
