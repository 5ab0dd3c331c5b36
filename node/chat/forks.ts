/**
 * The lifecycle of forks that come back: which live forks are linked to their parent, their idle
 * clocks, whether a wrap-up prompt was sent, what happens when their turn ends, and whether they
 * run in the background. State as data; `update` returns the effects the chat carries out. Time
 * is given in every message (the host's clock, or a test's), never read here.
 */
import type { ThreadId } from "./msgs.ts";

export type ForkLife = {
  readonly id: ThreadId;
  readonly parentId: ThreadId;
  /** Runs without a window and reports back when its turn ends. */
  readonly background: boolean;
  readonly idleTimeoutMs: number;
  /** Last activity, the user's or the agent's. */
  readonly lastActivity: number;
  /** When the wrap-up prompt was sent; cleared only by the user's activity. */
  readonly promptedAt: number | null;
  /** When the fork's current turn ends: report to the parent (its last reply is the summary). */
  readonly reportWhenDone: boolean;
};

export type ForkLifeMsg =
  | { type: "started"; id: ThreadId; parentId: ThreadId; background: boolean; idleTimeoutMs: number; now: number }
  | { type: "activity"; id: ThreadId; by: "user" | "agent"; now: number }
  /** The fork is asked for its summary; it reports once that turn ends. */
  | { type: "report-requested"; id: ThreadId; now: number }
  | { type: "opened"; id: ThreadId }
  /** The fork's turn ended (it is at rest). */
  | { type: "turn-ended"; id: ThreadId; now: number }
  | { type: "tick"; now: number }
  | { type: "ended"; id: ThreadId };

export type ForkEffect =
  /** Send the fork the wrap-up prompt (its first idle period ran out). */
  | { type: "wrap-up"; id: ThreadId }
  /** Ask the fork for a summary; it reports when that turn ends (the second period ran out). */
  | { type: "ask-summary"; id: ThreadId }
  /** The fork's turn is over and it reports: its last reply goes to the parent, then it ends. */
  | { type: "report"; id: ThreadId };

export class ForkLives {
  private readonly lives = new Map<ThreadId, ForkLife>();

  get(id: ThreadId): ForkLife | undefined {
    return this.lives.get(id);
  }

  all(): ForkLife[] {
    return [...this.lives.values()];
  }

  /** The earliest time a tick can change anything, or null (no timer needed). */
  nextDeadline(): number | null {
    let next: number | null = null;
    for (const f of this.lives.values()) {
      if (f.reportWhenDone) continue;
      const at = (f.promptedAt ?? f.lastActivity) + f.idleTimeoutMs;
      if (next === null || at < next) next = at;
    }
    return next;
  }

  update(msg: ForkLifeMsg): ForkEffect[] {
    switch (msg.type) {
      case "started":
        this.lives.set(msg.id, {
          id: msg.id,
          parentId: msg.parentId,
          background: msg.background,
          idleTimeoutMs: msg.idleTimeoutMs,
          lastActivity: msg.now,
          promptedAt: null,
          // A background fork reports back as soon as its turn ends.
          reportWhenDone: msg.background,
        });
        return [];
      case "activity": {
        const f = this.lives.get(msg.id);
        if (!f) return [];
        // Only the user clears the prompted state, so an agent talking to itself cannot keep a fork alive.
        this.lives.set(msg.id, { ...f, lastActivity: msg.now, promptedAt: msg.by === "user" ? null : f.promptedAt });
        return [];
      }
      case "report-requested": {
        const f = this.lives.get(msg.id);
        if (f) this.lives.set(msg.id, { ...f, reportWhenDone: true, lastActivity: msg.now });
        return [];
      }
      case "opened": {
        const f = this.lives.get(msg.id);
        // An opened background fork is an ordinary interactive fork from then on.
        if (f?.background) this.lives.set(msg.id, { ...f, background: false, reportWhenDone: false });
        return [];
      }
      case "turn-ended": {
        const f = this.lives.get(msg.id);
        if (!f?.reportWhenDone) return [];
        return [{ type: "report", id: msg.id }];
      }
      case "tick": {
        const effects: ForkEffect[] = [];
        for (const f of this.lives.values()) {
          if (f.reportWhenDone) continue;
          if (f.promptedAt !== null) {
            if (msg.now - f.promptedAt >= f.idleTimeoutMs && msg.now - f.lastActivity >= 0) {
              this.lives.set(f.id, { ...f, reportWhenDone: true });
              effects.push({ type: "ask-summary", id: f.id });
            }
          } else if (msg.now - f.lastActivity >= f.idleTimeoutMs) {
            this.lives.set(f.id, { ...f, promptedAt: msg.now, lastActivity: msg.now });
            effects.push({ type: "wrap-up", id: f.id });
          }
        }
        return effects;
      }
      case "ended":
        this.lives.delete(msg.id);
        return [];
    }
  }
}
