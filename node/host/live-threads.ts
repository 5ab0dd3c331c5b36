/**
 * Which threads are live, and making them so: a stored thread is read from disk before anything
 * touches it (`load`), one open read-only here is taken over once its writer is gone (before
 * anything would write it), a new one is made and waits for its buffers; `live` names a thread
 * that must be opened first. A thread's code snapshots are read here too, live or stored (a
 * stored one is read, not loaded).
 */
import type { Chat } from "../chat/chat.ts";
import type { NewThread } from "../chat/mint.ts";
import type { ChatMsg, Dispatch } from "../chat/msgs.ts";
import { threadName } from "../chat/names.ts";
import type { Thread } from "../chat/thread.ts";
import type { Opened } from "../claude-code/threads.ts";
import type { ThreadId } from "../core/ids.ts";
import type { RunnerSpec } from "../core/runner-spec.ts";
import type { NvimBridge } from "../nvim/bridge.ts";
import type { Persistence } from "../store/persistence.ts";
import { failedTurn } from "../store/replay.ts";
import type { Buffers } from "../view/buffers.ts";
import type { OpenFromEnd } from "../view/open-from-end.ts";
import type { ThreadCode } from "../worktree/code-actions.ts";
import { StoredNotices } from "../worktree/stored-folder.ts";
import type { Workspaces } from "../worktree/workspaces.ts";

/** The fields of a `new-thread` message the caller chooses (its id and number are minted here unless `minted` before: Chat.mint). */
export type NewThreadFields = Omit<Extract<ChatMsg, { type: "new-thread" }>, "type" | "newId" | "num"> & { minted?: NewThread };

export class LiveThreads {
  /** Says what of a stored header a thread does not use: its runner's arguments or folder, its worktree (worktree/stored-folder.ts). */
  private readonly storedNotices = new StoredNotices((text) => this.nvim.notifyError(text));

  constructor(
    private readonly chat: Chat,
    /** Null with `persist = false`: nothing is stored, so nothing is loaded. */
    private readonly persistence: Persistence | null,
    private readonly workspaces: Workspaces,
    private readonly opening: OpenFromEnd,
    private readonly buffers: Buffers,
    private readonly nvim: NvimBridge,
    private readonly dispatch: Dispatch,
  ) {}

  /**
   * Thread `id` (titled `title`) runs by `spec` from its stored header (opened, or forked without
   * being opened): the user is told, once, what of it is not used.
   */
  storedRunnerUsed(id: ThreadId, title: string, spec: RunnerSpec): void {
    this.storedNotices.runnerNotices(id, this.chat.runners.storedNotices(spec, title));
  }

  /** Stored thread `id` works in the project's folder: the worktree `path` its transcript names was refused (`why`). */
  storedWorktreeRefused(id: ThreadId, path: string, why: string): void {
    this.storedNotices.worktreeRefused(id, this.chat.titleOf(id) ?? threadName(this.chat, id), path, why);
  }

  /** A live thread (an error names a stored one, which must be opened first). */
  live(id: ThreadId): Thread {
    this.opening.finish(id);
    const t = this.chat.threads.get(id);
    if (!t) throw new Error(`tine: ${threadName(this.chat, id)} is not open${this.chat.stored.has(id) ? ": open it first" : ""}`);
    return t;
  }

  /** Reads a stored thread (or one open read-only here, to take it over) and makes it live. */
  load(id: ThreadId): void {
    if (!this.chat.has(id) || !this.persistence) throw new Error(`tine: ${threadName(this.chat, id)} cannot be opened`);
    const { loaded, readOnlyBy } = this.persistence.open(id);
    if (loaded.problems.length) {
      const lines = loaded.problems.map((p) => `line ${p.line}: ${p.error}`).join("; ");
      this.nvim.notifyError(`tine: ${loaded.raw.title}: some of its transcript could not be read and was skipped (${lines})`);
    }
    this.storedRunnerUsed(id, loaded.raw.title, loaded.runner);
    const { title, reports, grafts, queue, code, labels, side } = loaded.raw;
    const { history, runner } = loaded;
    // Before the thread is made: its tools work in its worktree from the start.
    this.workspaces.adopt(id, loaded.header.worktree);
    this.dispatch({
      type: "chat-msg",
      msg: {
        type: "load-thread",
        id,
        title,
        history,
        runner,
        readOnlyBy,
        reports,
        grafts,
        queue,
        code,
        labels,
        side,
        ...failedTurn(loaded),
      },
    });
  }

  /**
   * A thread open read-only here whose writer is gone (that Neovim quit or died) is taken over
   * before anything would write it: read again from disk, and writable here.
   */
  takeOverIfFree(id: ThreadId): void {
    if (this.chat.threads.get(id)?.readOnlyBy == null || this.persistence?.store.lockedBy(id) !== null) return;
    this.load(id);
  }

  /** Makes a thread of any kind and waits for its buffers. */
  async create(fields: NewThreadFields): Promise<Opened> {
    const { minted, ...rest } = fields;
    const { id: newId, num } = minted ?? this.chat.mint();
    this.dispatch({ type: "chat-msg", msg: { type: "new-thread", newId, num, ...rest } });
    const m = await this.buffers.of(newId);
    return { id: newId, display: m.display, input: m.input };
  }

  /** A new thread of tine's own agent, once its buffers are made. */
  newThread(): Promise<Opened> {
    return this.create({ runner: { kind: "api" } });
  }

  /** A thread's terminal program ended (a Claude Code session). */
  terminalExited(id: ThreadId): void {
    const surface = this.chat.threads.get(id)?.runner.surface;
    if (surface?.type === "terminal") surface.exited();
  }

  /** The code snapshots of a live or stored thread's messages (a stored one is read, not loaded). */
  codeOf(id: ThreadId): ThreadCode {
    const title = this.chat.titleOf(id) ?? threadName(this.chat, id);
    const live = this.chat.threads.get(id);
    if (live) return { title, code: live.code, history: live.runner.history };
    if (!this.persistence || !this.chat.stored.has(id)) throw new Error(`tine: ${title} is not a thread of this project`);
    return { title, ...this.persistence.storedCode(id) };
  }
}
