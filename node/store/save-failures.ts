/**
 * Which threads are not being saved (their last write failed), why, when their writes are tried
 * again, and what the user is to be told: once when a thread stops being saved, once when it is
 * saved again, never once per failed write.
 */
import type { ThreadId } from "../chat/msgs.ts";

/** How long a thread whose write failed waits before its writes are tried again. */
export const SAVE_RETRY_MS = 2000;

export type SaveNotice =
  | { readonly type: "failing"; readonly title: string; readonly why: string }
  | { readonly type: "saved"; readonly title: string };

type Failure = { readonly why: string; readonly retryAt: number };

export class SaveFailures {
  private readonly failing = new Map<ThreadId, Failure>();
  private notices: SaveNotice[] = [];

  constructor(
    private readonly clock: { now(): number },
    readonly retryMs = SAVE_RETRY_MS,
  ) {}

  failed(id: ThreadId, title: string, why: string): void {
    if (!this.failing.has(id)) this.notices.push({ type: "failing", title, why });
    this.failing.set(id, { why, retryAt: this.clock.now() + this.retryMs });
  }

  saved(id: ThreadId, title: string): void {
    if (this.failing.delete(id)) this.notices.push({ type: "saved", title });
  }

  /** The thread is gone (deleted): nothing more to say of it. */
  forget(id: ThreadId): void {
    this.failing.delete(id);
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

  /** What to tell the user since the last call. */
  take(): SaveNotice[] {
    const out = this.notices;
    this.notices = [];
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
