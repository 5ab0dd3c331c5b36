// A scripted ACP agent for the benchmark of a turn's updates (test/bench/acp-updates.bench.ts): on
// session/prompt it sends as many updates as the prompt's first word says, as an agent streaming
// flat out would, then ends the turn. The prompt is `<n> text` (n one-character message chunks, a
// newline each 40, the last line `end-mark`) or `<n> tools` (of each 10 updates: 8 chunks, a tool
// call started, and its end with a result).
import { createInterface } from "node:readline";

const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
let sessions = 0;

function updates(sessionId, n, tools) {
  const out = [];
  const update = (u) => out.push(JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId, update: u } }));
  for (let i = 0; i < n - 1; i++) {
    if (tools && i % 10 === 8) {
      update({ sessionUpdate: "tool_call", toolCallId: `t${i}`, title: `Read f${i}.txt`, kind: "read", status: "in_progress" });
    } else if (tools && i % 10 === 9) {
      update({
        sessionUpdate: "tool_call_update",
        toolCallId: `t${i - 1}`,
        status: "completed",
        content: [{ type: "content", content: { type: "text", text: "ok" } }],
      });
    } else {
      update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: i % 40 === 39 ? "\n" : "x" } });
    }
  }
  update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "\nend-mark" } });
  return out;
}

createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line);
  switch (message.method) {
    case "initialize":
      send({ id: message.id, result: { protocolVersion: 1, agentInfo: { name: "burst", version: "1.0" }, agentCapabilities: {} } });
      return;
    case "session/new":
      send({ id: message.id, result: { sessionId: `s${++sessions}` } });
      return;
    case "session/prompt": {
      const { sessionId, prompt } = message.params;
      const [count, kind] = (prompt.find((b) => b.type === "text")?.text ?? "").trim().split(/\s+/);
      const lines = updates(sessionId, Number(count) || 1000, kind === "tools");
      // Written as an agent writes them: one line each, as fast as the pipe takes them.
      for (const l of lines) process.stdout.write(`${l}\n`);
      send({ id: message.id, result: { stopReason: "end_turn" } });
      return;
    }
    case "session/cancel":
      return;
    default:
      if (message.id !== undefined) send({ id: message.id, error: { code: -32601, message: `no ${message.method}` } });
  }
});
