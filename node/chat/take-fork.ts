/**
 * How a fork is taken, inside the chat's dispatch loop: the source's runner is cloned (in
 * whatever state it is; a stored source without loading it) and never written to. The fork gets
 * the code snapshots and approvals its source had, its idle clock (forks.ts), and its first
 * message. When a fork is made and in which folder is the fork flow's (node/fork/); how forks end
 * lives in fork-exits.ts.
 */

import type { ThreadId } from "../core/ids.ts";
import type { Environment } from "../tools/environment.ts";
import { assertUnreachable } from "../util/assert-unreachable.ts";
import type { ChatTree } from "./chat-tree.ts";
import type { ForkClone, ForkOpener, StoredThread } from "./msgs.ts";
import { threadName } from "./names.ts";
import { drive } from "./runner.ts";
import { forkTitle } from "./titles.ts";

/** What taking a fork needs of the chat: its tree, the threads on disk, and where a thread works. */
export type ForkingChat = ChatTree & {
  readonly stored: ReadonlyMap<ThreadId, StoredThread>;
  environmentFor(id: ThreadId): Environment;
};

/** What a fork's opener makes of it: a background run, its idle time-out, who opened it, its input's text, its model, its title's end. */
function openedAs(opener: ForkOpener, defaultIdleMs: number) {
  switch (opener.by) {
    case "user":
      return {
        background: opener.background,
        idleTimeoutMs: defaultIdleMs,
        openedBy: "user" as const,
        prefill: opener.prefill,
        model: undefined,
        place: "",
      };
    case "agent":
      return {
        background: false,
        idleTimeoutMs: opener.idleTimeoutMs ?? defaultIdleMs,
        openedBy: "agent" as const,
        prefill: undefined,
        model: undefined,
        place: "",
      };
    case "fan-out":
      return {
        background: true,
        idleTimeoutMs: defaultIdleMs,
        openedBy: "fan-out" as const,
        prefill: undefined,
        model: opener.model,
        // Its siblings run the same prompt: its place tells them apart (in the list, a graft's note).
        place: ` (${opener.place.index}/${opener.place.of})`,
      };
    default:
      return assertUnreachable(opener);
  }
}

/** Forks now. */
export function takeFork(chat: ForkingChat, request: ForkClone): void {
  const live = chat.threads.get(request.sourceId);
  const stored = chat.stored.get(request.sourceId);
  // A stored source is cloned without loading it: a throwaway runner holds its history.
  const from = request.storedSource;
  const source = live?.runner ?? (stored && from && chat.runners.reopen(from.runner, from.history, () => {}));
  const sourceTitle = live?.title ?? stored?.title;
  if (!source || sourceTitle === undefined) throw new Error(`${threadName(chat, request.sourceId)} cannot be forked`);
  const sourceLength = source.history.length;
  // Linked first: the host's services for the new thread (where it works) follow its parent.
  chat.lineage.link(request.newId, {
    parentId: request.sourceId,
    atMessage: Math.max(0, Math.min(request.atMessage ?? sourceLength - 1, sourceLength - 1)),
    relation: "fork",
  });
  const runner = source.clone(chat.agentDispatch(request.newId), {
    knownResults: live?.forkResults(),
    atMessage: request.atMessage,
    root: chat.environmentFor(request.newId).root,
    ...(request.prepared !== undefined ? { prepared: request.prepared } : {}),
  });
  const { background, idleTimeoutMs, openedBy, prefill, model, place } = openedAs(request.opener, chat.clock.forkIdleTimeoutMs);
  const { title, by } = forkTitle(sourceTitle, request.prompt, request.num);
  // A fan-out fork keeps its prompt and place as its title: a model's title could name siblings alike.
  const thread = chat.makeThread(request.newId, request.num, title + place, runner, place ? "kept" : by);
  // The code snapshots of the messages it shares (a mark past the fork point no longer fits its history).
  thread.code = live?.code ?? from?.code ?? [];
  if (live) thread.approvalsFrom(live);
  // A fork on a model of its own (one of a fan-out's) makes its first request with it.
  if (model) drive(runner, "choose its model").chooseModel(model);
  if (runner.traits.forkLifecycle)
    chat.forks.update({
      type: "started",
      id: thread.id,
      parentId: request.sourceId,
      background,
      idleTimeoutMs,
      openedBy,
      now: chat.clock.now(),
    });
  // Taken at a message of the user's (`F` on it), it goes on from there: that message is answered
  // again at once, and a prompt is the turn after (queued meanwhile), never joined to it. Tool
  // results held for an edited message (`e`) wait for it instead: they go with its text, one request.
  const held = request.opener.by === "user" && request.opener.holdResults === true;
  if (request.atMessage !== undefined && !held && runner.history.last()?.message.role === "user") thread.update({ type: "answer" });
  // Sent before the thread is announced, so its buffers (and a terminal's first input) start with it.
  if (request.prompt) thread.update({ type: "send", text: request.prompt, ...(request.context ? { context: request.context } : {}) });
  // Not asked for at this moment by the user (made later than asked, or opened by the agent): it
  // opens beside its source without taking the cursor from wherever the user is.
  const later = request.waited === true || openedBy === "agent";
  chat.add(thread, { under: request.sourceId, prefill, background, ...(later ? { later } : {}) }, !background && !later);
}
