// A scripted ACP agent for the protocol's edge cases that a real agent cannot be made to show
// (node/acp/connection.test.ts): it speaks newline-delimited JSON-RPC by hand, so it can also
// break the protocol. The first argument picks the script:
//   hang         never answers initialize
//   exit         writes to stderr and exits 3 when asked to initialize
//   noise        prints a log line on stdout, then behaves
//   malformed    answers session/new with a line that is not JSON
//   permission   on session/prompt asks permission, waits for the answer, and says what it got;
//                it never withdraws the request itself (session/cancel only ends the turn after)
//   announce     right after answering session/new sends a message chunk (as a fork's replay
//                would) and announces its commands (as Claude's adapter does): before the client
//                can have made anything that listens to the session
//   refused      its first prompt sends an update the SDK's schema refuses (a chunk whose text is
//                a number), each later one a text chunk with `_meta`; each turn then ends
//   mention      as refused, but its first prompt reads a file named "session/update" instead
//   escaped      each prompt sends its commands as an update whose method is spelled with an
//                escaped slash ("session\/update", as PHP's JSON writer does), then a text chunk
import { createInterface } from "node:readline";

const script = process.argv[2];
const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
let nextId = 1000;
const waiting = new Map();
const request = (method, params) =>
  new Promise((resolve) => {
    const id = nextId++;
    waiting.set(id, resolve);
    send({ id, method, params });
  });
let cancelled = null;
let prompts = 0;
const update = (sessionId, update) => send({ method: "session/update", params: { sessionId, update } });

createInterface({ input: process.stdin }).on("line", async (line) => {
  const message = JSON.parse(line);
  if (message.id !== undefined && message.method === undefined) {
    waiting.get(message.id)?.(message.result);
    return;
  }
  switch (message.method) {
    case "initialize":
      if (script === "hang") return;
      if (script === "exit") {
        process.stderr.write("scripted agent: cannot start\n");
        process.exit(3);
      }
      if (script === "noise") process.stdout.write("Starting scripted agent v1...\n");
      send({ id: message.id, result: { protocolVersion: 1, agentInfo: { name: "scripted", version: "1.0" }, agentCapabilities: {} } });
      return;
    case "session/new":
      if (script === "malformed") {
        process.stdout.write(`{"jsonrpc":"2.0","id":${message.id},"result":\n`);
        return;
      }
      send({ id: message.id, result: { sessionId: "s1" } });
      if (script === "announce") {
        // A fork's replay of its source's conversation looks like this (OpenCode): not to be held.
        send({
          method: "session/update",
          params: { sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "replayed" } } },
        });
        send({
          method: "session/update",
          params: {
            sessionId: "s1",
            update: { sessionUpdate: "available_commands_update", availableCommands: [{ name: "compact", description: "Compact it" }] },
          },
        });
      }
      return;
    case "session/prompt": {
      const sessionId = message.params.sessionId;
      if (script === "escaped") {
        const commands = {
          sessionUpdate: "available_commands_update",
          availableCommands: [{ name: "compact", description: "Compact it" }],
        };
        const line = JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId, update: commands } });
        const chunk = { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "after the commands" } };
        const next = JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId, update: chunk } });
        // One write: the client reads both lines at once.
        process.stdout.write(`${line.replace('"session/update"', '"session\\/update"')}\n${next}\n`);
        send({ id: message.id, result: { stopReason: "end_turn" } });
        return;
      }
      if (script === "refused" || script === "mention") {
        const first = prompts++ === 0;
        if (first && script === "mention") await request("fs/read_text_file", { sessionId, path: "session/update" });
        else {
          const text = first ? 3 : `turn ${prompts}`;
          update(sessionId, { sessionUpdate: "agent_message_chunk", content: { type: "text", text }, _meta: { from: "scripted" } });
        }
        send({ id: message.id, result: { stopReason: "end_turn" } });
        return;
      }
      const ended = new Promise((resolve) => (cancelled = resolve));
      const answer = await request("session/request_permission", {
        sessionId,
        toolCall: { toolCallId: "t1", title: "Write x" },
        options: [{ optionId: "yes", name: "Yes", kind: "allow_once" }],
      });
      send({
        method: "session/update",
        params: {
          sessionId,
          update: {
            sessionUpdate: "agent_message_chunk",
            content: { type: "text", text: `permission: ${JSON.stringify(answer.outcome)}` },
          },
        },
      });
      if (answer.outcome.outcome === "cancelled") await ended;
      send({ id: message.id, result: { stopReason: answer.outcome.outcome === "cancelled" ? "cancelled" : "end_turn" } });
      return;
    }
    case "session/cancel":
      cancelled?.();
      return;
    default:
      if (message.id !== undefined) send({ id: message.id, error: { code: -32601, message: `no ${message.method}` } });
  }
});
