/**
 * Property: for random responses cut at a random event, clone and abort always yield a history
 * the Messages API accepts, and the source, left to finish, ends exactly as if never forked.
 * Some responses continue a turn a server tool paused, so the cut falls in the continuation.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { it } from "vitest";
import { AgentProbe, testConfig, testConnection } from "../../test/helpers/agent-harness.ts";
import { checkMessages } from "../../test/mock-anthropic/api-rules.ts";
import { type Part, response, type Step } from "../../test/mock-anthropic/script.ts";
import { MockAnthropic } from "../../test/mock-anthropic/server.ts";
import { AnthropicAgent } from "./anthropic-agent.ts";
import { appendUserTurn } from "./turn-cleanup.ts";

const webSearchConfig = { ...testConfig, webSearch: true };
const word = fc.stringMatching(/^[a-z ]{0,12}$/);
const part: fc.Arbitrary<Part[]> = fc.oneof(
  word.map((text) => [{ text, chunk: 3 }]),
  fc.tuple(word, fc.boolean()).map(([thinking, signed]) => [{ thinking, signature: signed ? "sig" : "", chunk: 3 }]),
  fc.constant<Part[]>([{ redacted: "opaque" }]),
  fc.integer({ min: 1, max: 1e6 }).map((n) => [{ toolUse: { id: `t${n}`, name: "get_file", input: { path: `f${n}` } }, chunk: 4 }]),
  // Thinking then a tool call: cuts fall after the thinking, before or inside the call.
  fc.tuple(word, fc.integer({ min: 1, max: 1e6 })).map(([thinking, n]) => [
    { thinking, signature: "sig", chunk: 3 },
    { toolUse: { id: `tt${n}`, name: "get_file", input: { path: `f${n}` } }, chunk: 4 },
  ]),
  fc
    .integer({ min: 1, max: 1e6 })
    .map((n) => [
      { serverToolUse: { id: `s${n}`, query: "q" } },
      { searchResult: { toolUseId: `s${n}`, title: "t", url: "https://example.com" } },
    ]),
);

/**
 * Tags every id with its group's place: the API never repeats a tool id in one conversation,
 * and two groups drawing the same number would otherwise say it does.
 */
function distinctIds(groups: Part[][], tag: string): Part[] {
  return groups.flatMap((group, i) =>
    group.map((p): Part => {
      if ("toolUse" in p) return { ...p, toolUse: { ...p.toolUse, id: `${p.toolUse.id}_${tag}${i}` } };
      if ("serverToolUse" in p) return { serverToolUse: { ...p.serverToolUse, id: `${p.serverToolUse.id}_${tag}${i}` } };
      if ("searchResult" in p) return { searchResult: { ...p.searchResult, toolUseId: `${p.searchResult.toolUseId}_${tag}${i}` } };
      return p;
    }),
  );
}

/** What a complete message of `parts` holds once finished (the API's own rules applied). */
function expectedFinal(parts: Part[]) {
  const out: unknown[] = [];
  for (const p of parts) {
    if ("text" in p && p.text.trim() !== "") out.push({ type: "text", text: p.text });
    if ("thinking" in p && p.signature) out.push({ type: "thinking", thinking: p.thinking, signature: p.signature });
    if ("redacted" in p) out.push({ type: "redacted_thinking", data: p.redacted });
    if ("toolUse" in p) out.push({ type: "tool_use", ...p.toolUse });
    if ("serverToolUse" in p) out.push({ type: "server_tool_use", id: p.serverToolUse.id, name: "web_search", input: { query: "q" } });
    if ("searchResult" in p)
      out.push({
        type: "web_search_tool_result",
        tool_use_id: p.searchResult.toolUseId,
        content: [{ type: "web_search_result", title: "t", url: "https://example.com", encrypted_content: "enc", page_age: null }],
      });
  }
  // An assistant message never ends in thinking.
  while (out.length && ["thinking", "redacted_thinking"].includes((out.at(-1) as { type: string }).type)) out.pop();
  return out;
}

