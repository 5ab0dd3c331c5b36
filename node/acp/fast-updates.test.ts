import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { takeTextChunks, textChunkOf } from "./fast-updates.ts";

const line = (update: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s1", update }, ...extra });
const chunk = (text: unknown, more: Record<string, unknown> = {}) =>
  line({ sessionUpdate: "agent_message_chunk", content: { type: "text", text }, ...more });

describe("text chunks read by hand", () => {
  it("takes a text chunk as a new object of its known fields only", () => {
    assert.deepEqual(textChunkOf(chunk("hi", { messageId: "m1", _meta: { x: 1 } })), {
      sessionId: "s1",
      update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hi" }, messageId: "m1" },
    });
  });

  it("leaves to the SDK what does not fit exactly", () => {
    for (const bad of [
      chunk(3),
      chunk("x", { messageId: 4 }),
      line({ sessionUpdate: "agent_message_chunk", content: { type: "image", data: "" } }),
      line({ sessionUpdate: "tool_call", toolCallId: "t" }),
      chunk("x").replace('"2.0"', '"1.0"'),
      line({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "x" } }, { id: 5 }),
      '{"jsonrpc":"2.0","method":"session/update"',
    ])
      assert.equal(textChunkOf(bad), null, bad);
  });

  it("keeps the order: a chunk behind an update the SDK has not handled goes the SDK's way", async () => {
    let waiting = 0;
    const taken: string[] = [];
    const passed: string[] = [];
    const stream = takeTextChunks({
      waiting: () => waiting > 0,
      update: (_id, u) => taken.push(u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? u.content.text : "?"),
      passed: () => waiting++,
    });
    const writer = stream.writable.getWriter();
    const reading = (async () => {
      const reader = stream.readable.getReader();
      for (let r = await reader.read(); !r.done; r = await reader.read()) passed.push(Buffer.from(r.value).toString("utf8"));
    })();
    const all = [chunk("a"), line({ sessionUpdate: "tool_call", toolCallId: "t", title: "T" }), chunk("b")].join("\n");
    // Split mid-line, as a pipe may.
    await writer.write(Buffer.from(`${all.slice(0, 30)}`));
    await writer.write(Buffer.from(`${all.slice(30)}\n`));
    await writer.close();
    await reading;
    assert.deepEqual(taken, ["a"]);
    assert.equal(passed.join("").split("\n").filter(Boolean).length, 2);
    assert.match(passed.join(""), /"tool_call"[\s\S]*"text":"b"/);
  });
});
