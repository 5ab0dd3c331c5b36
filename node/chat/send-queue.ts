/**
 * The messages a user sends while the agent works, and the one rule of when each goes. A send
 * while the thread streams or runs tools waits here: it goes when the turn ends (all that wait,
 * as one user message, in order, once), or, sent with `@now`, with the next tool results, so the
 * agent reads it mid-turn. A turn that stops without ending (an abort, an error) holds them: they
 * go with the user's next message, never by themselves.
 */
import { readContextBlock, writeContextBlock } from "../context/blocks.ts";
import type { SendContext } from "../context/follow.ts";
import type { UserBlock } from "../core/native.ts";
import type { StoredQueued, ThreadMsg } from "./msgs.ts";

export type SendMsg = Extract<ThreadMsg, { type: "send" }>;

/** One waiting message: the whole send (whatever it carries), and its number for cancel and edit. */
export type QueuedSend = { readonly id: number; readonly msg: SendMsg };

/**
 * Why the queue waits for the user instead of going when a turn ends: the turn was aborted, or
 * failed, or the session it belonged to ended (the queue came back from disk).
 */
export type QueueHold = "aborted" | "failed" | "restored";

export class SendQueue {
  /** In the order they were sent. Replaced, never mutated. */
  items: readonly QueuedSend[] = [];
  /** Non-null: nothing goes by itself until the user sends again (or retries the failed turn). */
  held: QueueHold | null = null;
  private nextId = 1;

  get length(): number {
    return this.items.length;
  }

  /** A send while the agent works. The user acted again: a held queue goes with it, when this turn ends. */
  add(msg: SendMsg): QueuedSend {
    const item = { id: this.nextId++, msg };
    this.items = [...this.items, item];
    if (!msg.auto) this.held = null;
    return item;
  }

  /** Cancelled or taken back to be edited; undefined when it is no longer here (it went meanwhile). */
  remove(id: number): QueuedSend | undefined {
    const item = this.items.find((i) => i.id === id);
    if (item) this.items = this.items.filter((i) => i !== item);
    if (!this.items.length) this.held = null;
    return item;
  }

  /** Tool results go back to the agent: the `@now` messages go with them (unless held). */
  takeForToolResults(): SendMsg[] {
    if (this.held) return [];
    const now = this.items.filter((i) => i.msg.now);
    if (now.length) this.items = this.items.filter((i) => !i.msg.now);
    return now.map((i) => i.msg);
  }

  /** The turn ended by itself (no tools left): everything that waits goes, unless held. */
  takeAtTurnEnd(): SendMsg[] {
    return this.held ? [] : this.takeAll();
  }

  /** The user sends while the thread is at rest: what waits (held or not) goes first, in order. */
  takeAll(): SendMsg[] {
    const all = this.items.map((i) => i.msg);
    this.items = [];
    this.held = null;
    return all;
  }

  /** The turn stopped without ending: what waits stays until the user sends again. */
  hold(why: QueueHold): void {
    if (this.items.length) this.held = why;
  }

  /**
   * Messages read back from disk (a restart, a thread taken over): they wait for the user, held.
   * Their mentions come back as they were resolved; the files followed are taken afresh by the
   * send that releases them (a merged send's followed files are the latest send's).
   */
  restore(stored: readonly StoredQueued[]): void {
    this.items = stored.map((s) => {
      const items = (s.context ?? []).flatMap((block) => readContextBlock(block) ?? []);
      const msg: SendMsg = {
        type: "send",
        text: s.text,
        ...(s.now ? { now: true } : {}),
        ...(items.length ? { context: { items, followed: [] } } : {}),
      };
      return { id: this.nextId++, msg };
    });
    this.held = this.items.length ? "restored" : null;
  }

  /** The failed turn is sent again: what waits goes when that turn ends. */
  release(): void {
    this.held = null;
  }
}

/** A queued send as it is stored: its mentions' items in their request format (context/blocks.ts). */
export function storedQueued(msg: SendMsg): StoredQueued {
  const context = msg.context?.items.map(writeContextBlock) ?? [];
  return { text: msg.text, ...(msg.now ? { now: true } : {}), ...(context.length ? { context } : {}) };
}

/** The blocks one send gives its user message: what was typed (an empty send, which only sends what waits, gives none). */
export function sendBlocks(msg: SendMsg): UserBlock[] {
  return msg.text.trim() ? [{ type: "text", text: msg.text }] : [];
}

/** Several sends going as one message: all their mentions; the files followed as the latest of them saw them. */
export function mergedContext(sends: readonly SendMsg[]): SendContext | null {
  const contexts = sends.flatMap((s) => (s.context ? [s.context] : []));
  if (!contexts.length) return null;
  return { items: contexts.flatMap((c) => c.items), followed: contexts.at(-1)!.followed };
}