/** A paused response (no client tool calls: those stop on tool_use) ending in a search still running. */
const pausedTurn: fc.Arbitrary<Part[] | null> = fc.option(
  fc
    .array(
      part.filter((ps) => !ps.some((p) => "toolUse" in p)),
      { maxLength: 3 },
    )
    .map((nested) => [...distinctIds(nested, "p"), { serverToolUse: { id: "sp", query: "q" } }]),
);
const PAUSED_RESULT: Part = { searchResult: { toolUseId: "sp", title: "t", url: "https://example.com" } };

/** Scripts the replies (the paused one first, if any) with a hold at `cut`; returns the update count before it. */
function script(mock: MockAnthropic, paused: Part[] | null, parts: Part[], cut: number, hold: string): number {
  let updates = cut - 1; // every event but message_start reports an update
  if (paused) {
    const first = response(paused, { stopReason: "pause_turn" }) as { kind: "stream"; steps: Step[] };
    updates += first.steps.length - 2; // neither message_start nor message_stop does
    mock.reply(first);
  }
  const reply = response(paused ? [PAUSED_RESULT, ...parts] : parts) as { kind: "stream"; steps: Step[] };
  reply.steps.splice(cut, 0, { hold });
  mock.reply(reply);
  return updates;
}

const valid = (agent: AnthropicAgent) => {
  const h = appendUserTurn(agent.history, [{ type: "text", text: "next" }]);
  return checkMessages(h.messages());
};

it("clone and abort at any event yield valid histories and never change the source", async () => {
  const mock = await MockAnthropic.start();
  try {
    await fc.assert(
      fc.asyncProperty(fc.array(part, { minLength: 1, maxLength: 5 }), pausedTurn, fc.nat(), async (nested, paused, cutSeed) => {
        const parts = distinctIds(nested, "g");
        const eventCount = (response(paused ? [PAUSED_RESULT, ...parts] : parts) as { steps: Step[] }).steps.length;
        // Cut after message_start, anywhere up to just before message_delta.
        const cut = 1 + (cutSeed % (eventCount - 2));
        const hold = `cut${mock.requests.length}`;
        const updatesBeforeCut = script(mock, paused, parts, cut, hold);
        const probe = new AgentProbe();
        const agent = new AnthropicAgent(webSearchConfig, testConnection(mock), probe.dispatch);
        const done = probe.stopped();
        agent.send([{ type: "text", text: "go" }]);
        await mock.reached(hold);
        await probe.until(() => probe.msgs.filter((m) => m.type === "stream-updated").length === updatesBeforeCut);

        const clone = agent.clone(() => {});
        assert.deepEqual(valid(clone), []);
        assert.deepEqual(clone.status, { type: "stopped", stopReason: "end_turn" });

        mock.release(hold);
        await done;
        const final = expectedFinal([...(paused ? [...paused, PAUSED_RESULT] : []), ...parts]);
        // An empty response leaves no assistant message: the API would refuse one.
        const got = agent.history.length > 1 ? agent.history.at(1).message.content : [];
        assert.deepEqual(got, final, "the source finished as if never forked");
        assert.deepEqual(
          agent.history.messages().map((m) => m.role),
          final.length ? ["user", "assistant"] : ["user"],
          "one message for the turn",
        );
        // A second agent streamed identically and aborted at the same point is valid too.
        script(mock, paused, parts, cut, `${hold}b`);
        const p2 = new AgentProbe();
        const a2 = new AnthropicAgent(webSearchConfig, testConnection(mock), p2.dispatch);
        a2.send([{ type: "text", text: "go" }]);
        await mock.reached(`${hold}b`);
        await p2.until(() => p2.msgs.filter((m) => m.type === "stream-updated").length === updatesBeforeCut);
        a2.abort();
        mock.release(`${hold}b`);
        assert.deepEqual(valid(a2), []);
      }),
      { numRuns: 60 },
    );
    assert.deepEqual(mock.violations(), []);
  } finally {
    await mock.close();
  }
});
