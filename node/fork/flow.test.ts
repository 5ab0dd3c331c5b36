/**
 * The fork flow on the chat alone (test/helpers/test-chat.ts: agents without an API client, every
 * thread in `/`): what a fork that waited for its source holds once it is made.
 */
import { describe, expect, it } from "vitest";
import { testConfig } from "../../test/helpers/agent-harness.ts";
import { settled, testChat } from "../../test/helpers/test-chat.ts";
import { SUMMARY_PROMPT } from "../chat/prompts.ts";
import { History } from "../core/history.ts";
import { assistantMessage, entry, userMessage } from "../core/native.ts";
import { AnthropicAgent } from "../providers/anthropic-agent.ts";

const usage = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };

describe("a --wait fork", () => {
  it("of a fork asked for its summary while it works holds the fork's turn as it came to rest, not the summary prompt sent after", async () => {
    const { chat, dispatch, forks } = testChat({ needsApproval: true });
    const history = History.of([
      entry(userMessage([{ type: "text", text: "q1" }])),
      entry(assistantMessage([{ type: "text", text: "a1" }]), { stopReason: "end_turn", usage }),
    ]);
    dispatch({ type: "chat-msg", msg: { type: "new-thread", newId: "root", num: 1, runner: { kind: "api", history } } });
    dispatch({
      type: "chat-msg",
      msg: { type: "fork-thread", sourceId: "root", newId: "f", num: 2, prompt: "", opener: { by: "user", background: false } },
    });
    // The fork's agent asks to read a file, and waits for the user's approval: it is not at rest.
    const f = chat.threads.get("f")!;
    const use = { type: "tool_use" as const, id: "c1", name: "get_file", input: { path: "nowhere.txt" } };
    f.runner = new AnthropicAgent(
      testConfig,
      { client: null, streamRetries: 0, retryDelayMs: 0 },
      chat.agentDispatch("f"),
      f.runner.history.push(entry(assistantMessage([use]), { stopReason: "tool_use", usage })),
    );
    dispatch({
      type: "thread-msg",
      id: "f",
      msg: { type: "agent", msg: { type: "status-changed", status: { type: "stopped", stopReason: "tool_use" } } },
    });
    expect(chat.threads.get("f")!.atRest).toBe(false);
    // Asked for its summary (once at rest), and forked with --wait.
    dispatch({ type: "chat-msg", msg: { type: "fork-report", id: "f" } });
    const id = (await forks.fork("f", "look again", { wait: true }))!;
    expect(forks.waiting("f")?.fork.newId).toBe(id);
    expect(chat.threads.has(id)).toBe(false);

    dispatch({ type: "thread-msg", id: "f", msg: { type: "tool-decision", toolUseId: "c1", approved: true } });
    await settled(() => chat.threads.has(id));
    const said = (threadId: string) => JSON.stringify(chat.threads.get(threadId)!.runner.history.messages());
    expect(forks.waiting("f")).toBe(undefined);
    expect(said(id)).toContain("c1");
    expect(said(id)).toContain("look again");
    expect(said(id)).not.toContain(SUMMARY_PROMPT.slice(0, 40));
    expect(said("f")).toContain(SUMMARY_PROMPT.slice(0, 40));
  });
});

describe("an unattended fork", () => {
  const root = History.of([
    entry(userMessage([{ type: "text", text: "q1" }])),
    entry(assistantMessage([{ type: "text", text: "a1" }]), { stopReason: "end_turn", usage }),
  ]);

  it("asked for where it cannot be is refused with why, and nothing is made", async () => {
    const { chat, dispatch, forks } = testChat();
    dispatch({ type: "chat-msg", msg: { type: "new-thread", newId: "root", num: 1, runner: { kind: "api", history: root } } });
    await expect(forks.fork("root", "try", { unattended: true, background: true })).rejects.toThrow(/no worktrees in a test chat/);
    await expect(forks.fork("root", "try", { unattended: true, worktree: false })).rejects.toThrow(/worktree of its own/);
    expect([...chat.threads.keys()]).toEqual(["root"]);
  });

  it("that fork_unattended gives where it cannot be is made attended, and the user is told once", async () => {
    const told: string[] = [];
    const { chat, dispatch, forks } = testChat({ forkUnattended: "background", events: { tell: (text) => told.push(text) } });
    dispatch({ type: "chat-msg", msg: { type: "new-thread", newId: "root", num: 1, runner: { kind: "api", history: root } } });
    const a = await forks.fork("root", "one", { background: true });
    const b = await forks.fork("root", "two", { background: true });
    // A fork in a window is not one the option names, nor one asked for in its source's folder.
    const c = await forks.fork("root", "three");
    const d = await forks.fork("root", "four", { background: true, worktree: false });
    expect([a, b, c, d].every((id) => id !== null && chat.threads.has(id))).toBe(true);
    expect(told.filter((t) => /no worktrees in a test chat/.test(t))).toEqual([
      "no worktrees in a test chat. Until it can, the forks fork_unattended names are made as ordinary forks (their tools ask for approval)",
    ]);
  });
});

