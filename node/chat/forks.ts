/**
 * The lifecycle of forks that come back: which live forks are linked to their parent, who opened
 * them, their idle clocks, whether a wrap-up prompt reached them, what happens when their turn
 * ends, and whether they run in the background. State as data; `update` returns the effects the
 * chat carries out. Time is given in every message (the host's clock, or a test's), never read
 * here.
 */

import type { ThreadId } from "../core/ids.ts";
import { MinHeap } from "./min-heap.ts";
import type { ThreadMsg } from "./msgs.ts";

/** Why a fork reports back by itself once its current turn ends. */
export type ReportWhy =
  /** It runs without a window (`@bg`). */
  | "background"
  /** It was asked for its summary (report without text). */
  | "asked"
  /** Its second idle period ran out: the user's activity calls it off. */
  | "idle";

export type ForkLife = {
  readonly id: ThreadId;
  readonly parentId: ThreadId;
  /** Runs without a window and reports back when its turn ends. */
  readonly background: boolean;
  readonly idleTimeoutMs: number;
  /** When the current idle period started: the last activity (the user's or the agent's), or a wrap-up that could not be sent. */
  readonly lastActivity: number;
  /** When the wrap-up prompt reached the fork; cleared only by the user's activity. */
  readonly promptedAt: number | null;
  /** When the fork's current turn ends it reports to the parent (its last reply is the summary), and why; null: it does not. */
  readonly reportWhenDone: ReportWhy | null;
  /**
   * Opened by the agent (enter_fork) and not sent to by the user since: it may not open forks of
   * its own, and counts toward its parent's agent_fork_limit. The user's first send makes it theirs.
   */
  readonly agentOpened: boolean;
  /** One of a fan-out: when its turn ends it waits for the user's choice (no report, no idle clock). */
  readonly waitsForChoice: boolean;
};

/** Why the agent may not open a fork of a thread now. */
export type AgentForkBar =
  /** The thread is a fork the agent opened, not yet taken over by the user. */
  | { readonly type: "agent-opened" }
  /** The thread has `limit` (agent_fork_limit) or more live forks the agent opened. */
  | { readonly type: "limit"; readonly open: number; readonly limit: number };

export type ForkLifeMsg =
  | {
      type: "started";
      id: ThreadId;
      parentId: ThreadId;
      background: boolean;
      idleTimeoutMs: number;
      openedBy: "user" | "agent" | "fan-out";
      now: number;
    }
  | { type: "activity"; id: ThreadId; by: "user" | "agent"; now: number }
  /** The user sent a message in the fork: activity, and the fork is the user's from now on. */
  | { type: "user-sent"; id: ThreadId; now: number }
  /** The wrap-up prompt was sent to the fork (it was at rest to take it): its second period starts. */
  | { type: "wrap-up-sent"; id: ThreadId; now: number }
  /** The fork is asked for its summary; it reports once that turn ends. */
  | { type: "report-requested"; id: ThreadId; now: number }
  | { type: "opened"; id: ThreadId }
  /** The fork's turn ended (it is at rest). */
  | { type: "turn-ended"; id: ThreadId; now: number }
  | { type: "tick"; now: number }
  | { type: "ended"; id: ThreadId };

export type ForkEffect =
  /** Send the fork the wrap-up prompt (its first idle period ran out); say `wrap-up-sent` if it was. */
  | { type: "wrap-up"; id: ThreadId }
  /** Ask the fork for a summary; it reports when that turn ends (the second period ran out). */
  | { type: "ask-summary"; id: ThreadId }
  /** The fork's turn is over and it reports: its last reply goes to the parent, then it ends. */
  | { type: "report"; id: ThreadId };

/**
 * Who a message to a thread shows active in it: the user (a send, an approval or denial, a key
 * the host hears: abort, retry, a toggled detail, a rename), the agent (its stream, its tools
 * finishing), or nobody (what tine does by itself: its own prompts, a queued report, a rewind).
 */
export function actorOf(msg: ThreadMsg): "user" | "agent" | null {
  switch (msg.type) {
    case "send":
      return msg.auto ? null : "user";
    case "tool-decision":
    case "abort":
    case "retry":
    case "answer":
    case "toggle-detail":
    case "rename":
    case "label":
    case "unqueue":
    case "choose-model":
      return "user";
    case "agent":
    case "tool-done":
      return "agent";
    case "title-asked":
    case "model-title":
    case "side-request":
    case "queue-report":
    case "rewind":
    case "code":
    case "file-diff":
      return null;
  }
}

/** A fork's life as kept here: changed in place (handed out as the read-only ForkLife). */
type Life = { -readonly [K in keyof ForkLife]: ForkLife[K] };

export class ForkLives {
  private readonly lives = new Map<ThreadId, Life>();

  get(id: ThreadId): ForkLife | undefined {
    return this.lives.get(id);
  }

  all(): ForkLife[] {
    return [...this.lives.values()];
  }

  /** How many live forks of `parentId` the agent opened (and the user has not taken over). */
  agentOpenedOf(parentId: ThreadId): number {
    let n = 0;
    for (const f of this.lives.values()) if (f.parentId === parentId && f.agentOpened) n++;
    return n;
  }

  /**
   * Why the agent of thread `id` may not open a fork now, or null. What it starts on its own is
   * bounded: a fork it opened opens none until the user sends in it, and at most `limit` of the
   * forks it opened from one thread are live at once.
   */
  agentForkBar(id: ThreadId, limit: number): AgentForkBar | null {
    if (this.lives.get(id)?.agentOpened) return { type: "agent-opened" };
    const open = this.agentOpenedOf(id);
    return open < limit ? null : { type: "limit", open, limit };
  }

