/**
 * The agent against the real SDK and the HTTP mock when the API or the connection fails: what is
 * retried and how often (429, 529, 5xx, 408, dropped and reset connections, retry-after,
 * x-should-retry), the error a thread shows when it gives up, and what an abort keeps.
 */
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import { describe, it } from "vitest";
import { messages, say, streamedUpTo, testConfig, withAgent } from "../../test/helpers/agent-harness.ts";
import { checkMessages } from "../../test/mock-anthropic/api-rules.ts";
import { response, textReply } from "../../test/mock-anthropic/script.ts";
import { errorReply, MockAnthropic } from "../../test/mock-anthropic/server.ts";

describe("AnthropicAgent retries and errors", () => {
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
