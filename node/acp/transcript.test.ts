import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import fc from "fast-check";
import { assert, describe, it } from "vitest";
import { History } from "../core/history.ts";
import type { NativeMessage } from "../core/native.ts";
import { entry } from "../core/native.ts";
import { decode, encode } from "../store/records.ts";
import { AcpTranscript, agentMessageId } from "./transcript.ts";
import { bannerLines } from "./turn-words.ts";

// Recorded from @agentclientprotocol/claude-agent-acp 0.101.0 driven against the mock Messages API
// (the scratch run of node/acp/connection.ts; paths shortened): a reply, its billing notice, and a
// Write the user allowed.
const P = "/p/out.txt";
const REPLY_TURN: SessionUpdate[] = [
  { used: 11, size: 1000000, _meta: { "_claude/model": "claude-mock" }, sessionUpdate: "usage_update" },
  { content: { text: "reply 2", type: "text" }, messageId: "msg_2", sessionUpdate: "agent_message_chunk" },
  { used: 30, size: 1000000, _meta: { "_claude/model": "claude-mock" }, sessionUpdate: "usage_update" },
  {
    content: { text: "**Warning:** We're changing auto mode to no longer charge for classifier requests in Claude Code.", type: "text" },
    _meta: { claudeCode: { kind: "informational", level: "warning" } },
    sessionUpdate: "agent_message_chunk",
  },
  { used: 30, size: 1000000, cost: { amount: 0.00088, currency: "USD" }, sessionUpdate: "usage_update" },
];
const WRITE_TURN: SessionUpdate[] = [
  { content: { text: "Writing.", type: "text" }, messageId: "msg_w", sessionUpdate: "agent_message_chunk" },
  {
    toolCallId: "toolu_1",
    title: "Preparing file…",
    name: "Write",
    kind: "edit",
    status: "pending",
    content: [],
    locations: [],
    rawInput: {},
    sessionUpdate: "tool_call",
  },
  {
    toolCallId: "toolu_1",
    title: "Write out.txt",
    locations: [{ path: P }],
    rawInput: { file_path: P },
    sessionUpdate: "tool_call_update",
  },
  {
    toolCallId: "toolu_1",
    content: [{ path: P, oldText: null, newText: "hello\n", type: "diff" }],
    rawInput: { file_path: P, content: "hello\n" },
    sessionUpdate: "tool_call_update",
  },
  { toolCallId: "toolu_1", _meta: { claudeCode: { toolName: "Write" } }, sessionUpdate: "tool_call_update" },
  { toolCallId: "toolu_1", status: "completed", rawOutput: `File created successfully at: ${P}`, sessionUpdate: "tool_call_update" },
  { content: { text: "Written.", type: "text" }, messageId: "msg_done5", sessionUpdate: "agent_message_chunk" },
];
const END = {
  stopReason: "end_turn",
  usage: { inputTokens: 20, outputTokens: 40, cachedReadTokens: 3, cachedWriteTokens: 4, totalTokens: 67 },
} as const;

function fold(prompt: string, updates: SessionUpdate[], t = new AcpTranscript()): AcpTranscript {
  t.prompt([{ type: "text", text: prompt }]);
  for (const u of updates) t.apply(u);
  return t;
}

const shapes = (messages: NativeMessage[]) => messages.map((m) => `${m.role}:${m.content.map((b) => b.type).join(",")}`);

