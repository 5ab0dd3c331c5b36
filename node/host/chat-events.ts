/**
 * What the host does when the chat creates, deletes or ends a thread, and what the chat asks of the
 * fork flow, the store and the code side (`ChatEvents`): the chat's side of where the services meet,
 * kept apart from the building of the services (services.ts). Each part is read when the event
 * comes, not when this is built: the chat is built before most of the services it tells.
 */
import type { Chat, ChatEvents } from "../chat/chat.ts";
import type { Compaction } from "../compact/compaction.ts";
import type { FanOuts } from "../fork/fanout.ts";
import type { ForkFlow } from "../fork/flow.ts";
import type { NvimBridge } from "../nvim/bridge.ts";
import type { Reviews } from "../review/reviews.ts";
import type { Persistence } from "../store/persistence.ts";
import type { UsageBook } from "../usage/book.ts";
import type { Buffers } from "../view/buffers.ts";
import type { ForkCode } from "../worktree/fork-code.ts";
import type { LiveThreads } from "./live-threads.ts";

/** The services the chat's events reach (Services; each read when an event comes). */
export type ChatEventParts = {
  readonly chat: Chat;
  readonly persistence: Persistence | null;
  readonly buffers: Buffers;
  readonly forks: ForkFlow;
  readonly fanouts: FanOuts;
  readonly usage: UsageBook;
  readonly compaction: Compaction;
  readonly threads: LiveThreads;
  readonly forkCode: ForkCode;
  readonly reviews: Pick<Reviews, "forked">;
  readonly nvim: NvimBridge;
};

/** `tell`: something the user is told (an error: a request of theirs did not happen). */
export function chatEvents(parts: ChatEventParts, tell: (text: string, error: boolean) => void): ChatEvents {
  return {
    threadCreated: (thread, how) => {
      parts.persistence?.created(thread, parts.chat, how);
      // A fork's review of the turns it shares starts as its source's (kept, undone stay so).
      if (how.under) parts.reviews.forked(how.under, thread.id, { title: thread.title, code: thread.code, history: thread.runner.history });
      // A background fork (or a promote's branch) gets its buffers when it is opened.
      if (!how.background) parts.buffers.mount(thread, how);
    },
    threadDeleted: (id) => {
      parts.forks.forget(id);
      parts.fanouts.forget(id);
      parts.buffers.unmount(id);
      parts.usage.forget(id);
      parts.compaction.forget(id);
    },
    forkEnded: (fork, how, into) => {
      const { chat } = parts;
      parts.forks.forget(fork.id);
      parts.fanouts.forget(fork.id);
      parts.persistence?.ended(chat, fork, how, into);
      // The parent takes the fork's windows: one stored is loaded to show the report.
      const parentId = into ?? chat.lineage.get(fork.id)?.parentId;
      if (parentId && parts.buffers.get(fork.id) && chat.isStored(parentId)) parts.threads.load(parentId);
      parts.buffers.handOver(fork.id, parentId);
      const verb = {
        discarded: "was discarded (`:Tine threads!` brings it back)",
        reported: "reported back",
        promoted: "was promoted",
      }[how];
      // A conversation tine does not hold stays where it is: only the code of such a fork comes back.
      const kept = how === "promoted" && fork.runner.traits.ownConversation;
      const codeOnly = kept && parentId ? ` into ${chat.titleOf(parentId)} by its code: its conversation stays in ${kept}` : "";
      parts.nvim.notifyInfo(`tine: ${fork.title} ${verb}${into ? ` into ${chat.titleOf(into)}` : codeOnly}`);
      if (parentId) parts.forkCode.ended({ id: fork.id, title: fork.title, parentId, parentTitle: chat.titleOf(parentId) ?? "" }, how);
    },
    reportToStored: (parentId, report) => parts.persistence?.reportToStored(parentId, report),
    sumUpCode: (id) => parts.forkCode.sumUp(id),
    mergeCode: (id, promote) => {
      const parentId = parts.chat.lineage.get(id)!.parentId;
      const [title, parentTitle] = [parts.chat.titleOf(id) ?? "", parts.chat.titleOf(parentId) ?? ""];
      parts.forkCode.mergeFirst({ id, title, parentId, parentTitle }, promote);
    },
    agentFork: (sourceId, ask) => parts.forks.agentFork(sourceId, ask),
    forkDueAtRest: (sourceId) => parts.forks.dueAtRest(sourceId),
    branch: (sourceId) => parts.forks.branch(sourceId),
    branched: (parentId, siblingId, atMessage) => parts.persistence?.branched(parentId, siblingId, atMessage),
    claimNum: (atLeast) => parts.persistence?.store.claimNum(atLeast) ?? atLeast,
    releaseNum: (num) => parts.persistence?.store.releaseNum(num),
    tell,
  };
}