describe("e on a message sent with tool results", () => {
  it("forks before its text, holding the results unsent: the edited text goes with them in one message", async () => {
    const { chat, dispatch, forks } = testChat();
    const use = { type: "tool_use" as const, id: "c1", name: "get_file", input: { path: "a.txt" } };
    const result = { type: "tool_result" as const, tool_use_id: "c1", content: "denied" };
    const history = History.of([
      entry(userMessage([{ type: "text", text: "q1" }])),
      entry(assistantMessage([use]), { stopReason: "tool_use", usage }),
      // A message queued (or written as the call was denied) goes with the results.
      entry(userMessage([result, { type: "text", text: "use b.txt instead" }])),
      entry(assistantMessage([{ type: "text", text: "a2" }]), { stopReason: "end_turn", usage }),
    ]);
    dispatch({ type: "chat-msg", msg: { type: "new-thread", newId: "root", num: 1, runner: { kind: "api", history } } });
    const id = (await forks.editMessage("root", 2))!;
    const fork = chat.threads.get(id)!;
    // Nothing was asked of the API (without a client, a request fails at once).
    expect(fork.runner.status).toEqual({ type: "stopped", stopReason: "end_turn" });
    expect(fork.runner.history.last()!.message.content).toEqual([result]);

    dispatch({ type: "thread-msg", id, msg: { type: "send", text: "use c.txt instead" } });
    const messages = fork.runner.history.messages();
    expect(messages.length).toBe(3);
    expect(messages[2]!.content).toEqual([result, { type: "text", text: "use c.txt instead" }]);
  });
});

describe("thread numbers", () => {
  const root = () =>
    History.of([
      entry(userMessage([{ type: "text", text: "q1" }])),
      entry(assistantMessage([{ type: "text", text: "a1" }]), { stopReason: "end_turn", usage }),
    ]);
  const nums = (chat: ReturnType<typeof testChat>["chat"]) => [...chat.threads.values()].map((t) => t.num).sort((a, b) => a - b);

  it("of a fork refused (its worktree or files cannot be made) or cancelled are given to the next thread", async () => {
    const { chat, dispatch, forks } = testChat();
    dispatch({ type: "chat-msg", msg: { type: "new-thread", newId: "root", num: 1, runner: { kind: "api", history: root() } } });
    await expect(forks.fork("root", "try", { worktree: true })).rejects.toThrow(/no worktrees/);
    await expect(forks.fork("root", "", { at_message: 1, restore_code: true, worktree: true })).rejects.toThrow(/no worktrees/);
    // A --wait fork of a thread at work waits; asking again cancels it.
    const f = (await forks.fork("root", "two"))!;
    const busy = chat.threads.get(f)!;
    busy.runner = new AnthropicAgent(
      testConfig,
      { client: null, streamRetries: 0, retryDelayMs: 0 },
      chat.agentDispatch(f),
      busy.runner.history.push(
        entry(assistantMessage([{ type: "tool_use", id: "c1", name: "get_file", input: { path: "x" } }]), {
          stopReason: "tool_use",
          usage,
        }),
      ),
    );
    dispatch({
      type: "thread-msg",
      id: f,
      msg: { type: "agent", msg: { type: "status-changed", status: { type: "stopped", stopReason: "tool_use" } } },
    });
    expect(chat.threads.get(f)!.atRest).toBe(false);
    await forks.fork(f, "later", { wait: true });
    expect(await forks.fork(f, "again")).toBe(null);
    await forks.fork("root", "three");
    expect(nums(chat)).toEqual([1, 2, 3]);
  });

  it("of a promote's sibling are given again when the parent had no messages after the fork", async () => {
    const { chat, dispatch, forks } = testChat();
    dispatch({ type: "chat-msg", msg: { type: "new-thread", newId: "root", num: 1, runner: { kind: "api", history: root() } } });
    const f = (await forks.fork("root", ""))!;
    const sibling = chat.mint();
    dispatch({ type: "chat-msg", msg: { type: "fork-promote", id: f, siblingId: sibling.id, siblingNum: sibling.num } });
    expect(chat.threads.has(f)).toBe(false);
    await forks.fork("root", "next");
    expect(nums(chat)).toEqual([1, 3]);
  });
});

describe("a fork's first title", () => {
  it("is its prompt as the user reads it: a file's mention as its path, other mentions left out (a fan-out's too)", async () => {
    const { chat, dispatch, forks } = testChat();
    const history = History.of([entry(userMessage([{ type: "text", text: "q1" }]))]);
    dispatch({ type: "chat-msg", msg: { type: "new-thread", newId: "root", num: 1, runner: { kind: "api", history } } });
    const id = (await forks.fork("root", "@file:TODO.md add docs"))!;
    expect(chat.threads.get(id)!.title).toBe("TODO.md add docs");
    const opener = { by: "fan-out", group: "g", place: { index: 1, of: 2 } } as const;
    dispatch({
      type: "chat-msg",
      msg: { type: "fork-thread", sourceId: "root", newId: "f", num: 9, prompt: "@buf @file:main.py add a docstring", opener },
    });
    expect(chat.threads.get("f")!.title).toBe("main.py add a docstring (1/2)");
  });
});
