/**
 * What the Lua side asks of the tree without changing it: the threads as `require('tine').threads()`
 * returns them, the most recent first, the forks at a display line, a fork's lineage. Read-only
 * views of the chat and the buffers; the host's RPC methods answer with these.
 */
import type { Chat } from "../chat/chat.ts";
import { threadName } from "../chat/names.ts";
import { resolveConflictsPrompt } from "../chat/prompts.ts";
import { modelNameOf, showsUsage } from "../chat/runner.ts";
import { writtenMention } from "../context/mentions.ts";
import type { ThreadId } from "../core/ids.ts";
import type { RunnerSpec } from "../core/runner-spec.ts";
import type { Lineage, ThreadInfo } from "../nvim/lua-shapes.ts";
import type { UsageBook } from "../usage/book.ts";
import type { Buffers } from "./buffers.ts";
import { changedFiles } from "./code-view.ts";

export class ThreadQueries {
  constructor(
    private readonly chat: Chat,
    private readonly buffers: Buffers,
    /** Last change of a live thread, when the store knows it. */
    private readonly updated: (id: ThreadId) => number | undefined,
    private readonly usage: UsageBook,
    /** Where a live thread's tools work: their folder, and whether they run in the sandbox (an unattended fork's). */
    private readonly placeOf: (id: ThreadId) => { readonly root: string; readonly unattended: boolean },
    /** The messages of a thread run by `spec` that its program keeps (Claude Code's session); null: tine's history is the conversation. */
    private readonly ownMessages: (spec: RunnerSpec) => number | null,
  ) {}

  /** Every thread of this project, live and stored, oldest first. */
  threads(): ThreadInfo[] {
    return this.order().map((id) => this.info(id)!);
  }

  /** Every thread's id, live and stored, oldest first (what threads() lists, in its order). */
  order(): ThreadId[] {
    const created = (id: ThreadId) => this.chat.threads.get(id)?.created ?? this.chat.stored.get(id)?.created ?? 0;
    return [...this.chat.threads.keys(), ...this.chat.stored.keys()].sort((a, b) => created(a) - created(b));
  }

  /** The live threads' ids. */
  live(): Iterable<ThreadId> {
    return this.chat.threads.keys();
  }

  /** Its parent in the chat's tree (a tree: chat/tree.ts refuses a loop, which a stored pointer may make). */
  parentOf(id: ThreadId): ThreadId | undefined {
    return this.chat.lineage.get(id)?.parentId;
  }

  /**
   * What the key on a waiting merge's line sends for the user (the conflicted files mentioned, so
   * they go with it), or null when display line `line` (0-based) is not one.
   */
  resolveMergeAt(id: ThreadId, line: number): string | null {
    const merge = this.buffers.mergeAt(id, line);
    if (!merge) return null;
    // A file whose name a mention cannot hold is named plainly (the agent reads it itself).
    return resolveConflictsPrompt(
      merge.fork,
      merge.files.map((f) => writtenMention("file", f) ?? f),
    );
  }

  /** Thread `id`'s entry in threads(); null when there is no such thread. */
  info(id: ThreadId): ThreadInfo | null {
    const t = this.chat.threads.get(id);
    if (t) {
      const s = t.runner.status;
      const m = this.buffers.get(t.id);
      return {
        id: t.id,
        num: t.num,
        parent_id: this.parentOf(t.id) ?? null,
        title: t.title,
        status: t.status,
        stop_reason: s.type === "stopped" ? s.stopReason : null,
        messages: t.runner.history.length,
        updated: this.updated(t.id) ?? null,
        bufnr: m?.display ?? null,
        input_bufnr: m?.input ?? null,
        changed_files: changedFiles(t),
        usage: showsUsage(t.runner) ? this.usage.info(t) : null,
        model: modelNameOf(t.runner),
        cwd: this.placeOf(t.id).root,
        unattended: this.placeOf(t.id).unattended,
        fanout: this.buffers.listExtras.fanOutMark(t.id),
      };
    }
    const stored = this.chat.stored.get(id);
    if (!stored) return null;
    return {
      id: stored.id,
      num: stored.num,
      parent_id: this.parentOf(stored.id) ?? null,
      title: stored.title,
      status: stored.interrupted ? "interrupted" : "stored",
      stop_reason: null,
      messages: stored.messages,
      updated: stored.updated,
      bufnr: null,
      input_bufnr: null,
      changed_files: [],
      // Its usage is tine's to show when its requests are tine's.
      usage: this.usage.storedInfo(stored.id, this.ownMessages(stored.runner) === null),
      model: null,
      cwd: null,
      unattended: stored.worktree?.unattended === true,
      fanout: null,
    };
  }

  /**
   * Threads for `:Tine resume`: most recent first, each with its messages counted as the list
   * counts them (a Claude Code thread's are its session's); one without a message has nothing to
   * resume, unless its program keeps its conversation (a Claude Code session may hold some).
   */
  recent(): ThreadInfo[] {
    const spec = (id: ThreadId) => (this.chat.threads.get(id)?.runner.spec ?? this.chat.stored.get(id)?.runner)!;
    return this.threads()
      .filter((t) => t.messages > 0 || this.chat.runners.traits(spec(t.id)).ownConversation !== null)
      .map((t) => ({ ...t, messages: this.ownMessages(spec(t.id)) ?? t.messages }))
      .sort((a, b) => (b.updated ?? 0) - (a.updated ?? 0));
  }

  /** A thread by id, or by its display number (`:Tine diff 1 3`). */
  resolve(ref: string): ThreadId {
    const byNum = /^\d+$/.test(ref) ? this.threads().find((t) => t.num === Number(ref)) : undefined;
    const id = byNum?.id ?? ref;
    if (!this.chat.has(id)) throw new Error(`tine: no thread ${ref}`);
    return id;
  }

  /** Forks taken at the message on a display line, in fork order. */
  forksAt(id: ThreadId, line: number): { id: ThreadId; title: string }[] {
    const at = this.buffers.locate(id, line);
    if (!at) return [];
    return this.chat
      .childrenOf(id)
      .filter((child) => this.chat.lineage.get(child)!.atMessage === at.message)
      .map((child) => ({ id: child, title: this.chat.titleOf(child) ?? threadName(this.chat, child) }));
  }

  /** Where a fork branched, and whether its parent is still there to go to (`gp`). */
  lineageOf(id: ThreadId): Lineage | null {
    const l = this.chat.lineage.get(id);
    return l ? { parent_id: l.parentId, at_message: l.atMessage, parent_gone: !this.chat.has(l.parentId), relation: l.relation } : null;
  }

  /** The label on a thread (`message` null) or on one of its messages, "" for none. */
  labelAt(id: ThreadId, message: number | null): string {
    const live = this.chat.threads.get(id);
    if (!live) return this.chat.stored.get(id)?.label ?? "";
    return (message === null ? live.labels.thread : live.labels.messages.get(message)) ?? "";
  }
}
