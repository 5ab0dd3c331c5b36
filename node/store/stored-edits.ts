/**
 * Changes to a thread that is stored but not loaded here (a rename, a label, a fork's report to
 * it, a restore): each is appended to its log under its lock, and the writer closed at once. A
 * loaded thread's changes go with its sync (persistence.ts), never here.
 */

import type { QueuedReport } from "../chat/prompts.ts";
import type { ThreadId } from "../core/ids.ts";
import type { ChangeRecord } from "./records.ts";
import { reportRecord } from "./report-record.ts";
import type { ThreadStore } from "./store.ts";

export class StoredEdits {
  constructor(
    private readonly store: ThreadStore,
    /** Whether a thread is loaded here (its recorder writes it): such a thread is refused. */
    private readonly isLoaded: (id: ThreadId) => boolean,
  ) {}

  rename(id: ThreadId, title: string): void {
    this.append(id, [{ t: "title", title }]);
  }

  /** Its own label ("" removes it). */
  label(id: ThreadId, text: string): void {
    this.append(id, [{ t: "label", text }]);
  }

  /** A fork reported to it: the report waits in its log. */
  report(id: ThreadId, report: QueuedReport): void {
    this.append(id, [reportRecord(report)]);
  }

  /** An ended fork comes back into the tree. */
  restore(id: ThreadId): void {
    this.append(id, [{ t: "restored" }]);
  }

  private append(id: ThreadId, records: ChangeRecord[]): void {
    if (this.isLoaded(id)) throw new Error(`tine: thread ${id} is loaded`);
    const writer = this.store.openWriter(id, 0);
    if ("busy" in writer) throw new Error(`tine: the thread is open in another Neovim (pid ${writer.busy})`);
    try {
      writer.append(records);
    } finally {
      writer.close();
    }
  }
}
