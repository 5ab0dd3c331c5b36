import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { takeCheckedUpdates } from "./fast-updates.ts";
import { messageLines } from "./stdout-lines.ts";

const line = (update: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s1", update }, ...extra });
const chunk = (text: unknown, more: Record<string, unknown> = {}) =>
  line({ sessionUpdate: "agent_message_chunk", content: { type: "text", text }, ...more });

/** What the agent's stdout `pieces` become: the updates taken by hand, the lines passed on whole, the noise. */
async function read(pieces: string[], waiting: () => boolean, passed: () => void) {
  const taken: string[] = [];
  const lines: string[] = [];
  const noise: string[] = [];
  const take = takeCheckedUpdates({
    waiting,
    update: (_id, u) =>
      taken.push(u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? u.content.text : u.sessionUpdate),
    passed,
  });
  const stream = messageLines((t) => noise.push(t), take);
  const writer = stream.writable.getWriter();
  const reading = (async () => {
    const reader = stream.readable.getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) lines.push(Buffer.from(r.value).toString("utf8"));
  })();
  for (const p of pieces) await writer.write(Buffer.from(p));
  await writer.close();
  await reading;
  return { taken, lines, noise };
}

describe("updates taken from the agent's stdout", () => {
  it("keeps the order: a chunk behind an update the SDK has not handled goes the SDK's way", async () => {
    let waiting = 0;
    const all = `${[chunk("a"), line({ sessionUpdate: "plan", entries: [] }), chunk("b")].join("\n")}\n`;
    // Split mid-line, as a pipe may.
    const { taken, lines } = await read(
      [all.slice(0, 30), all.slice(30, 120), all.slice(120)],
      () => waiting > 0,
      () => waiting++,
    );
    assert.deepEqual(taken, ["a"]);
    assert.equal(lines.length, 2);
    assert.match(lines[0]!, /^\{.*"plan".*\}\n$/);
    assert.match(lines[1]!, /^\{.*"text":"b".*\}\n$/);
  });

  it("takes tool calls and chunks split across pieces; drops and reports noise; passes other messages on whole", async () => {
    const call = line({ sessionUpdate: "tool_call", toolCallId: "t1", title: "Read" });
    const all = `  \nstarting up…\n${chunk("a")}\n${call}\n{"jsonrpc":"2.0","id":1,"result":{}}\n\n${"x".repeat(300)}\n${chunk("b")}\n`;
    const pieces: string[] = [];
    for (let i = 0; i < all.length; i += 7) pieces.push(all.slice(i, i + 7));
    const { taken, lines, noise } = await read(
      pieces,
      () => false,
      () => assert.fail("nothing goes the SDK's way"),
    );
    assert.deepEqual(taken, ["a", "tool_call", "b"]);
    assert.deepEqual(lines, ['{"jsonrpc":"2.0","id":1,"result":{}}\n']);
    assert.deepEqual(noise, ["starting up…", "x".repeat(200)]);
  });

  it("passes a last line without its newline on as it is", async () => {
    const { lines } = await read(
      ['{"jsonrpc":"2.0","id":1,', '"result":{}}'],
      () => false,
      () => {},
    );
    assert.deepEqual(lines, ['{"jsonrpc":"2.0","id":1,"result":{}}']);
  });
});
