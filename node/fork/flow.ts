/**
 * The one way forks are made. Every fork is asked for here, whoever asks: the user (`@fork`, `@bg`,
 * `:ForkThread`, the list's keys, `fork()`, `e` on a message), the agent (enter_fork), and the
 * threads of their own a hand-off and a compaction branch off (`branch`). Here it is decided when
 * a fork is made (now, once its source is at rest, once its source's program ends its turn, once
 * its worktree is made: request.ts) and in which folder it works (its source's, or a worktree of
 * its own: plan.ts); the forks that wait are kept here and nowhere else. The chat clones the
 * source when told (`fork-thread`, chat/take-fork.ts) and keeps the tree; every thread's id and
 * number come from its one mint (chat/mint.ts). `start` takes a request planned elsewhere (forks
 * made N at a time, forks of other kinds of thread).
 */
import type { Chat } from "../chat/chat.ts";
import type { NewThread } from "../chat/mint.ts";
import type { Dispatch, ForkClone, StoredSource } from "../chat/msgs.ts";
import { threadName, typedText } from "../chat/names.ts";
import type { PreparedFork, Runner } from "../chat/runner.ts";
import type { Thread } from "../chat/thread.ts";
import type { SendContext } from "../context/follow.ts";
import type { ThreadId } from "../core/ids.ts";
import type { RunnerSpec } from "../core/runner-spec.ts";
import { assertUnreachable } from "../util/assert-unreachable.ts";
import type { CodeActions } from "../worktree/code-actions.ts";
import { forkBase, type Workspaces } from "../worktree/workspaces.ts";
import { planFork } from "./plan.ts";
import type { ForkAsk, ForkRequest, WaitingFork } from "./request.ts";

/** Where threads work (node/worktree/workspaces.ts): what forking asks of it. */
export type ForkFolders = Pick<
  Workspaces,
  "share" | "fork" | "forkMeanwhile" | "remove" | "available" | "inWorktree" | "unattendedRefusal"
>;

/** What the fork flow needs of the host. */
export type ForkFlowHost = {
  readonly chat: Chat;
  readonly dispatch: Dispatch;
  readonly folders: ForkFolders;
  /** A fork's files at a message: restored in place (`restore_code` without a worktree), or the snapshot its worktree is made from. */
  readonly code: Pick<CodeActions, "restore" | "settledCode">;
  /** `fork_worktree`: which forks get a worktree of their own without asking. */
  readonly forkWorktree: "always" | "background" | "never";
  /** `fork_unattended`: which forks are unattended (in the sandbox, in a worktree of their own) without asking. */
  readonly forkUnattended: "always" | "background" | "never";
  /** A stored thread as its file holds it: it is forked without being opened. */
  storedSource(id: ThreadId): StoredSource;
  /** A stored source runs by its header: the user is told, once, what of it is not used. */
  storedRunnerUsed(id: ThreadId, title: string, spec: RunnerSpec): void;
  /** A live thread (an error names a stored one, which must be opened first). */
  live(id: ThreadId): Thread;
  /** Waits for a fork's buffers (it opens beside its source). */
  show(id: ThreadId): Promise<unknown>;
  tell(text: string, error: boolean): void;
};

/** Where a request is once `start` returns: the chat has taken the fork, or it waits, or it is made later. */
export type Started = "taken" | "later";

export class ForkFlow {
  /** The fork waiting for each source (the key): the only forks that wait. */
  private readonly waits = new Map<ThreadId, WaitingFork>();
  /** The user was told that forks `fork_unattended` names are made attended here (no sandbox): once is enough. */
  private attendedSaid = false;

  constructor(private readonly host: ForkFlowHost) {}

  /** The fork waiting for `sourceId`, if any (the list shows it under its source). */
  waiting(sourceId: ThreadId): WaitingFork | undefined {
    return this.waits.get(sourceId);
  }

