/**
 * Promote, report, the agent's own forks and the idle clocks as operations on histories and the
 * tree, on the chat alone (agents without an API client: a send appends the user turn and stops
 * with an error, which is all these need), with a clock the test sets.
 */
import { describe, expect, it } from "vitest";
import { testConfig } from "../../test/helpers/agent-harness.ts";
import { settled, testChat } from "../../test/helpers/test-chat.ts";
import type { ClaudeCodeSession } from "../claude-code/session.ts";
import { History } from "../core/history.ts";
import type { ThreadId } from "../core/ids.ts";
import { assistantMessage, type Entry, entry, userMessage } from "../core/native.ts";
import { AnthropicAgent } from "../providers/anthropic-agent.ts";
import type { Chat } from "./chat.ts";
import type { ChatEvents } from "./events.ts";

const user = (t: string): Entry => entry(userMessage([{ type: "text", text: t }]));
const reply = (t: string): Entry =>
  entry(assistantMessage([{ type: "text", text: t }]), {
    stopReason: "end_turn",
    usage: { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
  });
const texts = (chat: Chat, id: ThreadId) =>
  chat.threads
    .get(id)!
    .runner.history.messages()
    .map((m) => m.content.map((b) => ("text" in b ? b.text : b.type)).join("|"));

const MIN = 60_000;

/** `apart`: the forks in a worktree of their own; `mergeCode`: the host's merge of their code before a promote. */
function setup({
  agentForkLimit = 3,
  needsApproval = false,
  apart = (_: ThreadId) => false,
  mergeCode,
}: {
  agentForkLimit?: number;
  needsApproval?: boolean;
  apart?: (id: ThreadId) => boolean;
  mergeCode?: ChatEvents["mergeCode"];
} = {}) {
  /** The chat's clock, in ms: tests move it. */
  const clock = { t: 0 };
  const ended: [ThreadId, string, ThreadId | undefined][] = [];
  const { chat, dispatch } = testChat({
    needsApproval,
    worksApart: apart,
    events: { forkEnded: (f, how, into) => void ended.push([f.id, how, into]), ...(mergeCode ? { mergeCode } : {}) },
    clock: { now: () => clock.t, forkIdleTimeoutMs: 10 * MIN },
    limits: { agentForkLimit },
  });
  let n = 0;
  const fork = (sourceId: ThreadId, atMessage?: number) => {
    const id = `t${++n}`;
    dispatch({
      type: "chat-msg",
      msg: { type: "fork-thread", sourceId, newId: id, num: n, prompt: "", atMessage, opener: { by: "user", background: false } },
    });
    return id;
  };
  dispatch({
    type: "chat-msg",
    msg: {
      type: "new-thread",
      newId: "root",
      num: 0,
      runner: { kind: "api", history: History.of([user("q1"), reply("a1"), user("q2"), reply("a2")]) },
    },
  });
  /** The agent of thread `id` ends a response with one call of `name`; resolves once the call is answered, with its result. */
  const agentCalls = async (id: ThreadId, name: string, input: unknown = {}) => {
    const thread = chat.threads.get(id)!;
    const use = { type: "tool_use" as const, id: `call${++n}`, name, input };
    thread.runner = new AnthropicAgent(
      testConfig,
      { client: null, streamRetries: 0, retryDelayMs: 0 },
      chat.agentDispatch(id),
      thread.runner.history.push(entry(assistantMessage([use]), { stopReason: "tool_use", usage: reply("").meta!.usage })),
    );
    dispatch({
      type: "thread-msg",
      id,
      msg: { type: "agent", msg: { type: "status-changed", status: { type: "stopped", stopReason: "tool_use" } } },
    });
    await settled(() => chat.threads.get(id)?.toolRuns.length === 0);
    const answer = chat.threads.get(id)?.runner.history.last()?.message.content[0];
    if (answer?.type !== "tool_result") throw new Error(`${name} was not answered`);
    return { text: answer.content as string, isError: answer.is_error === true };
  };
  return { chat, dispatch, fork, ended, clock, agentCalls };
}

describe("promote", () => {
  it("the parent takes the fork's history; the parent's old tail becomes a sibling fork at the fork point", () => {
    const { chat, dispatch, fork, ended } = setup();
    const f = fork("root", 1);
    chat.threads.get(f)!.runner = new AnthropicAgent(
      testConfig,
      { client: null, streamRetries: 0, retryDelayMs: 0 },
      () => {},
      chat.threads.get(f)!.runner.history.push(user("f3"), reply("f4")),
    );
    dispatch({ type: "chat-msg", msg: { type: "fork-promote", id: f, siblingId: "sib", siblingNum: 9 } });
    expect(texts(chat, "root")).toEqual(["q1", "a1", "f3", "f4"]);
    expect(texts(chat, "sib")).toEqual(["q1", "a1", "q2", "a2"]);
    expect(chat.lineage.get("sib")).toEqual({ parentId: "root", atMessage: 1, relation: "fork" });
    expect(chat.threads.has(f)).toBe(false);
    expect(ended).toEqual([[f, "promoted", "root"]]);
    // Shared, not copied.
    expect(chat.threads.get("root")!.runner.history.at(0)).toBe(chat.threads.get("sib")!.runner.history.at(0));
  });

  it("keeps the lineage of every descendant right: the fork's forks follow it, the parent's later forks follow the old tail", () => {
    const { chat, dispatch, fork } = setup();
    const early = fork("root", 0); // before the fork point: stays with the parent
    const f = fork("root", 1);
    const late = fork("root", 3); // after the fork point: belongs to the old tail
    const grandchild = fork(f, 1);
    dispatch({ type: "chat-msg", msg: { type: "fork-promote", id: f, siblingId: "sib", siblingNum: 9 } });
    expect(chat.lineage.get(early)!.parentId).toBe("root");
    expect(chat.lineage.get(late)).toEqual({ parentId: "sib", atMessage: 3, relation: "fork" });
    expect(chat.lineage.get(grandchild)).toEqual({ parentId: "root", atMessage: 1, relation: "fork" });
    expect(chat.childrenOf("root").sort()).toEqual([early, grandchild, "sib"].sort());
  });

  it("a fork in a worktree of its own (here promoted by its agent, save_context) moves nothing until the host has merged its code", async () => {
    const merged: (() => void)[] = [];
    const { chat, fork, ended, agentCalls } = setup({ apart: (id) => id === "t1", mergeCode: (_id, promote) => void merged.push(promote) });
    const f = fork("root", 1);
    expect((await agentCalls(f, "save_context")).isError).toBe(false);
    expect(merged).toHaveLength(1);
    // The merge under way (or failed: then nothing more happens), the fork and its parent are as they were.
    expect(chat.threads.has(f)).toBe(true);
    expect(texts(chat, "root")).toEqual(["q1", "a1", "q2", "a2"]);
    expect(ended).toEqual([]);
    const forkTexts = texts(chat, f);
    merged[0]!();
    expect(texts(chat, "root")).toEqual(forkTexts);
    expect(ended).toEqual([[f, "promoted", "root"]]);
    expect(chat.threads.has(f)).toBe(false);
  });

  it("is refused while the parent or the fork is mid-turn", () => {
    const { chat, fork } = setup();
    const f = fork("root");
    chat.threads.get("root")!.toolRuns = [{ use: { type: "tool_use", id: "x", name: "get_file", input: {} }, state: "awaiting-approval" }];
    expect(() => chat.update({ type: "chat-msg", msg: { type: "fork-promote", id: f, siblingId: "s", siblingNum: 1 } })).toThrow(
      /finish their turn/,
    );
    expect(chat.threads.has(f)).toBe(true);
  });
});

describe("a fork whose program keeps its conversation (a Claude Code session)", () => {
  /** A [claude] root and a fork of it; `apart`: whether the fork works in a worktree of its own. */
  const claudeFork = (apart: boolean) => {
    const ended: [ThreadId, string, ThreadId | undefined][] = [];
    const { chat, dispatch } = testChat({
      worksApart: (id) => apart && id === "f",
      events: { forkEnded: (f, how, into) => void ended.push([f.id, how, into]) },
    });
    dispatch({ type: "chat-msg", msg: { type: "new-thread", newId: "root", num: 1, runner: { kind: "claude-code", args: [] } } });
    for (const [sourceId, newId] of [
      ["root", "f"],
      ["f", "ff"],
    ] as const)
      dispatch({
        type: "chat-msg",
        msg: { type: "fork-thread", sourceId, newId, num: 2, prompt: "", opener: { by: "user", background: false } },
      });
    return { chat, dispatch, ended };
  };

  it("sharing its parent's folder, it is neither promoted, discarded nor reported by tine (it ends in its program)", () => {
    const { chat } = claudeFork(false);
    for (const how of ["promoted", "discarded", "reported"] as const)
      expect(chat.forkEndBlocker("f", how)).toMatch(/keeps its conversation in its own Claude Code session and shares its parent's files/);
  });

  it("in a worktree of its own, a promote ends it by its code only: the parent keeps its own session, the fork's forks stay under it; a report is refused", () => {
    const { chat, dispatch, ended } = claudeFork(true);
    const parentRunner = chat.threads.get("root")!.runner;
    expect(chat.forkEndBlocker("f", "reported")).toMatch(/cannot ask it for a report/);
    expect(chat.forkEndBlocker("f", "discarded")).toBeNull();
    dispatch({ type: "chat-msg", msg: { type: "fork-promote", id: "f", siblingId: "sib", siblingNum: 9 } });
    expect(chat.threads.has("f")).toBe(false);
    expect(ended).toEqual([["f", "promoted", undefined]]);
    expect(chat.threads.get("root")!.runner).toBe(parentRunner);
    expect(chat.has("sib")).toBe(false);
    expect(chat.lineage.get("ff")!.parentId).toBe("f");
  });

  it("tine drives none of its conversation: a fork's prompt waits for its terminal, a retry or a model is refused saying where to do it", () => {
    const { chat, dispatch } = testChat();
    dispatch({ type: "chat-msg", msg: { type: "new-thread", newId: "root", num: 1, runner: { kind: "claude-code", args: [] } } });
    dispatch({
      type: "chat-msg",
      msg: {
        type: "fork-thread",
        sourceId: "root",
        newId: "f",
        num: 2,
        prompt: "try the cache",
        opener: { by: "user", background: false },
      },
    });
    const fork = chat.threads.get("f")!.runner;
    expect(fork.conversation).toBeNull();
    expect(fork.surface.type === "terminal" && fork.surface.firstInput).toBe("try the cache");
    expect(() => dispatch({ type: "thread-msg", id: "f", msg: { type: "retry" } })).toThrow(
      "tine: this thread's conversation is its own Claude Code session: retry it there",
    );
    const choice = { model: "m", effort: "setup" } as const;
    expect(() => dispatch({ type: "thread-msg", id: "f", msg: { type: "choose-model", choice } })).toThrow(
      /Claude Code session: choose its model there/,
    );
  });

  it("is not promoted while its session, or its parent's, works on a turn (its files are half-written)", () => {
    const { chat, dispatch } = claudeFork(true);
    for (const id of ["f", "root"]) {
      const session = chat.threads.get(id)!.runner as ClaudeCodeSession;
      session.terminal = "running";
      session.activity = "busy";
      expect(() => dispatch({ type: "chat-msg", msg: { type: "fork-promote", id: "f", siblingId: "sib", siblingNum: 9 } })).toThrow(
        /finish their turn/,
      );
      session.activity = "idle";
    }
    expect(chat.threads.has("f")).toBe(true);
  });
});

describe("report", () => {
  it("with text: queued into the parent and carried, as a marked block, by its next user turn; the fork ends", () => {
    const { chat, dispatch, fork, ended } = setup();
    const f = fork("root");
    const title = chat.threads.get(f)!.title;
    dispatch({ type: "chat-msg", msg: { type: "fork-report", id: f, text: "The hash map is 3x faster." } });
    expect(ended).toEqual([[f, "reported", undefined]]);
    expect(chat.threads.get("root")!.reports).toEqual([{ from: title, text: "The hash map is 3x faster." }]);
    dispatch({ type: "thread-msg", id: "root", msg: { type: "send", text: "go on" } });
    const last = chat.threads.get("root")!.runner.history.last()!.message;
    expect(last.content).toEqual([
      { type: "text", text: `<fork-report from="${title}">\nThe hash map is 3x faster.\n</fork-report>` },
      { type: "text", text: "go on" },
    ]);
    expect(chat.threads.get("root")!.reports).toEqual([]);
  });

  it("reports queued while the parent is mid-turn wait for its next user turn; none is dropped", () => {
    const { chat, dispatch, fork } = setup();
    const a = fork("root");
    const b = fork("root");
    chat.threads.get("root")!.toolRuns = [{ use: { type: "tool_use", id: "x", name: "get_file", input: {} }, state: "running" }];
    dispatch({ type: "chat-msg", msg: { type: "fork-report", id: a, text: "one" } });
    dispatch({ type: "chat-msg", msg: { type: "fork-report", id: b, text: "two" } });
    expect(chat.threads.get("root")!.reports.map((r) => r.text)).toEqual(["one", "two"]);
    chat.threads.get("root")!.toolRuns = [];
    dispatch({ type: "thread-msg", id: "root", msg: { type: "send", text: "next" } });
    expect(
      chat.threads
        .get("root")!
        .runner.history.last()!
        .message.content.map((b) => ("text" in b ? b.text : "")),
    ).toEqual([expect.stringContaining("one"), expect.stringContaining("two"), "next"]);
  });

  it("without text, the fork is asked for a summary first (a normal request in the fork)", () => {
    const { chat, dispatch, fork } = setup();
    const f = fork("root");
    dispatch({ type: "chat-msg", msg: { type: "fork-report", id: f } });
    const asked = chat.threads.get(f)!.runner.history.last()!.message;
    expect(asked.role).toBe("user");
    expect(JSON.stringify(asked.content)).toContain("reports back to the thread it came from");
  });
});

describe("what the agent may start on its own (enter_fork)", () => {
  it("a fork the agent opened cannot open another until the user sends in it", async () => {
    const { chat, dispatch, agentCalls } = setup();
    await agentCalls("root", "enter_fork", { topic: "go deeper" });
    const [a] = chat.childrenOf("root");
    // The topic joins the tool results the fork was taken with.
    expect(texts(chat, a!).at(-1)).toBe("tool_result|go deeper");
    const refused = await agentCalls(a!, "enter_fork", { topic: "deeper still" });
    expect(refused).toEqual({
      text:
        "enter_fork is refused: this fork was opened by the agent, and a fork the agent opened cannot open another until the user " +
        "sends a message in it. Go on here, or end this fork (report_updates).",
      isError: true,
    });
    expect(chat.childrenOf(a!)).toEqual([]);
    // The user sends in it: it is the user's fork now, and may open forks.
    dispatch({ type: "thread-msg", id: a!, msg: { type: "send", text: "yes, go deeper" } });
    expect((await agentCalls(a!, "enter_fork", { topic: "deeper still" })).isError).toBe(false);
    expect(chat.childrenOf(a!)).toHaveLength(1);
  });

  it("at most agent_fork_limit forks the agent opened are live per thread; past it enter_fork says why; one ending makes room", async () => {
    const { chat, dispatch, agentCalls } = setup({ agentForkLimit: 2 });
    expect((await agentCalls("root", "enter_fork")).isError).toBe(false);
    expect((await agentCalls("root", "enter_fork")).isError).toBe(false);
    expect(chat.childrenOf("root")).toHaveLength(2);
    const refused = await agentCalls("root", "enter_fork", { topic: "a third" });
    expect(refused.isError).toBe(true);
    expect(refused.text).toBe(
      "enter_fork is refused: 2 forks the agent opened from this thread are still open, the most the user allows " +
        "(agent_fork_limit = 2). A fork closes when it reports back or the user ends it; or ask the user to fork.",
    );
    expect(chat.childrenOf("root")).toHaveLength(2);
    // A fork the user opened does not count; one the agent opened that ends makes room.
    dispatch({
      type: "chat-msg",
      msg: { type: "fork-thread", sourceId: "root", newId: "mine", num: 50, prompt: "", opener: { by: "user", background: false } },
    });
    dispatch({ type: "chat-msg", msg: { type: "fork-discard", id: chat.childrenOf("root")[0]! } });
    expect((await agentCalls("root", "enter_fork")).isError).toBe(false);
    expect(chat.childrenOf("root")).toHaveLength(3);
  });
});

describe("idle forks and the user (fake clock)", () => {
  it("approving a tool in a prompted fork is activity: the fork does not report and end under the user's hands", async () => {
    const { chat, dispatch, fork, ended, clock } = setup({ needsApproval: true });
    const f = fork("root");
    clock.t = 10 * MIN;
    dispatch({ type: "chat-msg", msg: { type: "clock-tick", now: clock.t } });
    expect(texts(chat, f).at(-1)).toMatch(/^\[tine\] This fork has been idle for 10 minutes\. Wrap up/);
    // Its wrap-up reply asks to read a file; the user approves just before the second period ends.
    chat.threads.get(f)!.toolRuns = [{ use: { type: "tool_use", id: "r1", name: "get_file", input: {} }, state: "awaiting-approval" }];
    clock.t = 19.5 * MIN;
    dispatch({ type: "thread-msg", id: f, msg: { type: "tool-decision", toolUseId: "r1", approved: true } });
    clock.t = 20 * MIN;
    dispatch({ type: "chat-msg", msg: { type: "clock-tick", now: clock.t } });
    await settled(() => !chat.threads.get(f)?.toolRuns.length);
    expect(ended).toEqual([]);
    expect(chat.threads.has(f)).toBe(true);
    // Not prompted any more: a fresh first period from the last activity (the tool's end).
    expect(chat.forks.get(f)!.promptedAt).toBe(null);
    expect(chat.forks.nextDeadline()).toBe(30 * MIN);
  });

  it("forking a fork, opening it, a toggled detail: each resets its clock", () => {
    const { chat, dispatch, fork, clock } = setup();
    const f = fork("root");
    clock.t = 3 * MIN;
    fork(f);
    expect(chat.forks.get(f)!.lastActivity).toBe(3 * MIN);
    clock.t = 5 * MIN;
    dispatch({ type: "chat-msg", msg: { type: "select-thread", id: f } });
    expect(chat.forks.get(f)!.lastActivity).toBe(5 * MIN);
    clock.t = 7 * MIN;
    dispatch({ type: "thread-msg", id: f, msg: { type: "toggle-detail", key: "1:0" } });
    expect(chat.forks.get(f)!.lastActivity).toBe(7 * MIN);
  });

  it("a wrap-up the fork could not take (a tool still running) starts no second period: the fork is not ended when the tool ends", () => {
    const { chat, dispatch, fork, ended, clock } = setup();
    const f = fork("root");
    // The agent runs a long command (as the chat sees it: the fork is busy).
    chat.threads.get(f)!.toolRuns = [{ use: { type: "tool_use", id: "b1", name: "bash_command", input: {} }, state: "running" }];
    dispatch({ type: "thread-msg", id: f, msg: { type: "agent", msg: { type: "stream-updated" } } });
    for (const minutes of [10, 20, 30]) {
      clock.t = minutes * MIN;
      dispatch({ type: "chat-msg", msg: { type: "clock-tick", now: clock.t } });
    }
    expect(texts(chat, f).some((t) => t.includes("[tine]"))).toBe(false);
    clock.t = 31 * MIN;
    dispatch({ type: "thread-msg", id: f, msg: { type: "tool-done", toolUseId: "b1", outcome: { text: "built", isError: false } } });
    expect(ended).toEqual([]);
    expect(chat.threads.has(f)).toBe(true);
    // The wrap-up comes a full period after the tool's end.
    expect(chat.forks.nextDeadline()).toBe(41 * MIN);
  });
});
