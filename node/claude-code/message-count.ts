/**
 * How many messages a Claude Code session holds, for the thread list's `[claude]` lines: read from
 * its transcript (wherever Claude Code keeps it), and read again only when the file changed, as
 * the list is drawn again on every change of any thread.
 */
import { statSync } from "node:fs";
import { findSession } from "./project.ts";
import { readTranscriptFile } from "./transcript.ts";

type Counted = { readonly path: string; readonly size: number; readonly mtimeMs: number; readonly count: number | null };

export class SessionMessageCounts {
  private readonly counted = new Map<string, Counted>();

  /** The messages of session `sessionId` (its conversation as an import would take it), or null when it has no readable transcript yet. */
  count(sessionId: string): number | null {
    const before = this.counted.get(sessionId);
    const path = before?.path ?? findSession(sessionId);
    if (!path) return null;
    try {
      const { size, mtimeMs } = statSync(path);
      if (before && before.size === size && before.mtimeMs === mtimeMs) return before.count;
      let count: number | null = null;
      try {
        count = readTranscriptFile(path).messages.length;
      } catch {
        count = null; // being written, or of a shape the import refuses: no count
      }
      this.counted.set(sessionId, { path, size, mtimeMs, count });
      return count;
    } catch {
      return null;
    }
  }
}
