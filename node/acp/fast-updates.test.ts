import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { takeCheckedUpdates } from "./fast-updates.ts";

const line = (update: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s1", update }, ...extra });
const chunk = (text: unknown, more: Record<string, unknown> = {}) =>
  line({ sessionUpdate: "agent_message_chunk", content: { type: "text", text }, ...more });

describe("updates taken from the agent's stdout", () => {
  it("keeps the order: a chunk behind an update the SDK has not handled goes the SDK's way", async () => {
    let waiting = 0;
    const taken: string[] = [];
    const passed: string[] = [];
    const stream = takeCheckedUpdates({
      waiting: () => waiting > 0,
      update: (_id, u) => taken.push(u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? u.content.text : "?"),
      passed: () => waiting++,
    });
    const writer = stream.writable.getWriter();
    const reading = (async () => {
      const reader = stream.readable.getReader();
      for (let r = await reader.read(); !r.done; r = await reader.read()) passed.push(Buffer.from(r.value).toString("utf8"));
    })();
    const all = [chunk("a"), line({ sessionUpdate: "plan", entries: [] }), chunk("b")].join("\n");
    // Split mid-line, as a pipe may.
    await writer.write(Buffer.from(`${all.slice(0, 30)}`));
    await writer.write(Buffer.from(`${all.slice(30)}\n`));
    await writer.close();
    await reading;
    assert.deepEqual(taken, ["a"]);
    assert.equal(passed.join("").split("\n").filter(Boolean).length, 2);
    assert.match(passed.join(""), /"plan"[\s\S]*"text":"b"/);
  });
});
