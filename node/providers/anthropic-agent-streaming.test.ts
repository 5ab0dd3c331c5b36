/**
 * The agent against the real SDK and the HTTP mock, when all goes well: requests the API accepts,
 * a reply streamed into the history (text, thinking, citations, usage), the stall timer, the request
 * size limit, and where the SDK's debug log goes.
 */
import assert from "node:assert/strict";
import { describe, it, vi } from "vitest";
import { messages, say, streamedUpTo, testConfig, withAgent } from "../../test/helpers/agent-harness.ts";
import { response, textReply } from "../../test/mock-anthropic/script.ts";

describe("AnthropicAgent requests the API accepts", () => {
  it("an empty system prompt sends no system block", async () => {
    await withAgent(
      async ({ mock, agent, probe }) => {
        mock.reply(textReply("ok"));
        const done = probe.stopped();
        agent.send(say("hi"));
        await done;
        assert.equal((mock.requests[0]!.body as any).system, undefined);
      },
      { ...testConfig, system: "  " },
    );
  });

  it("tool input that is not a JSON object is stored as {} and never sent back as it came", async () => {
    await withAgent(async ({ mock, agent, probe }) => {
      mock.reply(response([{ toolUse: { id: "t1", name: "get_file", input: [1, 2] } }]));
      const done = probe.stopped();
      agent.send(say("go"));
      await done;
      assert.deepEqual(messages(agent)[1]!.content[0], { type: "tool_use", id: "t1", name: "get_file", input: {} });
    });
  });
});

