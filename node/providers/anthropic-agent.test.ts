/**
 * The agent against the real SDK and the HTTP mock: streaming, tools, thinking, pauses, retries,
 * errors, clones. Over 300 lines: the agent's whole contract, one describe per behaviour.
 */
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import { describe, it, vi } from "vitest";
import { AgentProbe, testConfig, withAgent } from "../../test/helpers/agent-harness.ts";
import { readsCacheOf } from "../../test/helpers/cache-prefix.ts";
import { checkMessages } from "../../test/mock-anthropic/api-rules.ts";
import { response, textReply } from "../../test/mock-anthropic/script.ts";
import { errorReply, MockAnthropic } from "../../test/mock-anthropic/server.ts";
import { type AnthropicAgent, MAX_PAUSE_CONTINUATIONS } from "./anthropic-agent.ts";
import { FORKED_BEFORE_TOOL_RAN, stoppedBeforeToolRan } from "./turn-cleanup.ts";

const say = (text: string) => [{ type: "text" as const, text }];
const messages = (a: AnthropicAgent) => a.history.messages();
const streamingReached = (a: AnthropicAgent) => a.status.type === "streaming";
/** The mock reaching a hold is not the client having read what came before it: await the agent. */
const streamedUpTo = (probe: AgentProbe, a: AnthropicAgent, finalized: number, inProgress: string | null) =>
  probe.until(() => a.open?.finalized.length === finalized && (a.open.inProgress?.type ?? null) === inProgress);

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

  it("retries an overloaded error sent mid-stream, discarding the partial response", async () => {
    await withAgent(async ({ mock, agent, probe }) => {
      mock.reply(response([{ text: "partial" }, { error: { type: "overloaded_error", message: "Overloaded" } }]), textReply("whole"));
      const done = probe.stopped();
      agent.send(say("hi"));
      await done;
      assert.equal(mock.requests.length, 2);
      assert.deepEqual(messages(agent)[1]!.content, [{ type: "text", text: "whole" }]);
    });
  });

  it("one retry layer: a persistent 529 makes exactly 1 + streamRetries requests, then an error that says where and what", async () => {
    await withAgent(async ({ mock, agent, probe }) => {
      for (let i = 0; i < 5; i++) mock.reply(errorReply(529, "overloaded_error", "Overloaded", { "retry-after-ms": "1" }));
      const done = probe.stopped();
      agent.send(say("hi"));
      await probe.until(() => agent.status.type === "error");
      void done;
      assert.equal(mock.requests.length, 3);
      assert.match(
        (agent.status as { message: string }).message,
        new RegExp(`^${new URL(mock.url).host} answered HTTP 529 overloaded_error: Overloaded`),
      );
    });
  });

  it("honours retry-after; a wait longer than the limit is not waited out but told", async () => {
    await withAgent(
      async ({ mock, agent, probe }) => {
        mock.reply(errorReply(429, "rate_limit_error", "slow down", { "retry-after": "0.05" }), textReply("after the wait"));
        const started = Date.now();
        let done = probe.stopped();
        agent.send(say("hi"));
        await done;
        assert.ok(Date.now() - started >= 50, "waited as the server asked");
        mock.reply(errorReply(429, "rate_limit_error", "slow down", { "retry-after": "120" }));
        agent.send(say("again"));
        await probe.until(() => agent.status.type === "error");
        assert.equal(mock.requests.length, 3, "no second try after a long retry-after");
        assert.match((agent.status as { message: string }).message, /the server asks to wait 120 s \(more than max_retry_wait\)/);
        void done;
        done = probe.stopped();
      },
      testConfig,
      { maxRetryWaitMs: 60_000 },
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

  it("a stream error answers pending tool calls with an error that names it", async () => {
    await withAgent(async ({ mock, agent, probe }) => {
      mock.reply(
        response([{ toolUse: { id: "t1", name: "get_file", input: { path: "a" } } }, { error: { type: "api_error", message: "boom" } }]),
      );
      agent.send(say("go"));
      await probe.until(() => agent.status.type === "error");
      const result = messages(agent).at(-1)!.content[0] as { content: string };
      assert.match(result.content, /^The response failed \(.*boom.*\) before the tool call was complete; it did not run\.$/);
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

  it("retries HTTP 429 and 529", async () => {
    await withAgent(async ({ mock, agent, probe }) => {
      mock.reply(
        errorReply(429, "rate_limit_error", "slow down", { "retry-after-ms": "1" }),
        errorReply(529, "overloaded_error", "Overloaded", { "retry-after-ms": "1" }),
        textReply("finally"),
      );
      const done = probe.stopped();
      agent.send(say("hi"));
      await done;
      assert.equal(mock.requests.length, 3);
      assert.equal(agent.status.type, "stopped");
    });
  });

  it("retries transient errors (500, 502, 503, 504, 408, a closed or reset connection), showing what failed and when it tries again", async () => {
    await withAgent(
      async ({ mock, agent, probe }) => {
        mock.reply(
          errorReply(500, "api_error", "Internal server error"),
          errorReply(502, "api_error", "Bad gateway"),
          errorReply(503, "api_error", "Service unavailable"),
          errorReply(504, "timeout_error", "Gateway timeout"),
          errorReply(408, "timeout_error", "Request timeout"),
          { kind: "drop" },
          { kind: "reset" },
          textReply("Made it."),
        );
        const done = probe.stopped();
        agent.send(say("hi"));
        await done;
        assert.deepEqual(agent.status, { type: "stopped", stopReason: "end_turn" });
        assert.equal(mock.requests.length, 8);
        const waits = probe.msgs.flatMap((m) =>
          m.type === "status-changed" && m.status.type === "streaming" && m.status.retry ? [m.status] : [],
        );
        assert.deepEqual(
          waits.map((w) => w.attempt),
          [1, 2, 3, 4, 5, 6, 7],
        );
        const host = new URL(mock.url).host;
        assert.deepEqual(
          waits.slice(0, 5).map((w) => w.retry!.why.replace(/ \(request id .*\)$/, "")),
          [
            `${host} answered HTTP 500 api_error: Internal server error`,
            `${host} answered HTTP 502 api_error: Bad gateway`,
            `${host} answered HTTP 503 api_error: Service unavailable`,
            `${host} answered HTTP 504 timeout_error: Gateway timeout`,
            `${host} answered HTTP 408 timeout_error: Request timeout`,
          ],
        );
        assert.match(waits[5]!.retry!.why, new RegExp(`^could not reach ${host}: `));
        assert.equal(waits[6]!.retry!.why, `could not reach ${host}: the connection was reset`);
        assert.ok(waits.every((w) => w.retry!.at >= w.startedAt));
      },
      testConfig,
      { streamRetries: 7 },
    );
  });

  it('x-should-retry decides: "false" is not retried (even a 503), "true" is (even a 400)', async () => {
    await withAgent(async ({ mock, agent, probe }) => {
      mock.reply(errorReply(503, "api_error", "down for good", { "x-should-retry": "false" }));
      agent.send(say("hi"));
      await probe.until(() => agent.status.type === "error");
      assert.equal(mock.requests.length, 1);
      assert.match((agent.status as { message: string }).message, /answered HTTP 503 api_error: down for good$/);
      mock.reply(errorReply(400, "invalid_request_error", "try me again", { "x-should-retry": "true" }), textReply("Second time."));
      const done = probe.stopped();
      agent.retry();
      await done;
      assert.equal(mock.requests.length, 3);
      assert.deepEqual(messages(agent).at(-1), { role: "assistant", content: say("Second time.") });
    });
  });

  it("a transient error that persists ends in a clear error: what failed, where, and how many tries", async () => {
    // A port nothing listens on: every try is refused.
    const gone = await MockAnthropic.start();
    const url = gone.url;
    await gone.close();
    await withAgent(
      async ({ agent, probe }) => {
        agent.send(say("anyone?"));
        await probe.until(() => agent.status.type === "error");
        const tries = probe.msgs.filter((m) => m.type === "status-changed" && m.status.type === "streaming" && m.status.retry);
        assert.equal(tries.length, 2, "1 + streamRetries tries, the countdown shown before each retry");
        assert.equal(
          (agent.status as { message: string }).message,
          `could not reach ${new URL(url).host}: the connection was refused (is the server running?) · tried 3 times`,
        );
        assert.deepEqual(messages(agent), [{ role: "user", content: say("anyone?") }], "the turn is kept for R");
      },
      testConfig,
      { client: new Anthropic({ apiKey: "test-key", baseURL: url, maxRetries: 0 }) },
    );
  });

  it("puts other errors in the error status and stays usable", async () => {
    await withAgent(async ({ mock, agent, probe }) => {
      mock.reply(errorReply(400, "invalid_request_error", "bad thing"), textReply("recovered"));
      let done = probe.stopped();
      agent.send(say("hi"));
      await done;
      assert.equal(agent.status.type, "error");
      assert.match((agent.status as { message: string }).message, /invalid_request_error: bad thing/);
      done = probe.stopped();
      agent.send(say("again"));
      await done;
      assert.deepEqual(messages(agent), [
        {
          role: "user",
          content: [
            { type: "text", text: "hi" },
            { type: "text", text: "again" },
          ],
        },
        { role: "assistant", content: [{ type: "text", text: "recovered" }] },
      ]);
    });
  });

  it("a connection dropped mid-stream leaves a valid history and an error, and the thread goes on", async () => {
    await withAgent(async ({ mock, agent, probe }) => {
      mock.reply(response([{ text: "Kept." }, { drop: true }]), textReply("Back."));
      let done = probe.stopped();
      agent.send(say("hi"));
      await done;
      assert.equal(agent.status.type, "error");
      // Whether "Kept." arrived before the drop depends on the socket; either way the history is valid.
      assert.deepEqual(
        checkMessages(
          [...messages(agent), { role: "user", content: say("next") }].filter(
            (m, i, all) => i === all.length - 1 || m.role === "assistant" || all[i + 1]?.role !== "user",
          ),
        ),
        [],
      );
      done = probe.stopped();
      agent.send(say("again"));
      await done;
      assert.deepEqual(messages(agent).at(-1), { role: "assistant", content: [{ type: "text", text: "Back." }] });
    });
  });

  it("abort keeps finalized blocks, drops the block in progress and answers tool_use", async () => {
    await withAgent(async ({ mock, agent, probe }) => {
      mock.reply(
        response([
          { text: "Checking." },
          { toolUse: { id: "t1", name: "get_file", input: { path: "a" } } },
          { text: "never finished", holdInside: { hold: "mid", afterDeltas: 1 } },
        ]),
      );
      agent.send(say("hi"));
      await mock.reached("mid");
      await streamedUpTo(probe, agent, 2, "text");
      agent.abort();
      mock.release("mid");
      assert.deepEqual(agent.status, { type: "stopped", stopReason: "aborted" });
      const ms = messages(agent);
      assert.deepEqual(ms[1]!.content, [
        { type: "text", text: "Checking." },
        { type: "tool_use", id: "t1", name: "get_file", input: { path: "a" } },
      ]);
      assert.equal(ms[2]!.role, "user");
      assert.deepEqual(checkMessages(ms), []);
      void probe;
    });
  });
});

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

  it("stopped on tool_use: error results, stopped/end_turn, source unchanged", async () => {
    await withAgent(async ({ mock, agent, probe }) => {
      mock.reply(
        response([
          { toolUse: { id: "t1", name: "get_file", input: { path: "a" } } },
          { toolUse: { id: "t2", name: "get_file", input: { path: "b" } } },
        ]),
      );
      const done = probe.stopped();
      agent.send(say("read"));
      await done;
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
    await withAgent(async ({ mock, agent, probe }) => {
      mock.reply(
        response([
          { toolUse: { id: "t1", name: "get_file", input: { path: "a" } } },
          { toolUse: { id: "t2", name: "get_file", input: { path: "b" } } },
        ]),
      );
      const done = probe.stopped();
      agent.send(say("read"));
      await done;
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
