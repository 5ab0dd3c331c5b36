/**
 * What of the chat works right now, in words: the threads a quit or a `:Tine restart` would cut
 * (a reply streaming, a tool running, a background fork not done). Neovim asks before either
 * (lua/tine/quit.lua); the store marks the threads a quit did cut (`Persistence.interrupted`).
 * A foreground tool waiting for approval is not cut by itself, but messages the user queued to go
 * after it are (a quit brings them back held: they no longer go by themselves). A Claude Code
 * terminal (its status is `running`: Neovim asks for a running terminal itself) and a thread
 * another Neovim writes are not cut.
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
    const background = chat.forks.get(thread.id)?.background === true;
    // Held (after an abort, an error, a restart), they wait for the user already: a quit changes nothing.
    const queued = thread.queue.held === null ? thread.queue.length : 0;
    if (!streaming && !tool && !(background && !thread.atRest) && !queued) continue;
    const doing = streaming
      ? "streams"
      : tool
        ? "runs a tool"
        : background && !thread.atRest
          ? "works"
          : `has ${queued === 1 ? "a queued message" : `${queued} queued messages`} to send`;
    out.push({ id: thread.id, what: `${background ? "background fork " : ""}"${thread.title}" ${doing}` });
  }
  return out;
}
