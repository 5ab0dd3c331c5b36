/**
 * Promote and report as operations on histories and the tree, on the chat alone (agents without
 * an API client: a send appends the user turn and stops with an error, which is all these need).
 */
import { describe, expect, it } from "vitest";
import { testConfig } from "../../test/helpers/agent-harness.ts";
import { AnthropicAgent } from "../providers/anthropic-agent.ts";
import { History } from "../providers/history.ts";
import { assistantMessage, type Entry, entry, userMessage } from "../providers/native.ts";
import { runnerRegistry } from "../runners.ts";
import { localEnvironment } from "../tools/local-environment.ts";
import { Chat } from "./chat.ts";
import type { RootMsg, ThreadId } from "./msgs.ts";

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

function setup() {
  const ended: [ThreadId, string, ThreadId | undefined][] = [];
  const queue: RootMsg[] = [];
  let draining = false;
  const dispatch = (msg: RootMsg) => {
    queue.push(msg);
    if (draining) return;
    draining = true;
    while (queue.length) chat.update(queue.shift()!);
    draining = false;
  };
  const chat: Chat = new Chat(
    dispatch,
    runnerRegistry({
      api: { config: testConfig, connection: { client: null, streamRetries: 0, retryDelayMs: 0 } },
      claudeCode: { command: ["claude"], transcriptPath: () => "/nonexistent" },
    }),
    { environmentFor: () => localEnvironment("/"), needsApproval: () => false, fileWritten: () => {} },
    {
      threadCreated: () => {},
      threadDeleted: () => {},
      forkEnded: (f, how, into) => void ended.push([f.id, how, into]),
      reportToStored: () => {},
      branched: () => {},
    },
  );
  let n = 0;
  const fork = (sourceId: ThreadId, atMessage?: number) => {
    const id = `t${++n}`;
    dispatch({ type: "chat-msg", msg: { type: "fork-thread", sourceId, newId: id, num: n, prompt: "", atMessage } });
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
  return { chat, dispatch, fork, ended };
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