  /**
   * The earliest time a tick can change anything, or null (no timer needed). Each live fork has
   * one entry in a min-heap, at its deadline or earlier: activity only ever moves a deadline later,
   * so it is not pushed then; an entry found early when it reaches the top is pushed again at the
   * fork's deadline. So a streamed delta costs no heap work unless its fork's entry is on top.
   */
  nextDeadline(): number | null {
    for (;;) {
      const top = this.deadlines.peek();
      if (!top) return null;
      if (this.queued.get(top.id) !== top) {
        this.deadlines.pop(); // an entry pushed again since, or of a fork that ended
        continue;
      }
      const at = this.deadlineOf(top.id);
      if (at === top.at) return at;
      this.deadlines.pop();
      this.queued.delete(top.id);
      if (at !== null) this.push(top.id, at);
    }
  }

  private readonly deadlines = new MinHeap<Deadline>((a, b) => a.at - b.at);
  /** Each live fork's entry in the heap (its other entries are stale), at or before its deadline. */
  private readonly queued = new Map<ThreadId, Deadline>();

  /** When fork `id`'s idle period runs out, or null (none while it waits to report, or once it ended). */
  private deadlineOf(id: ThreadId): number | null {
    const f = this.lives.get(id);
    if (!f || f.reportWhenDone || f.waitsForChoice) return null;
    return (f.promptedAt ?? f.lastActivity) + f.idleTimeoutMs;
  }

  /** Fork `id`'s deadline changed: pushed when it came before its entry (or it has none); a later one waits for its entry to reach the top. */
  private renew(id: ThreadId): void {
    const at = this.deadlineOf(id);
    if (at === null) return; // its entry, if any, is dropped when it reaches the top
    const entry = this.queued.get(id);
    if (entry && entry.at <= at) return;
    this.push(id, at);
  }

  private push(id: ThreadId, at: number): void {
    const d = { id, at };
    this.queued.set(id, d);
    this.deadlines.push(d);
    // Stale entries under an early one are dropped only when they reach the top: past twice the
    // live ones, the heap is built again from the current entries (amortised O(1) per push).
    if (this.deadlines.size > 2 * this.queued.size + 64) this.deadlines.reset([...this.queued.values()]);
  }

  update(msg: ForkLifeMsg): ForkEffect[] {
    const effects = this.apply(msg);
    if (msg.type === "tick") for (const id of this.lives.keys()) this.renew(id);
    else this.renew(msg.id);
    return effects;
  }

  private apply(msg: ForkLifeMsg): ForkEffect[] {
    switch (msg.type) {
      case "started":
        this.lives.set(msg.id, {
          id: msg.id,
          parentId: msg.parentId,
          background: msg.background,
          idleTimeoutMs: msg.idleTimeoutMs,
          lastActivity: msg.now,
          promptedAt: null,
          // A background fork reports back as soon as its turn ends; one of a fan-out waits for the choice.
          reportWhenDone: msg.background && msg.openedBy !== "fan-out" ? "background" : null,
          agentOpened: msg.openedBy === "agent",
          waitsForChoice: msg.openedBy === "fan-out",
        });
        return [];
      case "activity":
        this.active(msg.id, msg.by, msg.now);
        return [];
      case "user-sent": {
        this.active(msg.id, "user", msg.now);
        const f = this.lives.get(msg.id);
        if (f?.agentOpened) this.lives.set(msg.id, { ...f, agentOpened: false });
        return [];
      }
      case "wrap-up-sent": {
        const f = this.lives.get(msg.id);
        if (f) this.lives.set(msg.id, { ...f, promptedAt: msg.now, lastActivity: msg.now });
        return [];
      }
      case "report-requested": {
        const f = this.lives.get(msg.id);
        if (f) this.lives.set(msg.id, { ...f, reportWhenDone: "asked", lastActivity: msg.now });
        return [];
      }
      case "opened": {
        const f = this.lives.get(msg.id);
        // An opened background fork is an ordinary interactive fork from then on.
        if (f?.background)
          this.lives.set(msg.id, { ...f, background: false, reportWhenDone: f.reportWhenDone === "background" ? null : f.reportWhenDone });
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
          if (f.reportWhenDone || f.waitsForChoice) continue;
          if (f.promptedAt !== null) {
            if (msg.now - f.promptedAt >= f.idleTimeoutMs) {
              this.lives.set(f.id, { ...f, reportWhenDone: "idle" });
              effects.push({ type: "ask-summary", id: f.id });
            }
          } else if (msg.now - f.lastActivity >= f.idleTimeoutMs) {
            // A fresh period: the fork counts as prompted only once the prompt reaches it
            // (`wrap-up-sent`); one that could not take it (waiting on an approval) is tried again then.
            this.lives.set(f.id, { ...f, lastActivity: msg.now });
            effects.push({ type: "wrap-up", id: f.id });
          }
        }
        return effects;
      }
      case "ended":
        this.lives.delete(msg.id);
        this.queued.delete(msg.id);
        return [];
    }
  }

  /** Activity resets the idle clock; the user's also clears the prompted state and an idle report. */
  private active(id: ThreadId, by: "user" | "agent", now: number): void {
    const f = this.lives.get(id);
    if (!f) return;
    // In place: an agent's activity is every streamed delta of the fork.
    f.lastActivity = now;
    // Only the user clears the prompted state, so an agent talking to itself cannot keep a fork alive.
    if (by === "user") {
      f.promptedAt = null;
      if (f.reportWhenDone === "idle") f.reportWhenDone = null;
    }
  }
}

type Deadline = { readonly id: ThreadId; readonly at: number };
