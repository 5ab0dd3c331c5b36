/**
 * The hand check of updates (update-check.ts) against the SDK's schema check: each line is given
 * to both, the SDK through a real client connection as the host makes one. A line the schema
 * refuses is never taken by hand, and a line taken by hand is what the SDK hands on (less
 * `_meta` and `annotations`, which tine does not read).
 */
import { client, ndJsonStream } from "@agentclientprotocol/sdk/unstable";
import { assert, describe, it } from "vitest";
import { checkedUpdate, parsedLine } from "./update-check.ts";

/** The update `line` holds, checked, or null, as the agent's stdout reader takes it (fast-updates.ts). */
const checkedUpdateOf = (line: string) => checkedUpdate(parsedLine(line));

const line = (update: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s1", update }, ...extra });
const chunk = (text: unknown, more: Record<string, unknown> = {}) =>
  line({ sessionUpdate: "agent_message_chunk", content: { type: "text", text }, ...more });
const call = (more: Record<string, unknown>) => line({ sessionUpdate: "tool_call", toolCallId: "t1", title: "Read a", ...more });
const toolUpdate = (more: Record<string, unknown>) => line({ sessionUpdate: "tool_call_update", toolCallId: "t1", ...more });
const text = (t: string) => ({ type: "content", content: { type: "text", text: t } });

/** Lines the hand check takes: each as the schema takes it. */
const TAKEN = [
  chunk("hi"),
  chunk("hi", { messageId: "m1", _meta: { x: 1 } }),
  chunk("hi", { messageId: null }),
  line({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "hm", annotations: { priority: 1 } } }),
  call({}),
  call({ kind: "read", status: "in_progress", name: "Read", rawInput: { path: "a" }, _meta: { claudeCode: { toolName: "Read" } } }),
  call({ content: [text("ok"), { type: "diff", path: "/a", oldText: null, newText: "x" }, { type: "terminal", terminalId: "T" }] }),
  call({ locations: [{ path: "/a" }, { path: "/b", line: 3 }, { path: "/c", line: null }], rawOutput: null }),
  toolUpdate({}),
  toolUpdate({ status: "completed", content: [text("ok")], rawOutput: "done" }),
  toolUpdate({ title: null, kind: null, status: null, name: null, content: null, locations: null }),
  toolUpdate({ kind: "edit", content: [{ type: "diff", path: "/a", oldText: "a", newText: "b", _meta: {} }], extra: 1 }),
];

/** Lines the schema refuses: never taken by hand, so the SDK refuses them as it does any message. */
const REFUSED = [
  chunk(3),
  chunk("x").replace('"2.0"', '"1.0"'),
  line({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "x" } }, { id: 5 }),
  '{"jsonrpc":"2.0","method":"session/update"',
  line({ sessionUpdate: "tool_call", toolCallId: "t" }),
  call({ toolCallId: 7 }),
  call({ title: null }),
  toolUpdate({ toolCallId: null }),
  line({ sessionUpdate: "tool_call_update" }),
  line("tool_call"),
  JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { update: { sessionUpdate: "tool_call_update", toolCallId: "t" } } }),
];

/** Lines the schema takes but mends (drops a bad field, skips an item), or of kinds not checked by hand: left to the SDK. */
const MENDED = [
  chunk("x", { messageId: 4 }),
  line({ sessionUpdate: "agent_message_chunk", content: { type: "image", data: "", mimeType: "image/png" } }),
  call({ kind: "bogus" }),
  call({ kind: null }),
  call({ status: "done" }),
  call({ content: null }),
  call({ content: "ok" }),
  call({ content: [text("ok"), { type: "zzz" }] }),
  call({ content: [{ type: "content", content: { type: "image", data: "", mimeType: "image/png" } }] }),
  call({ content: [{ type: "diff", path: "/a" }] }),
  call({ content: [{ type: "terminal" }] }),
  call({ locations: [{ path: "/a", line: -1 }] }),
  call({ locations: [{ path: "/a", line: 1.5 }] }),
  call({ locations: [{ line: 1 }] }),
  call({ name: 3 }),
  toolUpdate({ title: 3 }),
  toolUpdate({ status: "bogus" }),
  toolUpdate({ content: [{ type: "content", content: { type: "text", text: 1 } }] }),
  line({ sessionUpdate: "plan", entries: [] }),
];

/** What the SDK hands its session/update handler for `text`, or null when it refuses it. */
async function throughSdk(text: string): Promise<unknown> {
  const input = new TransformStream<Uint8Array, Uint8Array>();
  const output = new TransformStream<Uint8Array, Uint8Array>();
  void output.readable.pipeTo(new WritableStream());
  let got: unknown = null;
  const handled = new Promise<void>((resolve) => {
    const app = client({ name: "test" }).onNotification("session/update", ({ params }) => {
      got = params;
      resolve();
    });
    const connection = app.connect(ndJsonStream(output.writable, input.readable));
    // A message it refuses is never handled: the end of its input is the end of its answer.
    void connection.closed.then(() => resolve());
  });
  const writer = input.writable.getWriter();
  await writer.write(Buffer.from(`${text}\n`));
  await writer.close();
  await handled;
  return got;
}

/** `v` without `_meta` and `annotations` anywhere (none of the test lines has them in raw input). */
const lessHints = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(lessHints)
    : typeof v === "object" && v !== null
      ? Object.fromEntries(
          Object.entries(v)
            .filter(([k]) => k !== "_meta" && k !== "annotations")
            .map(([k, x]) => [k, lessHints(x)]),
        )
      : v;

describe("updates checked by hand", () => {
  it("takes what the schema takes, as the SDK hands it on", async () => {
    for (const l of TAKEN) {
      const taken = checkedUpdateOf(l);
      assert.isNotNull(taken, l);
      assert.deepEqual(taken, lessHints(await throughSdk(l)) as typeof taken, l);
    }
  });

  it("keeps only the schema's fields", () => {
    const taken = checkedUpdateOf(toolUpdate({ status: "completed", extra: 1, _meta: { x: 1 } }));
    assert.deepEqual(taken, { sessionId: "s1", update: { sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed" } });
  });

  it("never takes what the schema refuses", async () => {
    for (const l of REFUSED) {
      assert.isNull(checkedUpdateOf(l), l);
      assert.isNull(await throughSdk(l), `the SDK took ${l}`);
    }
  });

  it("leaves to the SDK what it would mend, and kinds it does not check", async () => {
    for (const l of MENDED) {
      assert.isNull(checkedUpdateOf(l), l);
      assert.isNotNull(await throughSdk(l), `the SDK refused ${l}`);
    }
  });
});
