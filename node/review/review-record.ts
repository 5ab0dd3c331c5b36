/**
 * What a thread's review holds, kept on disk beside its transcript's project: each hunk the user
 * kept or undid (by the turn's last snapshot, the file and the hunk's number), its comment, and
 * the notes the model is still to be told with the thread's next message. Written whole
 * (util/atomic-write.ts) after each change; read back field by field: a file of another shape, or
 * an entry of one, is left out, never trusted.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { SnapshotId } from "../core/code-marks.ts";
import type { ThreadId } from "../core/ids.ts";
import { replaceFile } from "../util/atomic-write.ts";

/** Where a hunk stands in its review: not looked at yet, kept (reviewed), or undone in the working file. */
export type HunkState = "pending" | "kept" | "undone";

/** A hunk the user kept or undid, or commented on: by its turn (the turn's last snapshot), file, and number in that file (from 1). */
export type HunkReview = {
  readonly turn: SnapshotId;
  readonly path: string;
  readonly index: number;
  readonly state: HunkState;
  readonly comment?: string;
};

/** A thread's review: its hunks looked at, in the order first looked at. */
export type ReviewRecord = { readonly hunks: readonly HunkReview[] };

const EMPTY: ReviewRecord = { hunks: [] };
const STATES: readonly HunkState[] = ["pending", "kept", "undone"];
const isText = (v: unknown, max: number): v is string => typeof v === "string" && v.length > 0 && v.length <= max;

/** One hunk's entry as the file holds it, field by field; null: not one. */
function hunkFrom(v: unknown): HunkReview | null {
  if (typeof v !== "object" || v === null) return null;
  const { turn, path, index, state, comment } = v as Record<string, unknown>;
  if (!isText(turn, 64) || !/^[0-9a-f]+$/.test(turn) || !isText(path, 4096)) return null;
  if (!Number.isSafeInteger(index) || (index as number) < 1) return null;
  if (!STATES.includes(state as HunkState)) return null;
  if (comment !== undefined && !isText(comment, 4096)) return null;
  return { turn, path, index: index as number, state: state as HunkState, ...(comment === undefined ? {} : { comment }) };
}

/** A thread's review kept in folder `dir` (null: `persist = false`, kept in memory only). */
export class ReviewRecords {
  private readonly known = new Map<ThreadId, ReviewRecord>();

  constructor(private readonly dir: string | null) {}

  private fileOf(id: ThreadId): string | null {
    // A thread id is the store's own (letters, digits, dashes); anything else is never a file name.
    return this.dir && /^[A-Za-z0-9_-]{1,128}$/.test(id) ? join(this.dir, `${id}.json`) : null;
  }

  get(id: ThreadId): ReviewRecord {
    const known = this.known.get(id);
    if (known) return known;
    const read = this.read(id);
    this.known.set(id, read);
    return read;
  }

  private read(id: ThreadId): ReviewRecord {
    const file = this.fileOf(id);
    if (!file) return EMPTY;
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(file, "utf8"));
    } catch {
      return EMPTY;
    }
    const hunks = (parsed as { hunks?: unknown })?.hunks;
    if (!Array.isArray(hunks)) return EMPTY;
    return { hunks: hunks.map(hunkFrom).filter((h): h is HunkReview => h !== null) };
  }

  /** Hunk `at` of thread `id`'s review becomes what `change` makes of it (written before this returns). */
  update(id: ThreadId, at: Omit<HunkReview, "state">, change: (was: HunkReview) => HunkReview): HunkReview {
    const record = this.get(id);
    const same = (h: HunkReview) => h.turn === at.turn && h.path === at.path && h.index === at.index;
    const was = record.hunks.find(same) ?? { turn: at.turn, path: at.path, index: at.index, state: "pending" as const };
    const now = change(was);
    const hunks = record.hunks.some(same) ? record.hunks.map((h) => (same(h) ? now : h)) : [...record.hunks, now];
    this.write(id, { hunks });
    return now;
  }

  /**
   * Fork `id` starts with `source`'s review of the turns it shares (`shared`, their last
   * snapshots), written now: what either reviews after is its own. A thread that has a review of
   * its own already keeps it. The paths copied.
   */
  startFrom(id: ThreadId, source: ThreadId, shared: ReadonlySet<SnapshotId>): readonly string[] {
    if (this.get(id).hunks.length) return [];
    const hunks = this.get(source).hunks.filter((h) => shared.has(h.turn));
    if (hunks.length) this.write(id, { hunks });
    return [...new Set(hunks.map((h) => h.path))];
  }

  private write(id: ThreadId, record: ReviewRecord): void {
    const file = this.fileOf(id);
    if (file) {
      mkdirSync(dirname(file), { recursive: true });
      replaceFile(file, Buffer.from(`${JSON.stringify(record)}\n`), 0o600);
    }
    this.known.set(id, record);
  }
}