describe("AcpTranscript", () => {
  it("folds a reply into the assistant's text; the agent's own notice (no messageId once chunks are labelled) is state, not reply", () => {
    const t = fold("hello there", REPLY_TURN);
    t.endTurn(END);
    assert.deepEqual(t.history.messages(), [
      { role: "user", content: [{ type: "text", text: "hello there" }] },
      { role: "assistant", content: [{ type: "text", text: "reply 2" }] },
    ]);
    assert.match(t.state.notices[0]!.text, /^\*\*Warning:\*\* We're changing auto mode/);
    assert.deepEqual(t.state.context, { used: 30, size: 1000000, cost: { amount: 0.00088, currency: "USD" } });
    assert.deepEqual(t.history.last()!.meta, {
      stopReason: "end_turn",
      usage: { input_tokens: 20, output_tokens: 40, cache_read_input_tokens: 3, cache_creation_input_tokens: 4 },
      agentMessageIds: ["msg_2"],
    });
  });

  it("a call announced before the text the model wrote ahead of it (from the adapter's permission request) is drawn after that text; the next message is its own", () => {
    // claude-agent-acp announces a call from canUseTool or a hook when that comes before the
    // streamed tool_use: on a loaded machine, before the text streamed ahead of it.
    const [writing, announced, ...rest] = WRITE_TURN;
    const t = fold("please write it", [announced!, writing!, ...rest]);
    const drawn = () =>
      t.history.messages().map((m) => `${m.role}:${m.content.map((b) => (b.type === "text" ? b.text : b.type)).join(",")}`);
    const expected = ["user:please write it", "assistant:Writing.,tool_use", "user:tool_result", "assistant:Written."];
    assert.deepEqual(drawn(), expected);
    t.endTurn(END);
    assert.deepEqual(drawn(), expected);
    assert.deepEqual(
      [1, 3].map((i) => agentMessageId(t.history, i)),
      ["msg_w", "msg_done5"],
    );
  });

  it("a call announced early for a turn's second message goes with that message's text, not with the first message's calls", () => {
    const chunk = (text: string, messageId: string): SessionUpdate => ({
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text },
      messageId,
    });
    const call = (id: string): SessionUpdate => ({ sessionUpdate: "tool_call", toolCallId: id, title: id, status: "pending" });
    const ended = (id: string): SessionUpdate => ({ sessionUpdate: "tool_call_update", toolCallId: id, status: "completed" });
    const t = fold("go", [chunk("Reading.", "msg_a"), call("read"), ended("read"), call("write"), chunk("Writing.", "msg_b")]);
    const drawn = () =>
      t.history.messages().map((m) => `${m.role}:${m.content.map((b) => (b.type === "text" ? b.text : b.type)).join(",")}`);
    assert.deepEqual(drawn(), ["user:go", "assistant:Reading.,tool_use", "user:tool_result", "assistant:Writing.,tool_use"]);
    for (const u of [ended("write"), chunk("Done.", "msg_c")]) t.apply(u);
    t.endTurn(END);
    assert.deepEqual(drawn(), [
      "user:go",
      "assistant:Reading.,tool_use",
      "user:tool_result",
      "assistant:Writing.,tool_use",
      "user:tool_result",
      "assistant:Done.",
    ]);
    assert.deepEqual(
      t.history
        .messages()
        .flatMap((m) => m.content.flatMap((b) => (b.type === "tool_use" ? [b.id] : b.type === "tool_result" ? [b.tool_use_id] : []))),
      ["read", "read", "write", "write"],
    );
  });

  it("a call that has started is the last message's: labelled text after it is a new message, drawn after the call", () => {
    const t = fold("go", [
      { sessionUpdate: "tool_call", toolCallId: "x", title: "Run", status: "in_progress" },
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Result is" }, messageId: "msg_b" },
      { sessionUpdate: "tool_call_update", toolCallId: "x", status: "completed" },
    ]);
    assert.deepEqual(shapes(t.history.messages()), ["user:text", "assistant:tool_use", "user:tool_result", "assistant:text"]);
  });

  it("an id used again for a new call in a later turn is that new call", () => {
    const call: SessionUpdate = { sessionUpdate: "tool_call", toolCallId: "1", title: "Run", status: "completed" };
    const t = fold("one", [call]);
    t.endTurn(END);
    fold("two", [call], t).endTurn(END);
    assert.deepEqual(shapes(t.history.messages()), [
      "user:text",
      "assistant:tool_use",
      "user:tool_result",
      "user:text",
      "assistant:tool_use",
      "user:tool_result",
    ]);
  });

  it("labelled text of another message never joins the last one, tool calls between or not; unlabelled text after a call that has not ended is a new message", () => {
    const chunk = (text: string, messageId?: string): SessionUpdate => ({
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text },
      ...(messageId === undefined ? {} : { messageId }),
    });
    const labelled = fold("go", [chunk("first", "msg_a"), chunk(" part", "msg_a"), chunk("second", "msg_b")]);
    assert.deepEqual(shapes(labelled.history.messages()), ["user:text", "assistant:text", "assistant:text"]);
    assert.deepEqual(
      labelled.history
        .messages()
        .slice(1)
        .map((m) => (m.content[0] as { text: string }).text),
      ["first part", "second"],
    );
    const call: SessionUpdate = { sessionUpdate: "tool_call", toolCallId: "t1", title: "Run", status: "in_progress" };
    const unlabelled = fold("go", [chunk("before"), call, chunk("after")]);
    assert.deepEqual(shapes(unlabelled.history.messages()), ["user:text", "assistant:text,tool_use", "assistant:text"]);
  });

  it("a late update of a finished turn's call (a hook's final diff after the turn's answer) changes nothing: the call is not drawn again", () => {
    const t = fold("please write it", WRITE_TURN);
    t.endTurn(END);
    const before = t.history.messages();
    t.apply({
      toolCallId: "toolu_1",
      content: [{ path: P, oldText: null, newText: "late\n", type: "diff" }],
      sessionUpdate: "tool_call_update",
    });
    t.apply({ toolCallId: "toolu_1", title: "Write out.txt", status: "completed", sessionUpdate: "tool_call_update" });
    assert.deepEqual(t.history.messages(), before);
    fold("again", REPLY_TURN, t).endTurn(END);
    assert.deepEqual(shapes(t.history.messages().slice(before.length)), ["user:text", "assistant:text"]);
  });

  it("keeps the agent's id of every assistant message (a fork's point), stored with its turn and read back from the store's lines", () => {
    const t = fold("please write it", WRITE_TURN);
    t.endTurn(END);
    fold("again", REPLY_TURN, t).endTurn(END);
    const roundTrip = (h: History) =>
      History.empty.push(
        ...[...h.entries()].map((e) => {
          const d = decode(encode({ t: "append", m: e.message, ...(e.meta ? { meta: e.meta } : {}) }));
          if (!d.ok || d.record.t !== "append") throw new Error(`not read back: ${JSON.stringify(d)}`);
          return entry(d.record.m, d.record.meta);
        }),
      );
    const stored = roundTrip(t.history);
    assert.deepEqual(shapes(stored.messages()), [
      "user:text",
      "assistant:text,tool_use",
      "user:tool_result",
      "assistant:text",
      "user:text",
      "assistant:text",
    ]);
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5].map((i) => agentMessageId(stored, i)),
      [null, "msg_w", null, "msg_done5", null, "msg_2"],
    );
    // Never drawn: the message's own content has no trace of it.
    assert.notInclude(JSON.stringify(stored.messages()), "msg_w");
  });

  it("an agent that never labels its chunks has every chunk taken as the model's; an empty messageId is never the model's", () => {
    const t = fold("hi", [
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Hel" } },
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "lo" } },
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "agent's own" }, messageId: "" },
    ]);
    t.endTurn(END);
    assert.deepEqual(t.history.at(1).message.content, [{ type: "text", text: "Hello" }]);
    assert.deepEqual(t.state.notices, [{ severity: "info", text: "agent's own" }]);
  });

  it("a notice is the agent's, never the reply: kept with its severity, the latest few, and the banner shows the last two", () => {
    const notices: SessionUpdate[] = Array.from({ length: 25 }, (_, i) => ({
      sessionUpdate: "notice",
      severity: i === 24 ? "warning" : "info",
      title: `Note ${i}`,
      ...(i === 24 ? { description: "fell back to\na smaller model" } : {}),
    }));
    const t = fold("hi", [...notices, { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Hello" }, messageId: "m1" }]);
    assert.deepEqual(shapes(t.history.messages()), ["user:text", "assistant:text"]);
    assert.equal(t.state.notices.length, 20);
    assert.deepEqual(t.state.notices.at(-1), { severity: "warning", text: "Note 24: fell back to\na smaller model" });
    const banner = bannerLines({
      agent: "claude",
      sessionId: "s1",
      summary: null,
      takingUp: false,
      chosen: null,
      seededNote: null,
      trouble: null,
      notices: t.state.notices,
    });
    assert.deepEqual(banner, [
      '◆ Run by the ACP agent "claude" · session s1',
      "◆ claude says: Note 23",
      "⚠ claude says: Note 24: fell back to a smaller model",
    ]);
  });

  it("folds a tool call into a tool_use and, once it ended, its tool_result (title, kind, status, diff), then the text after it", () => {
    const t = fold("please write it", WRITE_TURN.slice(0, 5));
    // Running: the call is drawn, no result yet.
    assert.deepEqual(shapes(t.history.messages()), ["user:text", "assistant:text,tool_use"]);
    for (const u of WRITE_TURN.slice(5)) t.apply(u);
    t.endTurn(END);
    const [, call, result, after] = t.history.messages();
    assert.deepEqual(call!.content[1], { type: "tool_use", id: "toolu_1", name: "Write", input: { file_path: P, content: "hello\n" } });
    assert.deepEqual(result!.content, [
      {
        type: "tool_result",
        tool_use_id: "toolu_1",
        content: ["[edit] Write out.txt (completed)", `--- /dev/null`, `+++ ${P}`, "@@ -1,0 +1,1 @@", "+hello"].join("\n"),
      },
    ]);
    assert.deepEqual(after, { role: "assistant", content: [{ type: "text", text: "Written." }] });
  });

  it("a cancelled turn keeps what came; a call still running is ended as an error", () => {
    const t = fold("please write it", WRITE_TURN.slice(0, 4));
    t.endTurn({ stopReason: "cancelled" });
    const messages = t.history.messages();
    assert.deepEqual(shapes(messages), ["user:text", "assistant:text,tool_use", "user:tool_result"]);
    const result = messages[2]!.content[0] as { content: string; is_error?: boolean };
    assert.equal(result.is_error, true);
    assert.match(result.content, /\(pending\)\n.*\n.*\n.*\n\+hello\n\(the turn ended before this call finished\)$/s);
    assert.equal(t.history.last()!.meta, undefined);
    assert.equal(t.history.at(1).meta?.interrupted, true);
    // Drawn as tine's own aborted replies are (`interrupted (aborted)`), not as a failed request.
    assert.equal(t.history.at(1).meta?.stopReason, "aborted");
  });

  it("thinking, a plan that changes, commands and mode are kept apart as they should be", () => {
    const t = fold("plan it", [
      { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "Let me " } },
      { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "think." } },
      { sessionUpdate: "plan", entries: [{ content: "read", priority: "high", status: "in_progress" }] },
      {
        sessionUpdate: "plan",
        entries: [
          { content: "read", priority: "high", status: "completed" },
          { content: "write", priority: "low", status: "pending" },
        ],
      },
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Done." } },
      { sessionUpdate: "available_commands_update", availableCommands: [{ name: "review", description: "Review" }] },
      { sessionUpdate: "current_mode_update", currentModeId: "plan" },
    ]);
    assert.deepEqual(t.history.at(1).message.content, [
      { type: "thinking", thinking: "Let me think.", signature: "" },
      { type: "text", text: "Plan:\n✓ read\n· write" },
      { type: "text", text: "Done." },
    ]);
    assert.deepEqual(
      t.state.commands.map((c) => c.name),
      ["review"],
    );
    assert.equal(t.state.modeId, "plan");
  });

  it("property: however the reply is cut into chunks, with usage updates anywhere, the History is the same", () => {
    const text = fc.string({ minLength: 1, maxLength: 60 });
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 6 }), fc.array(fc.boolean(), { maxLength: 40 }), (parts, usageAt) => {
        const whole = parts.join("");
        const updates: SessionUpdate[] = [];
        parts.forEach((p, i) => {
          if (usageAt[i]) updates.push({ sessionUpdate: "usage_update", used: i, size: 100 });
          updates.push({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: p }, messageId: "msg_1" });
        });
        const t = fold("q", updates);
        t.endTurn(END);
        assert.deepEqual(t.history.messages(), [
          { role: "user", content: [{ type: "text", text: "q" }] },
          { role: "assistant", content: [{ type: "text", text: whole }] },
        ]);
      }),
    );
  });

  it("property: read between updates or not, the History is the same; every tool_use has one tool_result after the turn ends, whatever order the updates come in", () => {
    const ids = ["a", "b", "c"];
    const step = fc.oneof(
      fc.constantFrom(...ids).map((id): SessionUpdate => ({ sessionUpdate: "tool_call", toolCallId: id, title: id })),
      fc
        .tuple(
          fc.constantFrom(...ids),
          fc.constantFrom("in_progress", "completed", "failed") as fc.Arbitrary<"in_progress" | "completed" | "failed">,
        )
        .map(([id, status]): SessionUpdate => ({ sessionUpdate: "tool_call_update", toolCallId: id, status })),
      fc
        .string({ minLength: 1, maxLength: 5 })
        .map((text): SessionUpdate => ({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } })),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 30 }), (updates) => {
        // Read after every update (as the view does), the History is what a fresh fold of the same updates draws.
        const t = fold("go", []);
        updates.forEach((u, i) => {
          t.apply(u);
          assert.deepEqual(t.history.messages(), fold("go", updates.slice(0, i + 1)).history.messages());
        });
        t.endTurn(END);
        const uses = t.history.messages().flatMap((m) => m.content.flatMap((b) => (b.type === "tool_use" ? [b.id] : [])));
        const results = t.history.messages().flatMap((m) => m.content.flatMap((b) => (b.type === "tool_result" ? [b.tool_use_id] : [])));
        assert.deepEqual([...results].sort(), [...uses].sort());
        assert.equal(new Set(uses).size, uses.length);
      }),
    );
  });
});
