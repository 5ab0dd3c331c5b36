/**
 * An empty thread: one the user made and never used (no message sent, nothing queued, no fork,
 * no name or label of the user's). It is never stored, and it leaves the list once the user
 * leaves it (with nothing typed in its input: the Lua side checks that before it says so).
 */
import type { Chat } from "./chat.ts";
import type { Thread } from "./thread.ts";

/** `forkWaits`: a fork waits for it (node/fork/). */
export function isEmptyThread(chat: Chat, thread: Thread, forkWaits: boolean): boolean {
  return (
    thread.runner.history.length === 0 &&
    thread.runner.open === null &&
    thread.atRest &&
    thread.queue.items.length === 0 &&
    thread.reports.length === 0 &&
    thread.grafts.length === 0 &&
    thread.titledBy === "placeholder" &&
    !thread.labels.thread &&
    !thread.runner.traits.storedAtOnce &&
    !chat.lineage.get(thread.id) &&
    chat.childrenOf(thread.id).length === 0 &&
    !forkWaits
  );
}