describe("AnthropicAgent: citations, search errors, forks at the last message", () => {
  it("keeps a text block's citations in the history and sends them back", async () => {
    await withAgent(async ({ mock, agent, probe }) => {
      const citation = {
        type: "web_search_result_location",
        url: "https://neovim.io",
        title: "Neovim",
        encrypted_index: "e1",
        cited_text: "hyperextensible",
      };
      mock.reply(
        response([
          {
            steps: [
              { event: { type: "content_block_start", index: 0, content_block: { type: "text", text: "", citations: [] } } },
              { event: { type: "content_block_delta", index: 0, delta: { type: "citations_delta", citation } } },
              { event: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Neovim is hyperextensible." } } },
              { event: { type: "content_block_stop", index: 0 } },
            ],
          },
        ]),
        textReply("ok"),
      );
      let done = probe.stopped();
      agent.send(say("what is neovim?"));
      await done;
      assert.deepEqual(messages(agent)[1]!.content, [{ type: "text", text: "Neovim is hyperextensible.", citations: [citation] }]);
      done = probe.stopped();
      agent.send(say("thanks"));
      await done;
      assert.deepEqual((mock.requests[1]!.body as any).messages[1].content[0].citations, [citation]);
    });
  });

  it("a fork at the last message while it streams holds finished blocks only, and the source streams on", async () => {
    await withAgent(async ({ mock, agent, probe }) => {
      mock.reply(response([{ text: "Finished." }, { text: "Still streaming and", holdInside: { hold: "h", afterDeltas: 1 } }]));
      const done = probe.stopped();
      agent.send(say("go"));
      await mock.reached("h");
      await streamedUpTo(probe, agent, 1, "text");
      const clone = agent.clone(() => {}, { atMessage: agent.history.length - 1 });
      assert.deepEqual(messages(clone), [
        { role: "user", content: [{ type: "text", text: "go" }] },
        { role: "assistant", content: [{ type: "text", text: "Finished." }] },
      ]);
      mock.release("h");
      await done;
      assert.equal(messages(agent)[1]!.content.length, 2);
    });
  });
});

describe("AnthropicAgent streaming", () => {
  it("streams a reply and records stop reason and usage", async () => {
    await withAgent(async ({ mock, agent, probe }) => {
      mock.reply(textReply("Hello there, friend.", { usage: { cache_read_input_tokens: 7, output_tokens: 5 } }));
      const done = probe.stopped();
      agent.send(say("hi"));
      await done;
      assert.deepEqual(agent.status, { type: "stopped", stopReason: "end_turn" });
      assert.deepEqual(messages(agent), [
        { role: "user", content: [{ type: "text", text: "hi" }] },
        { role: "assistant", content: [{ type: "text", text: "Hello there, friend." }] },
      ]);
      const meta = agent.history.at(1).meta!;
      assert.equal(meta.usage.cache_read_input_tokens, 7);
      assert.equal(meta.usage.output_tokens, 5);
      const body = mock.requests[0]!.body as any;
      assert.equal(body.stream, true);
      assert.deepEqual(body.system[0].cache_control, { type: "ephemeral" });
      assert.deepEqual(body.tools.at(-1).cache_control, { type: "ephemeral" });
      assert.deepEqual(body.messages.at(-1).content.at(-1).cache_control, { type: "ephemeral" });
    });
  });

  it("keeps signed thinking (also with empty text) and redacted thinking, and sends them back", async () => {
    await withAgent(
      async ({ mock, agent, probe }) => {
        mock.reply(
          response([
            { thinking: "let me think", signature: "sig1" },
            { thinking: "", signature: "sig2" },
            { redacted: "opaque" },
            { text: "42" },
          ]),
          textReply("ok"),
        );
        let done = probe.stopped();
        agent.send(say("q"));
        await done;
        assert.deepEqual(messages(agent)[1]!.content, [
          { type: "thinking", thinking: "let me think", signature: "sig1" },
          { type: "thinking", thinking: "", signature: "sig2" },
          { type: "redacted_thinking", data: "opaque" },
          { type: "text", text: "42" },
        ]);
        done = probe.stopped();
        agent.send(say("next"));
        await done;
        assert.equal((mock.requests[1]!.body as any).messages[1].content.length, 4);
      },
      { ...testConfig, thinking: { type: "adaptive", display: "summarized" } },
    );
  });

  it("a stream_idle_timeout beyond what a timer holds (3e6 s) waits out a silent stream instead of giving up after 1 ms", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => void warnings.push(w.name);
    process.on("warning", onWarning);
    try {
      await withAgent(
        async ({ mock, agent, probe }) => {
          mock.reply(response([{ hold: "silent" }, { text: "Worth the wait." }]));
          const done = probe.stopped();
          agent.send(say("hi"));
          // An overflowed timer gives up after 1 ms, maybe before the mock has the request.
          await Promise.race([mock.reached("silent"), probe.until(() => agent.status.type === "error")]);
          // The silence under test: far below the time-out, far above the 1 ms an overflowed timer waits.
          await new Promise((r) => setTimeout(r, 50));
          assert.equal(agent.status.type, "streaming", JSON.stringify(agent.status));
          mock.release("silent");
          await done;
          assert.deepEqual(agent.status, { type: "stopped", stopReason: "end_turn" });
          assert.deepEqual(messages(agent).at(-1), { role: "assistant", content: [{ type: "text", text: "Worth the wait." }] });
        },
        testConfig,
        { streamIdleTimeoutMs: 3e9 },
      );
    } finally {
      process.off("warning", onWarning);
    }
    assert.ok(!warnings.includes("TimeoutOverflowWarning"), warnings.join(", "));
  });

  it("the stall timer is set once per stream, not once per event (a 2,000-delta reply)", async () => {
    const IDLE = 123_457; // a delay no other timer uses: its timers are the stall timer's
    const stallTimers = () => setTimeoutSpy.mock.calls.filter(([, ms]) => ms === IDLE).length;
    const setTimeoutSpy = vi.spyOn(globalThis, "setTimeout");
    try {
      await withAgent(
        async ({ mock, agent, probe }) => {
          const text = "x".repeat(2000);
          mock.reply(response([{ text, chunk: 1 }]));
          const done = probe.stopped();
          agent.send(say("hi"));
          await done;
          assert.deepEqual(messages(agent).at(-1)?.content[0], { type: "text", text });
          assert.equal(stallTimers(), 1);
        },
        testConfig,
        { streamIdleTimeoutMs: IDLE },
      );
    } finally {
      setTimeoutSpy.mockRestore();
    }
  });

  it("a request over the API's 32 MB limit is not sent: the thread's error says so and how to go on; the text is kept, the thread usable", async () => {
    await withAgent(async ({ mock, agent, probe }) => {
      const huge = "x".repeat(33_000_000);
      agent.send(say(huge));
      await probe.until(() => agent.status.type === "error");
      assert.equal(mock.requests.length, 0, "nothing was sent");
      assert.match(
        (agent.status as { message: string }).message,
        /^this thread's next request is 33 MB, over the Messages API's limit of 32 MB, so it was not sent: fork from an earlier message \(F on it\)/,
      );
      assert.deepEqual(messages(agent), [{ role: "user", content: say(huge) }]);
      mock.reply(textReply("Smaller is fine."));
      const done = probe.stopped();
      assert.equal(agent.replaceFailed(say("a shorter question")), huge);
      await done;
      assert.deepEqual(messages(agent).at(-1), { role: "assistant", content: say("Smaller is fine.") });
      assert.equal(mock.requests.length, 1);
    });
  });

  it("with ANTHROPIC_LOG=debug the SDK logs to stderr (the host's log), never to stdout (the RPC channel)", async () => {
    const { connect } = await import("./connection.ts");
    const write = process.stdout.write;
    const writeErr = process.stderr.write;
    let stdout = "";
    let stderr = "";
    process.stdout.write = ((chunk: string) => {
      stdout += chunk;
      return true;
    }) as never;
    process.stderr.write = ((chunk: string) => {
      stderr += chunk;
      return true;
    }) as never;
    process.env["ANTHROPIC_LOG"] = "debug";
    const key = process.env["ANTHROPIC_API_KEY"];
    process.env["ANTHROPIC_API_KEY"] = "test-key";
    try {
      const mock = await (await import("../../test/mock-anthropic/server.ts")).MockAnthropic.start();
      try {
        const connection = connect({ baseURL: mock.url });
        mock.reply(textReply("hi"));
        await connection.client!.messages.create({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "x" }] });
      } finally {
        await mock.close();
      }
    } finally {
      process.stdout.write = write;
      process.stderr.write = writeErr;
      delete process.env["ANTHROPIC_LOG"];
      if (key === undefined) delete process.env["ANTHROPIC_API_KEY"];
      else process.env["ANTHROPIC_API_KEY"] = key;
    }
    assert.equal(stdout, "");
    assert.match(stderr, /tine host: sdk debug: /);
  });
});
