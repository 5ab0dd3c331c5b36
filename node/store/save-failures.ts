import type { ThreadId } from "../core/ids.ts";
/**
 * Which threads are not being saved (their last write failed), why, when their writes are tried
 * again, and what the user is to be told: once when a thread stops being saved, once when it is
 * saved again, never once per failed write.
 */

/** How long a thread whose write failed waits before its writes are tried again. */
export const SAVE_RETRY_MS = 2000;

export type SaveNotice =
  | { readonly type: "failing"; readonly title: string; readonly why: string }
  | { readonly type: "saved"; readonly title: string };

type Failure = { readonly title: string; readonly why: string; readonly retryAt: number };

export class SaveFailures {
  private readonly failing = new Map<ThreadId, Failure>();
  /** Threads the user was told are not being saved (by title): what `take` compares with. */
  private readonly told = new Map<ThreadId, string>();

  constructor(
    private readonly clock: { now(): number },
    readonly retryMs = SAVE_RETRY_MS,
  ) {}

  failed(id: ThreadId, title: string, why: string): void {
    this.failing.set(id, { title, why, retryAt: this.clock.now() + this.retryMs });
  }

  saved(id: ThreadId): void {
    this.failing.delete(id);
  }

  /** The thread is gone (deleted): nothing more to say of it. */
  forget(id: ThreadId): void {
    this.failing.delete(id);
    this.told.delete(id);
  }

  /** Why the thread is not being saved, or undefined when it is. */
  why(id: ThreadId): string | undefined {
    return this.failing.get(id)?.why;
  }

  has(id: ThreadId): boolean {
    return this.failing.has(id);
  }

  /** Whether a thread other than `id` is not being saved. */
  anyBut(id: ThreadId): boolean {
    return this.failing.size > (this.failing.has(id) ? 1 : 0);
  }

  /** Whether the failing thread's writes may be tried again at `now`. */
  due(id: ThreadId, now: number): boolean {
    const f = this.failing.get(id);
    return f !== undefined && now >= f.retryAt;
  }

  /** The next time a write is to be tried again, or null when nothing fails. */
  nextRetry(): number | null {
    let next: number | null = null;
    for (const f of this.failing.values()) if (next === null || f.retryAt < next) next = f.retryAt;
    return next;
  }

  /**
   * What to tell the user since the last call: threads that stopped being saved, and those saved
   * again. Compared with what was told, so a write that fails after another went through in the
   * same pass says nothing new.
   */
  take(): SaveNotice[] {
    const out: SaveNotice[] = [];
    if (this.failing.size === 0 && this.told.size === 0) return out;
    for (const [id, f] of this.failing) {
      if (this.told.has(id)) continue;
      this.told.set(id, f.title);
      out.push({ type: "failing", title: f.title, why: f.why });
    }
    for (const [id, title] of this.told) {
      if (this.failing.has(id)) continue;
      this.told.delete(id);
      out.push({ type: "saved", title });
    }
    return out;
  }
}

/** The notices as the user reads them: those of one pass grouped by reason. */
export function describeNotices(notices: readonly SaveNotice[], retryMs = SAVE_RETRY_MS): { level: "error" | "info"; text: string }[] {
  const quoted = (titles: string[]) => titles.map((t) => `"${t}"`).join(", ");
  const byWhy = new Map<string, string[]>();
  const saved: string[] = [];
  for (const n of notices) {
    if (n.type === "saved") saved.push(n.title);
    else byWhy.set(n.why, [...(byWhy.get(n.why) ?? []), n.title]);
  }
  const out: { level: "error" | "info"; text: string }[] = [...byWhy].map(([why, titles]) => ({
    level: "error",
    text:
      `tine: not being saved (${why}): ${quoted(titles)}. ${titles.length > 1 ? "They work" : "It works"} on in memory ` +
      `and ${titles.length > 1 ? "are" : "is"} written once saving works again (tried every ${Math.round(retryMs / 1000)} s).`,
  }));
  if (saved.length)
    out.push({ level: "info", text: `tine: saving works again: ${quoted(saved)} ${saved.length > 1 ? "are" : "is"} written.` });
  return out;
}