  /**
   * The user's fork of a live or stored thread (a stored one is read, not loaded: no buffers of
   * its own): its id once it is made, or once it waits (or is made later); null when the request
   * cancelled the fork waiting on that source instead. `context`: what the prompt's mentions
   * resolved to (host/send.ts resolves them for every fork the user asks for with a prompt).
   */
  async fork(sourceId: ThreadId, prompt: string, ask: ForkAsk = {}, context?: SendContext): Promise<ThreadId | null> {
    const { chat } = this.host;
    const live = chat.threads.get(sourceId);
    if (ask.restore_code && ask.at_message === undefined) throw new Error("tine: restore_code forks at a message: give at_message too");
    const background = ask.background === true;
    if (!live && !chat.stored.has(sourceId)) throw new Error(`tine: ${threadName(chat, sourceId)} cannot be forked`);
    if (this.cancel(sourceId)) return null;
    const unattended = await this.unattended(sourceId, ask, background);
    // A worktree asked for must be made; one the option gives is made where it can be (a git repository).
    const worktree = unattended || (ask.worktree ?? (this.wantsWorktree(sourceId, background) && (await this.host.folders.available())));
    const storedSource = live ? undefined : this.host.storedSource(sourceId);
    const length = live ? live.runner.history.length : storedSource!.history.length;
    const at = ask.at_message;
    // -1: before the first message (`e` on it); Lua's requests give 0 or more.
    if (at !== undefined && (at < -1 || at >= length)) throw new Error(`${chat.titleOf(sourceId)} has no message ${at}`);
    if (background && !prompt) throw new Error("tine: a background fork needs a prompt");
    // One in a worktree of its own is made ready once its worktree is (its program works there).
    const prepared = worktree ? null : await this.prepare(live?.runner, storedSource, at, null);
    const minted = chat.mint();
    try {
      return await this.make(sourceId, prompt, ask, context, { live, storedSource, at, worktree, unattended, prepared, minted });
    } catch (error) {
      // Refused or failed: no thread has its number, which the next one gets.
      chat.unmint(minted);
      throw error;
    }
  }

  /** A user's fork, checked and numbered: its files restored, its request started. */
  private async make(
    sourceId: ThreadId,
    prompt: string,
    ask: ForkAsk,
    context: SendContext | undefined,
    how: {
      live: Thread | undefined;
      storedSource: StoredSource | undefined;
      at: number | undefined;
      worktree: boolean;
      unattended: boolean;
      prepared: PreparedFork | null;
      minted: NewThread;
    },
  ): Promise<ThreadId> {
    const { live, storedSource, at, worktree, unattended, prepared } = how;
    const { id: newId, num } = how.minted;
    const background = ask.background === true;
    // The files last, once nothing can refuse the fork, and before it is made (its first turn finds
    // them): as they were at the fork point (files changed since left alone and named, unless overwritten).
    if (ask.restore_code && !worktree) await this.restoreFiles(sourceId, at!, ask.restore_overwrite === true);
    // A worktree is made from the fork point's files (with restore_code: the message's), else from its source's.
    const base = ask.restore_code ? forkBase(await this.host.code.settledCode(sourceId), at!) : null;
    const fork: ForkClone = {
      sourceId,
      newId,
      num,
      prompt,
      ...(context ? { context } : {}),
      atMessage: prepared ? prepared.atMessage : at,
      storedSource,
      opener: { by: "user", background, prefill: ask.prefill, ...(ask.holdResults ? { holdResults: true } : {}) },
      ...(prepared ? { prepared: prepared.made } : {}),
    };
    if (!worktree) this.host.folders.share(newId, sourceId);
    const sourceMidTurn = live?.runner.midTurn() === true;
    const started = await this.start(planFork(fork, { wait: ask.wait === true, worktree, unattended, base, sourceMidTurn }));
    if (started === "taken" && !background) await this.host.show(newId);
    return newId;
  }

  /**
   * `e` on a message the user wrote: a fork just before its text, with the text in the fork's input
   * to edit and send. A message sent with tool results (queued, or written as a call was denied)
   * keeps them in the fork, unsent: the edited text goes with them, as the message did.
   */
  editMessage(id: ThreadId, index: number): Promise<ThreadId | null> {
    const history = this.host.live(id).runner.history;
    // fork() would take the request for a cancel of that fork.
    if (this.waits.has(id)) throw new Error("tine: a fork waits for this reply to finish: cancel it first (<C-c> in the list)");
    const text = index < history.length ? typedText(history.at(index).message) : "";
    if (!text) throw new Error("tine: e edits a message you wrote: put the cursor on one of yours");
    const withResults = history.at(index).message.content.some((b) => b.type === "tool_result");
    return this.fork(id, "", { at_message: index - 1, prefill: text, ...(withResults ? { holdResults: true } : {}) });
  }

  /** The agent's enter_fork, as its response ends (chat/fork-exits.ts): taken now, in place, where its source works. */
  agentFork(sourceId: ThreadId, ask: { readonly prompt: string; readonly idleTimeoutMs?: number }): ForkClone {
    const { id: newId, num } = this.host.chat.mint();
    this.host.folders.share(newId, sourceId);
    return { sourceId, newId, num, prompt: ask.prompt, opener: { by: "agent", idleTimeoutMs: ask.idleTimeoutMs } };
  }

  /** A thread of its own branched off `sourceId` (a hand-off, a compaction): its id and number; it works where its source works. */
  branch(sourceId: ThreadId): NewThread {
    const made = this.host.chat.mint();
    this.host.folders.share(made.id, sourceId);
    return made;
  }

