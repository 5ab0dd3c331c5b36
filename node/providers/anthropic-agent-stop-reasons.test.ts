/**
 * The agent against the real SDK and the HTTP mock at each stop reason but end_turn: pause_turn and
 * its continuations, max_tokens with a tool call cut off, refusal; the next send is valid after each.
 */
import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { messages, say, streamedUpTo, testConfig, withAgent } from "../../test/helpers/agent-harness.ts";
import { checkMessages } from "../../test/mock-anthropic/api-rules.ts";
import { response, textReply } from "../../test/mock-anthropic/script.ts";
import { MAX_PAUSE_CONTINUATIONS } from "./anthropic-agent.ts";
import { stoppedBeforeToolRan } from "./turn-cleanup.ts";

describe("AnthropicAgent stop reasons", () => {
  const search = (id: string, query: string) => ({ serverToolUse: { id, query } });
  const found = (toolUseId: string) => ({
    searchResult: { toolUseId, title: `Result ${toolUseId}`, url: `https://example.com/${toolUseId}` },
  });
  const withSearch = { ...testConfig, webSearch: true };

  it("pause_turn: sends the paused turn back as the last message and merges the continuation into it", async () => {
    await withAgent(async ({ mock, agent, probe }) => {
      mock.reply(
        // Paused while the second search still runs: its server_tool_use has no result yet.
        response([search("s1", "neovim"), found("s1"), { text: "Searching more." }, search("s2", "forks")], {
          stopReason: "pause_turn",
          usage: { input_tokens: 100, output_tokens: 30 },
        }),
        response([found("s2"), { text: "Both found." }], { usage: { input_tokens: 150, output_tokens: 20 } }),
        textReply("ok"),
      );
      let done = probe.stopped();
      agent.send(say("search"));
      await done;
      assert.equal(mock.requests.length, 2);
      const second = (mock.requests[1]!.body as any).messages;
      assert.equal(second.length, 2);
      assert.equal(second[1].role, "assistant");
      assert.deepEqual(
        second[1].content.map((b: any) => b.type),
        ["server_tool_use", "web_search_tool_result", "text", "server_tool_use"],
      );
      assert.equal(second[1].content[3].id, "s2");
      // One assistant entry for the whole turn, with the usage of both responses.
      assert.deepEqual(agent.status, { type: "stopped", stopReason: "end_turn" });
      const ms = messages(agent);
      assert.deepEqual(
        ms.map((m) => m.role),
        ["user", "assistant"],
      );
      assert.deepEqual(
        ms[1]!.content.map((b) => b.type),
        ["server_tool_use", "web_search_tool_result", "text", "server_tool_use", "web_search_tool_result", "text"],
      );
      const meta = agent.history.at(1).meta!;
      assert.equal(meta.stopReason, "end_turn");
      assert.equal(meta.usage.input_tokens, 250);
      assert.equal(meta.usage.output_tokens, 50);
      done = probe.stopped();
      agent.send(say("thanks"));
      await done;
      assert.deepEqual(
        (mock.requests[2]!.body as any).messages.map((m: any) => m.role),
        ["user", "assistant", "user"],
      );
    }, withSearch);
  });

  it("pause_turn: abort during the continuation closes the paused turn and its new blocks as one message", async () => {
    await withAgent(async ({ mock, agent, probe }) => {
      mock.reply(
        response([{ text: "Looking." }, search("s1", "neovim")], { stopReason: "pause_turn" }),
        response([found("s1"), { text: "Half a sent", holdInside: { hold: "mid", afterDeltas: 1 } }]),
      );
      agent.send(say("search"));
      await mock.reached("mid");
      await streamedUpTo(probe, agent, 3, "text");
      // The fork taken now and the abort below close the turn by the same rule.
      const clone = agent.clone(() => {});
      agent.abort();
      mock.release("mid");
      const expected = [
        { role: "user", content: say("search") },
        {
          role: "assistant",
          content: [
            { type: "text", text: "Looking." },
            { type: "server_tool_use", id: "s1", name: "web_search", input: { query: "neovim" } },
            {
              type: "web_search_tool_result",
              tool_use_id: "s1",
              content: [
                { type: "web_search_result", title: "Result s1", url: "https://example.com/s1", encrypted_content: "enc", page_age: null },
              ],
            },
          ],
        },
      ];
      assert.deepEqual(messages(agent), expected);
      assert.deepEqual(messages(clone), expected);
      assert.deepEqual(checkMessages([...messages(agent), { role: "user", content: say("next") }]), []);
    }, withSearch);
  });

  it("pause_turn: the paused turn sent back does not end its last text block in whitespace", async () => {
    await withAgent(async ({ mock, agent, probe }) => {
      mock.reply(
        response([{ text: "Looking it up. \n" }, search("s1", "neovim")], { stopReason: "pause_turn" }),
        response([found("s1"), { text: "Done." }]),
      );
      const done = probe.stopped();
      agent.send(say("search"));
      await done;
      assert.equal((mock.requests[1]!.body as any).messages.at(-1).content[0].text, "Looking it up.");
    }, withSearch);
  });

  // A continuation is not a prefill the API takes ending in thinking: the trailing thinking goes,
  // from what is sent and from the turn kept, while thinking before other blocks stays.
  it("pause_turn: a paused turn ending in thinking is sent back and kept without that thinking", async () => {
    await withAgent(
      async ({ mock, agent, probe }) => {
        mock.reply(
          response(
            [{ thinking: "plan", signature: "s1" }, search("s1", "neovim"), found("s1"), { thinking: "next step", signature: "s2" }],
            { stopReason: "pause_turn" },
          ),
          response([{ text: "Done." }]),
        );
        const done = probe.stopped();
        agent.send(say("search"));
        await done;
        const sentBack = (mock.requests[1]!.body as any).messages.at(-1).content.map((b: any) => b.type);
        assert.deepEqual(sentBack, ["thinking", "server_tool_use", "web_search_tool_result"]);
        assert.deepEqual(
          messages(agent)[1]!.content.map((b) => b.type),
          ["thinking", "server_tool_use", "web_search_tool_result", "text"],
        );
      },
      { ...withSearch, thinking: { type: "adaptive", display: "summarized" } },
    );
  });

  it("pause_turn: a continuation retried after an overloaded error keeps the paused blocks once", async () => {
    await withAgent(async ({ mock, agent, probe }) => {
      mock.reply(
        response([{ text: "Looking." }, search("s1", "neovim")], { stopReason: "pause_turn" }),
        response([found("s1"), { text: "partial" }, { error: { type: "overloaded_error", message: "Overloaded" } }]),
        response([found("s1"), { text: "Whole." }]),
      );
      const done = probe.stopped();
      agent.send(say("search"));
      await done;
      assert.equal(mock.requests.length, 3);
      assert.deepEqual(
        (mock.requests[2]!.body as any).messages.at(-1).content.map((b: any) => b.type),
        ["text", "server_tool_use"],
      );
      assert.deepEqual(
        messages(agent)[1]!.content.map((b) => (b.type === "text" ? b.text : b.type)),
        ["Looking.", "server_tool_use", "web_search_tool_result", "Whole."],
      );
    }, withSearch);
  });

  it("pause_turn: after the last allowed continuation the turn stops, closed, and the next send is valid", async () => {
    await withAgent(async ({ mock, agent, probe }) => {
      const pauses = Array.from({ length: MAX_PAUSE_CONTINUATIONS + 1 }, (_, i) =>
        response([found(`s${i}`), search(`s${i + 1}`, `q${i + 1}`)].slice(i === 0 ? 1 : 0), { stopReason: "pause_turn" }),
      );
      mock.reply(...pauses, textReply("resumed"));
      let done = probe.stopped();
      agent.send(say("search a lot"));
      await done;
      assert.equal(mock.requests.length, MAX_PAUSE_CONTINUATIONS + 1);
      assert.deepEqual(agent.status, { type: "stopped", stopReason: "pause_turn" });
      // The last search never got its result: it is dropped, the rest is kept.
      const turn = messages(agent)[1]!.content;
      assert.equal(turn.filter((b) => b.type === "server_tool_use").length, MAX_PAUSE_CONTINUATIONS);
      done = probe.stopped();
      agent.send(say("go on"));
      await done;
      assert.deepEqual(
        messages(agent).map((m) => m.role),
        ["user", "assistant", "user", "assistant"],
      );
    }, withSearch);
  });

  it("max_tokens: a tool call cut off is answered as never run, and the next send is valid", async () => {
    await withAgent(async ({ mock, agent, probe }) => {
      mock.reply(
        response([{ text: "Reading it." }, { toolUse: { id: "t1", name: "get_file", input: { path: "src/main.ts" } }, cutInputAt: 9 }], {
          stopReason: "max_tokens",
        }),
        textReply("continued"),
      );
      let done = probe.stopped();
      agent.send(say("read"));
      await done;
      assert.deepEqual(agent.status, { type: "stopped", stopReason: "max_tokens" });
      const ms = messages(agent);
      assert.deepEqual(
        ms.map((m) => m.role),
        ["user", "assistant", "user"],
      );
      assert.deepEqual(ms[2]!.content, [
        { type: "tool_result", tool_use_id: "t1", content: stoppedBeforeToolRan("max_tokens"), is_error: true },
      ]);
      assert.equal(agent.history.at(1).meta!.stopReason, "max_tokens");
      done = probe.stopped();
      agent.send(say("continue"));
      await done;
      const sent = (mock.requests[1]!.body as any).messages;
      assert.deepEqual(
        sent[2].content.map((b: any) => b.type),
        ["tool_result", "text"],
      );
    });
  });

  it("refusal: the stop reason is kept and the thread goes on", async () => {
    await withAgent(async ({ mock, agent, probe }) => {
      mock.reply(response([{ text: "I can't help with that." }], { stopReason: "refusal" }), textReply("Sure."));
      let done = probe.stopped();
      agent.send(say("something"));
      await done;
      assert.deepEqual(agent.status, { type: "stopped", stopReason: "refusal" });
      assert.equal(agent.history.at(1).meta!.stopReason, "refusal");
      done = probe.stopped();
      agent.send(say("something else"));
      await done;
      assert.deepEqual(
        messages(agent).map((m) => m.role),
        ["user", "assistant", "user", "assistant"],
      );
    });
  });
});
