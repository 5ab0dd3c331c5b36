/**
 * What of the chat works right now, in words: the threads a quit or a `:Tine restart` would cut
 * (a reply streaming, a tool running, a tool call waiting for the user's approval, a background
 * fork not done, messages queued to go after the turn). Neovim asks before either
 * (lua/tine/quit.lua); the store marks the threads a quit did cut (`Persistence.interrupted`).
 * A call waiting for approval does not survive a quit: it is read back as not run ("The session
 * ended before the tool ran"), so the user is asked first, as for a running tool. Queued messages
 * come back held (they no longer go by themselves). A Claude Code terminal (its status is
 * `running`: Neovim asks for a running terminal itself) and a thread another Neovim writes are
 * not cut.
 */

import type { ThreadId } from "../core/ids.ts";
import type { Chat } from "./chat.ts";

export type Working = { readonly id: ThreadId; readonly what: string };

export function workingNow(chat: Chat): Working[] {
  const out: Working[] = [];
  for (const thread of chat.threads.values()) {
    if (thread.readOnlyBy !== null) continue;
    const streaming = thread.status === "streaming";
    const tool = thread.toolRuns.some((r) => r.state === "running");
    const awaiting = thread.toolRuns.filter((r) => r.state === "awaiting-approval").map((r) => r.use.name);
    const background = chat.forks.get(thread.id)?.background === true;
    // Held (after an abort, an error, a restart), they wait for the user already: a quit changes nothing.
    const queued = thread.queue.held === null ? thread.queue.length : 0;
    const doing = [
      ...(streaming ? ["streams"] : tool ? ["runs a tool"] : background && !thread.atRest ? ["works"] : []),
      ...(awaiting.length ? [`waits for your approval of ${[...new Set(awaiting)].join(", ")} (a quit ends the call unrun)`] : []),
      ...(queued ? [`has ${queued === 1 ? "a queued message" : `${queued} queued messages`} to send`] : []),
    ];
    if (!doing.length) continue;
    out.push({ id: thread.id, what: `${background ? "background fork " : ""}"${thread.title}" ${doing.join(" and ")}` });
  }
  return out;
}