  /**
   * Carries a fork on its way, from where `request` says it is: "taken" once the chat has it,
   * "later" when it waits (listed under its source) or is made once its worktree is.
   */
  async start(request: ForkRequest): Promise<Started> {
    const { fork } = request;
    const source = this.host.chat.threads.get(fork.sourceId);
    switch (request.when) {
      case "now":
        this.take(fork);
        return "taken";
      case "at-rest":
        if (source?.atRest === false) {
          this.wait(request);
          return "later";
        }
        if (request.worktree) {
          this.worktreeWhenDue(fork, request.unattended);
          return "later";
        }
        this.take(fork);
        return "taken";
      case "turn-end": {
        const turnEnd = source?.runner.betweenTurns();
        const made = { when: "worktree-made", fork, base: request.base, next: "now", unattended: request.unattended } as const;
        if (!turnEnd) return this.start(made);
        this.wait(request);
        const title = source!.title;
        this.host.tell(`tine: the fork of ${title} is made in its own worktree once its turn ends (asking again cancels it)`, false);
        void turnEnd
          // Made later than asked: it opens without taking the cursor (chat/take-fork.ts).
          .then(() => (this.waits.get(fork.sourceId) === request ? this.start({ ...made, fork: { ...fork, waited: true } }) : null))
          .catch((e: Error) => this.notMade(fork, `tine: the fork of ${title} was not made: ${e.message}`));
        return "later";
      }
      case "worktree-made": {
        const { sourceId, newId, num } = fork;
        // One that waited for a turn's end stays listed while its worktree is made: asking again cancels it, and its worktree goes.
        const listed = () => this.waits.get(sourceId)?.fork.newId === newId;
        const wasListed = listed();
        const made = await this.host.folders.fork(sourceId, newId, num, request.base, request.unattended);
        if (wasListed && !listed()) {
          await this.host.folders.remove(made.root);
          return "later";
        }
        // It waits no more: the fork taken below redraws the list.
        if (wasListed) this.waits.delete(sourceId);
        const ready = await this.prepare(this.host.chat.threads.get(sourceId)?.runner, fork.storedSource, fork.atMessage, made.root);
        const due: ForkClone = ready ? { ...fork, atMessage: ready.atMessage, prepared: ready.made } : fork;
        return this.start(request.next === "now" ? { when: "now", fork: due } : { when: "at-rest", fork: due, worktree: false });
      }
      case "worktree-meanwhile": {
        const { sourceId, newId, num } = fork;
        const { made } = await this.host.folders.forkMeanwhile(sourceId, newId, num, request.base, request.unattended);
        made.catch((e: Error) =>
          this.host.tell(
            `tine: the worktree of ${this.host.chat.titleOf(newId) ?? `fork #${num}`} was not made (${e.message}): its tools cannot run; discard it`,
            true,
          ),
        );
        return this.start({ when: "now", fork });
      }
      default:
        return assertUnreachable(request);
    }
  }

  /**
   * Thread `sourceId` came to rest (inside the chat's loop): the fork that waited for that is due.
   * Returned when the chat takes it now, in place; one in a worktree of its own is made first.
   */
  dueAtRest(sourceId: ThreadId): ForkClone | null {
    const waiting = this.waits.get(sourceId);
    if (waiting?.when !== "at-rest") return null;
    this.unwait(sourceId);
    // Made later than asked: it opens without taking the cursor (chat/take-fork.ts).
    const fork: ForkClone = { ...waiting.fork, waited: true };
    if (!waiting.worktree) return this.ready(fork);
    this.worktreeWhenDue(fork, waiting.unattended);
    return null;
  }

  /**
   * A runner whose program forks its own conversation (an ACP agent) forks it first (where, and the
   * new session, are its: chat/runner.ts `prepareFork`); a stored source is run by its header for that.
   */
  private async prepare(
    live: Runner | undefined,
    stored: StoredSource | undefined,
    at: number | undefined,
    cwd: string | null,
  ): Promise<PreparedFork | null> {
    const source = live ?? (stored ? this.host.chat.runners.reopen(stored.runner, stored.history, () => {}) : undefined);
    if (!source?.prepareFork) return null;
    try {
      return await source.prepareFork(at, cwd);
    } finally {
      // A stored source's runner was only for this.
      if (!live) source.close();
    }
  }

  /** Cancels the fork waiting for `sourceId`, if any, and says so. */
  cancel(sourceId: ThreadId): boolean {
    const waiting = this.waits.get(sourceId);
    if (!waiting) return false;
    this.unwait(sourceId);
    this.host.chat.unmint({ id: waiting.fork.newId, num: waiting.fork.num });
    this.host.tell(`tine: the fork waiting for "${this.host.chat.titleOf(sourceId)}" is cancelled`, false);
    return true;
  }

  /** Thread `id` left the chat (deleted, or a fork that ended): a fork waiting for it is dropped. */
  forget(id: ThreadId): void {
    this.waits.delete(id);
  }

