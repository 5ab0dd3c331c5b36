import assert from "node:assert/strict";
import { it } from "vitest";
import { History } from "../core/history.ts";
import { assistantMessage, entry, userMessage } from "../core/native.ts";
import { compactedHistory, contextTokens, cutAt } from "./rules.ts";

const usage = (input: number) => ({ input_tokens: input, output_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
const user = (text: string) => entry(userMessage([{ type: "text", text }]));
const reply = (text: string, input = 10) =>
  entry(assistantMessage([{ type: "text", text }]), { stopReason: "end_turn", usage: usage(input) });
const call = entry(assistantMessage([{ type: "tool_use", id: "t1", name: "get_file", input: {} }]), {
  stopReason: "tool_use",
  usage: usage(20),
});
const result = entry(userMessage([{ type: "tool_result", tool_use_id: "t1", content: "x" }]));

it("cutAt never opens the kept part with tool results: the cut goes back to their call", () => {
  const h = History.of([user("q"), call, result, reply("a")]);
  assert.equal(cutAt(h, 2), 1);
  assert.equal(cutAt(h, 3), 3);
  assert.equal(cutAt(h, 99), 4);
});

it("compactedHistory: the summary first (joined with a kept user message), the rest verbatim without the source's usage", () => {
  const h = History.of([user("q1"), reply("a1", 1000), user("q2"), reply("a2", 2000)]);
  const onUser = compactedHistory(h, 2, "S", new Map([["f.ts", "text"]]), "T");
  assert.equal(onUser.length, 2);
  const first = onUser.at(0).message.content;
  assert.equal(first.length, 3);
  assert.match((first[0] as { text: string }).text, /^<context kind="file" path="f.ts"/);
  assert.match((first[1] as { text: string }).text, /first 2 messages[\s\S]*S$/);
  assert.equal(first[2], h.at(2).message.content[0], "the kept message's block, the same object");
  assert.equal(onUser.at(1).message, h.at(3).message);
  assert.equal(contextTokens(onUser), null, "the kept replies' usage was the source's");
  assert.equal(contextTokens(h), 2005);
  const onReply = compactedHistory(h, 3, "S", new Map(), "T");
  assert.deepEqual(
    [...onReply.entries()].map((e) => e.message.role),
    ["user", "assistant"],
  );
});
