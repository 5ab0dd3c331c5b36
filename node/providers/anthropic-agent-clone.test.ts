/**
 * AnthropicAgent.clone (a fork) against the real SDK and the HTTP mock: what a clone taken while the
 * source streams, waits on tools or thinks keeps and leaves out, a clone at an earlier message, and
 * its first request reading the source's cached prefix.
 */
import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { AgentProbe, messages, say, streamedUpTo, streamingReached, testConfig, withAgent } from "../../test/helpers/agent-harness.ts";
import { readsCacheOf } from "../../test/helpers/cache-prefix.ts";
import { checkMessages } from "../../test/mock-anthropic/api-rules.ts";
import { response, textReply } from "../../test/mock-anthropic/script.ts";
import { FORKED_BEFORE_TOOL_RAN } from "./turn-cleanup.ts";

describe("AnthropicAgent.clone", () => {
  it("while streaming with a partial text block: the partial block is left out, the source goes on", async () => {
    await withAgent(async ({ mock, agent, probe }) => {
      mock.reply(response([{ text: "First block." }, { text: "Second block streams", holdInside: { hold: "mid", afterDeltas: 1 } }]));
      const done = probe.stopped();
      agent.send(say("hi"));
      await mock.reached("mid");
      await streamedUpTo(probe, agent, 1, "text");
      assert.ok(streamingReached(agent));
      const cloneProbe = new AgentProbe();
      const clone = agent.clone(cloneProbe.dispatch);
      assert.deepEqual(messages(clone), [
        { role: "user", content: [{ type: "text", text: "hi" }] },
        { role: "assistant", content: [{ type: "text", text: "First block." }] },
      ]);
      assert.deepEqual(clone.status, { type: "stopped", stopReason: "end_turn" });
      assert.ok(streamingReached(agent), "the source still streams");
      mock.release("mid");
      await done;
      assert.deepEqual(messages(agent)[1]!.content, [
        { type: "text", text: "First block." },
        { type: "text", text: "Second block streams" },
      ]);
      assert.equal(mock.requests.length, 1, "the fork sent no request of its own");
      assert.equal(clone.history.length, 2, "the clone is not touched by the source's stream");
      assert.equal(cloneProbe.msgs.length, 0);
    });
  });

  it("with finalized text and a tool_use still streaming: text kept, tool_use left out", async () => {
    await withAgent(async ({ mock, agent, probe }) => {
      mock.reply(
        response([
          { text: "Let me look." },
          { toolUse: { id: "t1", name: "get_file", input: { path: "README.md" } }, holdInside: { hold: "json", afterDeltas: 2 } },
        ]),
      );
      agent.send(say("hi"));
      await mock.reached("json");
      await streamedUpTo(probe, agent, 1, "tool_use");
      const clone = agent.clone(() => {});
      assert.deepEqual(messages(clone)[1], { role: "assistant", content: [{ type: "text", text: "Let me look." }] });
      assert.equal(clone.history.length, 2);
      mock.release("json");
    });
  });

  it("drops a server_tool_use awaiting its result and keeps a finished search pair", async () => {
    await withAgent(
      async ({ mock, agent, probe }) => {
        mock.reply(
          response([
            { serverToolUse: { id: "s1", query: "neovim" } },
            { searchResult: { toolUseId: "s1", title: "Neovim", url: "https://neovim.io" } },
            { text: "Found it." },
            { serverToolUse: { id: "s2", query: "forks" } },
            { hold: "searching" },
          ]),
        );
        agent.send(say("search"));
        await mock.reached("searching");
        await streamedUpTo(probe, agent, 4, null);
        const content = messages(agent.clone(() => {}))[1]!.content;
        assert.deepEqual(
          content.map((b) => b.type),
          ["server_tool_use", "web_search_tool_result", "text"],
        );
        assert.deepEqual(checkMessages([...messages(agent.clone(() => {})), { role: "user", content: say("more") }]), []);
        mock.release("searching");
      },
      { ...testConfig, webSearch: true },
    );
  });

  // Changed with the trailing-thinking rule: the kept thinking is now followed by a text block,
  // since thinking at the end of an assistant message is dropped (the API refuses it).
  it("thinking: in progress dropped, signed kept, signed empty kept, redacted kept (before other blocks)", async () => {
    await withAgent(
      async ({ mock, agent, probe }) => {
        mock.reply(
          response([
            { thinking: "signed", signature: "s1" },
            { thinking: "", signature: "s2" },
            { redacted: "r" },
            { text: "Visible." },
            { thinking: "still thinking", signature: "s3", holdInside: { hold: "think", afterDeltas: 1 } },
          ]),
        );
        agent.send(say("q"));
        await mock.reached("think");
        await streamedUpTo(probe, agent, 4, "thinking");
        assert.deepEqual(messages(agent.clone(() => {}))[1]!.content, [
          { type: "thinking", thinking: "signed", signature: "s1" },
          { type: "thinking", thinking: "", signature: "s2" },
          { type: "redacted_thinking", data: "r" },
          { type: "text", text: "Visible." },
        ]);
        mock.release("think");
      },
      { ...testConfig, thinking: { type: "adaptive", display: "summarized" } },
    );
  });

  it("a turn cut after its thinking: abort and fork drop trailing thinking, so the next send is valid", async () => {
    await withAgent(
      async ({ mock, agent, probe }) => {
        mock.reply(
          response([
            { thinking: "plan", signature: "s1" },
            { text: "never seen", holdInside: { hold: "after-thinking", afterDeltas: 0 } },
          ]),
          response([
            { thinking: "a", signature: "s2" },
            { toolUse: { id: "t1", name: "get_file", input: { path: "x" } } },
            { thinking: "b", signature: "s3" },
            { toolUse: { id: "t2", name: "get_file", input: { path: "y" } }, holdInside: { hold: "second-tool", afterDeltas: 1 } },
          ]),
          textReply("fine"),
        );
        agent.send(say("q"));
        await mock.reached("after-thinking");
        await streamedUpTo(probe, agent, 1, "text");
        assert.deepEqual(
          messages(agent.clone(() => {})).map((m) => m.role),
          ["user"],
          "a clone holds no thinking-only message",
        );
        agent.abort();
        mock.release("after-thinking");
        assert.deepEqual(
          messages(agent).map((m) => m.role),
          ["user"],
        );
        let done = probe.stopped();
        agent.send(say("again"));
        await mock.reached("second-tool");
        await streamedUpTo(probe, agent, 3, "tool_use");
        const clone = agent.clone(() => {});
        assert.deepEqual(
          messages(clone)[1]!.content.map((b) => b.type),
          ["thinking", "tool_use"],
        );
        agent.abort();
        mock.release("second-tool");
        assert.deepEqual(
          messages(agent)[1]!.content.map((b) => b.type),
          ["thinking", "tool_use"],
        );
        done = probe.stopped();
        agent.send(say("go on"));
        await done;
        assert.deepEqual(checkMessages((mock.requests.at(-1)!.body as any).messages), []);
      },
      { ...testConfig, thinking: { type: "adaptive", display: "summarized" } },
    );
  });

  /** The agent asked for two files (t1, t2) and stopped on tool_use, neither run yet. */
  async function stoppedOnTwoReads({ mock, agent, probe }: Parameters<Parameters<typeof withAgent>[0]>[0]) {
    mock.reply(
      response([
        { toolUse: { id: "t1", name: "get_file", input: { path: "a" } } },
        { toolUse: { id: "t2", name: "get_file", input: { path: "b" } } },
      ]),
    );
    const done = probe.stopped();
    agent.send(say("read"));
    await done;
  }

  it("stopped on tool_use: error results, stopped/end_turn, source unchanged", async () => {
    await withAgent(async (harness) => {
      const { agent } = harness;
      await stoppedOnTwoReads(harness);
      const before = messages(agent);
      const clone = agent.clone(() => {});
      assert.deepEqual(clone.status, { type: "stopped", stopReason: "end_turn" });
      assert.deepEqual(messages(clone)[2], {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "t1", content: FORKED_BEFORE_TOOL_RAN, is_error: true },
          { type: "tool_result", tool_use_id: "t2", content: FORKED_BEFORE_TOOL_RAN, is_error: true },
        ],
      });
      assert.deepEqual(messages(agent), before);
      assert.deepEqual(agent.status, { type: "stopped", stopReason: "tool_use" });
      assert.strictEqual(clone.history.at(1).message, agent.history.at(1).message, "messages are shared, not copied");
    });
  });

  it("with one tool finished and one pending: the finished result is kept", async () => {
    await withAgent(async (harness) => {
      const { agent } = harness;
      await stoppedOnTwoReads(harness);
      const real = { type: "tool_result" as const, tool_use_id: "t1", content: "contents of a" };
      const clone = agent.clone(() => {}, { knownResults: new Map([["t1", real]]) });
      assert.deepEqual(messages(clone)[2]!.content, [
        real,
        { type: "tool_result", tool_use_id: "t2", content: FORKED_BEFORE_TOOL_RAN, is_error: true },
      ]);
    });
  });

  it("at an earlier message: history cut there, a tool call keeps its existing result", async () => {
    await withAgent(async ({ mock, agent, probe }) => {
      mock.reply(response([{ toolUse: { id: "t1", name: "get_file", input: { path: "a" } } }]), textReply("Read it."), textReply("Later."));
      let done = probe.stopped();
      agent.send(say("read"));
      await done;
      done = probe.stopped();
      agent.send([{ type: "tool_result", tool_use_id: "t1", content: "A" }]);
      await done;
      done = probe.stopped();
      agent.send(say("more"));
      await done;
      assert.equal(agent.history.length, 6);
      const clone = agent.clone(() => {}, { atMessage: 1 });
      assert.deepEqual(messages(clone).slice(1), [
        { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "get_file", input: { path: "a" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "A" }] },
      ]);
      assert.equal(agent.history.length, 6);
    });
  });

  it("the clone's first request repeats the source's last request up to its cache breakpoint", async () => {
    await withAgent(async ({ mock, agent, probe }) => {
      mock.reply(textReply("one"), response([{ text: "streaming", holdInside: { hold: "h", afterDeltas: 1 } }]), textReply("clone reply"));
      const done = probe.stopped();
      agent.send(say("first"));
      await done;
      agent.send(say("second"));
      await mock.reached("h");
      await streamedUpTo(probe, agent, 0, "text");
      const cloneProbe = new AgentProbe();
      const clone = agent.clone(cloneProbe.dispatch);
      const cloneDone = cloneProbe.stopped();
      clone.send(say("fork prompt"));
      await cloneDone;
      const source = mock.requests[1]!.body as any;
      const forked = mock.requests[2]!.body as any;
      assert.ok(readsCacheOf(forked, source), "the clone's request starts with the source's cached prefix");
      assert.deepEqual(forked.messages.at(-1).content.at(-1), { type: "text", text: "fork prompt", cache_control: { type: "ephemeral" } });
      mock.release("h");
    });
  });
});
