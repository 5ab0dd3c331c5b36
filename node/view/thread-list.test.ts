/**
 * The thread list's tree: siblings in the order of their numbers, as they were made, also when
 * the store lists them otherwise (after a restart its folder's order is the file system's).
 */
import { describe, expect, it } from "vitest";
import { NO_LIST_EXTRAS } from "../../test/helpers/list-extras.ts";
import { testChat } from "../../test/helpers/test-chat.ts";
import type { StoredThread } from "../chat/msgs.ts";
import { ThreadList } from "./thread-list.ts";

const extras = NO_LIST_EXTRAS;

function stored(num: number, title: string, parentId: string | null, more: Partial<StoredThread> = {}): StoredThread {
  return {
    id: `t${num}`,
    num,
    title,
    parentId,
    atMessage: 1,
    relation: "fork",
    created: 1000 + num,
    updated: 1000 + num,
    messages: 2,
    problems: 0,
    runner: { kind: "api" },
    busyBy: null,
    label: null,
    interrupted: false,
    queued: 0,
    worktree: null,
    ...more,
  };
}

describe("the thread list", () => {
  it("shows a thread's stored forks in the order of their numbers, whatever order the store gave them in", () => {
    const { chat, dispatch } = testChat();
    const threads = [stored(24, "fork b", "t1"), stored(1, "source", null), stored(25, "fork c", "t1"), stored(23, "fork a", "t1")];
    dispatch({ type: "chat-msg", msg: { type: "stored-found", threads } });
    const lines = new ThreadList().render(chat, { type: "project" }, extras);
    const order = lines.map((l) => /#(\d+)/.exec(l)?.[1]).filter((n) => n !== undefined);
    expect(order).toEqual(["1", "23", "24", "25"]);
  });

  it("shows how many messages a stored thread holds unsent (they come back held when it is opened), not another Neovim's", () => {
    const { chat, dispatch } = testChat();
    const threads = [
      stored(1, "source", null),
      stored(2, "waits", "t1", { queued: 2 }),
      stored(3, "elsewhere", "t1", { queued: 1, busyBy: 4242 }),
    ];
    dispatch({ type: "chat-msg", msg: { type: "stored-found", threads } });
    const lines = new ThreadList().render(chat, { type: "project" }, extras);
    expect(lines.find((l) => l.includes("waits"))).toMatch(/ · 2 held · 2 msgs/);
    expect(lines.find((l) => l.includes("source"))).not.toMatch(/held/);
    // Open for writing in another Neovim: its queue is that one's, not held here.
    expect(lines.find((l) => l.includes("elsewhere"))).toMatch(/busy \(pid 4242\)/);
    expect(lines.find((l) => l.includes("elsewhere"))).not.toMatch(/held/);
  });
});