  /**
   * Whether `fork_worktree` gives a fork (a background one or not) a worktree without being asked;
   * a fork of a thread in a worktree gets one of its own (unless "never"): forks never disturb each other's files.
   */
  private wantsWorktree(sourceId: ThreadId, background: boolean): boolean {
    const option = this.host.forkWorktree;
    return option === "always" || (option === "background" && (background || this.host.folders.inWorktree(sourceId)));
  }

  /**
   * Why a fork of `sourceId` cannot be unattended here, with the fix; null: it can. A source whose
   * program runs its own tools (Claude Code) cannot have one: no sandbox of tine's confines them.
   */
  async unattendedRefusal(sourceId: ThreadId): Promise<string | null> {
    const { chat } = this.host;
    const spec = chat.threads.get(sourceId)?.runner.spec ?? this.host.storedSource(sourceId).runner;
    if (!chat.runners.traits(spec).toolsThroughTine)
      return `tine: ${chat.titleOf(sourceId) ?? threadName(chat, sourceId)} runs its own program's tools, which no sandbox of tine's confines: it cannot have an unattended fork`;
    return this.host.folders.unattendedRefusal();
  }

  /**
   * Whether the fork is unattended: asked for (refused, with why and the fix, where it cannot be:
   * no sandbox, no worktree, a source whose program runs its own tools), or given by
   * `fork_unattended` where it can be (else made attended, and the user told once).
   */
  private async unattended(sourceId: ThreadId, ask: ForkAsk, background: boolean): Promise<boolean> {
    const option = this.host.forkUnattended;
    const asked = ask.unattended;
    // Asked for in the source's folder (worktree = false): the option does not make it unattended; asking for both is a contradiction.
    if (
      asked === false ||
      (asked === undefined && (ask.worktree === false || !(option === "always" || (option === "background" && background))))
    )
      return false;
    if (ask.worktree === false) throw new Error("tine: an unattended fork works in a worktree of its own: it cannot have worktree = false");
    const refusal = await this.unattendedRefusal(sourceId);
    if (!refusal) return true;
    if (asked) throw new Error(refusal);
    if (!this.attendedSaid)
      this.host.tell(
        `${refusal}. Until it can, the forks fork_unattended names are made as ordinary forks (their tools ask for approval)`,
        false,
      );
    this.attendedSaid = true;
    return false;
  }

  private async restoreFiles(sourceId: ThreadId, at: number, overwrite: boolean): Promise<void> {
    const { written, left, skipped } = await this.host.code.restore(sourceId, at, overwrite);
    const kept = left.length ? `; left alone (changed since, not overwritten): ${left.join(", ")}` : "";
    const out = skipped.length ? `; skipped (a link out of the project, and what is under it): ${skipped.join(", ")}` : "";
    this.host.tell(`tine: the fork's files: restored ${written.length} to that message${kept}${out}`, false);
  }

  /**
   * A fork whose worktree is made when it is due is due: made from its source's files now (as the
   * source's turn left them), then taken at the source's last message now (where those files are).
   */
  private worktreeWhenDue(fork: ForkClone, unattended: boolean): void {
    const length = this.host.chat.threads.get(fork.sourceId)?.runner.history.length ?? fork.storedSource?.history.length ?? 0;
    const due = { ...fork, atMessage: fork.atMessage ?? length - 1 };
    this.start({ when: "worktree-made", fork: due, base: null, next: "now", unattended }).catch((e: Error) =>
      this.notMade(fork, `tine: the fork that waited for its source was not made: ${e.message}`),
    );
  }

  /** A fork on its way failed: the user is told why, and its number is given to the next thread. */
  private notMade(fork: ForkClone, text: string): void {
    this.host.chat.unmint({ id: fork.newId, num: fork.num });
    this.host.tell(text, true);
  }

  private wait(request: WaitingFork): void {
    this.waits.set(request.fork.sourceId, request);
    this.host.dispatch({ type: "chat-msg", msg: { type: "fork-waiting", sourceId: request.fork.sourceId, change: "waits" } });
  }

  private unwait(sourceId: ThreadId): void {
    this.waits.delete(sourceId);
    this.host.dispatch({ type: "chat-msg", msg: { type: "fork-waiting", sourceId, change: "over" } });
  }

  /** A stored source runs by its header: the fork is told what of it is not replayed. */
  private ready(fork: ForkClone): ForkClone {
    const { chat } = this.host;
    if (fork.storedSource)
      this.host.storedRunnerUsed(fork.sourceId, chat.titleOf(fork.sourceId) ?? threadName(chat, fork.sourceId), fork.storedSource.runner);
    return fork;
  }

  /** The chat clones the source now. */
  private take(fork: ForkClone): void {
    this.host.dispatch({ type: "chat-msg", msg: { type: "fork-thread", ...this.ready(fork) } });
  }
}
