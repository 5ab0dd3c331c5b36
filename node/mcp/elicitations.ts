/**
 * The questions MCP servers ask the user mid-call (`elicitation/create`), held until the user
 * answers them: tine never answers one for the user. A question goes to the thread whose call is
 * running on that server (the oldest, when several threads' are): a thread in sight shows the form
 * at once, a background fork waits, as for an approval, until the user opens it
 * (lua/tine/elicit.lua). A request tine cannot show (too big, malformed: elicit-form.ts) is told to
 * the user and answered "decline"; one the server withdraws, or whose call ended, is dropped and
 * answered "cancel", and its thread goes on.
 */
import type { ThreadId } from "../core/ids.ts";
import { checkAnswer, type ElicitForm, type Entered, type FieldValue, formOf } from "./elicit-form.ts";

/** What goes back to the server. */
export type ElicitAnswer =
  | { readonly action: "accept"; readonly content: Record<string, FieldValue> }
  | { readonly action: "decline" }
  | { readonly action: "cancel" };

export type ElicitAction = ElicitAnswer["action"];

/** A question as Lua shows it: `key` names it in the answer. */
export type ShownElicitation = ElicitForm & { readonly key: string; readonly server: string };

/** How an answer was taken: sent; not fitting the form (the user is asked again); or the question no longer waits. */
export type ElicitReply = { status: "answered" } | { status: "invalid"; problem: string } | { status: "gone" };

export type ElicitationDeps = {
  /** Thread `thread` has a question waiting (Neovim shows it, or says it waits). */
  readonly waiting: (thread: ThreadId) => void;
  /** Tells the user something went wrong (an error notification). */
  readonly tell: (text: string) => void;
};

type Pending = ShownElicitation & { readonly thread: ThreadId; readonly settle: (answer: ElicitAnswer) => void };

const DECLINE: ElicitAnswer = { action: "decline" };
const CANCEL: ElicitAnswer = { action: "cancel" };

export class Elicitations {
  /** Per server, the thread of each call running on it, oldest first (a thread once per call). */
  private readonly calls = new Map<string, ThreadId[]>();
  private readonly pending: Pending[] = [];
  private made = 0;

  constructor(private readonly deps: ElicitationDeps) {}

  /** Runs `work`, a call of `thread`'s on `server`: a question the server asks meanwhile goes to that thread. */
  async during<T>(server: string, thread: ThreadId | undefined, work: () => Promise<T>): Promise<T> {
    if (thread === undefined) return work();
    const threads = this.calls.get(server) ?? [];
    threads.push(thread);
    this.calls.set(server, threads);
    try {
      return await work();
    } finally {
      threads.splice(threads.indexOf(thread), 1);
      if (threads.length === 0) this.calls.delete(server);
      // Its call ended: a question of it still waiting is moot.
      if (!threads.includes(thread))
        for (const p of this.pending.filter((q) => q.server === server && q.thread === thread)) p.settle(CANCEL);
    }
  }

  /** `server` asks (`params`: its request's, unchecked); resolves to the user's answer. `signal`: the server withdrew it. */
  ask(server: string, params: unknown, signal: AbortSignal): Promise<ElicitAnswer> {
    const read = formOf(params);
    if ("problem" in read) {
      this.deps.tell(`tine: the MCP server ${server} asked a question tine cannot show: ${read.problem}. It was answered "decline".`);
      return Promise.resolve(DECLINE);
    }
    const thread = this.calls.get(server)?.[0];
    if (thread === undefined) {
      this.deps.tell(`tine: the MCP server ${server} asked a question outside any tool call of a thread. It was answered "decline".`);
      return Promise.resolve(DECLINE);
    }
    if (signal.aborted) return Promise.resolve(CANCEL);
    return new Promise((resolve) => {
      const withdrawn = () => pending.settle(CANCEL);
      const pending: Pending = {
        ...read.form,
        key: String(++this.made),
        server,
        thread,
        settle: (answer) => {
          const at = this.pending.indexOf(pending);
          if (at === -1) return;
          this.pending.splice(at, 1);
          signal.removeEventListener("abort", withdrawn);
          resolve(answer);
        },
      };
      signal.addEventListener("abort", withdrawn, { once: true });
      this.pending.push(pending);
      this.deps.waiting(thread);
    });
  }

  /** The oldest question waiting for `thread`'s user, or null. */
  next(thread: ThreadId): ShownElicitation | null {
    const p = this.pending.find((q) => q.thread === thread);
    return p ? { key: p.key, server: p.server, message: p.message, fields: p.fields } : null;
  }

  /** The user's answer to question `key` of `thread`; an accepted form is checked against its schema first. */
  answer(thread: ThreadId, key: string, action: ElicitAction, entered: Entered): ElicitReply {
    const p = this.pending.find((q) => q.thread === thread && q.key === key);
    if (!p) return { status: "gone" };
    switch (action) {
      case "accept": {
        const checked = checkAnswer(p, entered);
        if ("problem" in checked) return { status: "invalid", problem: checked.problem };
        p.settle({ action: "accept", content: checked.content });
        break;
      }
      case "decline":
        p.settle(DECLINE);
        break;
      case "cancel":
        p.settle(CANCEL);
        break;
    }
    return { status: "answered" };
  }
}
