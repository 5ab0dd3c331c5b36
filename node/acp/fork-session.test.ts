/**
 * Where an ACP fork is taken and what it asks of its agent (the real adapter is in
 * test/integration/acp-fork.test.ts): a scripted connection records the calls.
 */
import { describe, expect, it } from "vitest";
import { History } from "../core/history.ts";
import { assistantMessage, entry, userMessage } from "../core/native.ts";
import type { AcpConnection } from "./connection.ts";
import { type ForkSource, prepareAcpFork } from "./fork-session.ts";

const usage = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
const user = (text: string) => entry(userMessage([{ type: "text", text }]));
const reply = (text: string, id: string) =>
  entry(assistantMessage([{ type: "text", text }]), { stopReason: "end_turn", usage, agentMessageIds: [id] });
// Two finished turns, then a prompt in flight (its reply streaming: not yet in the settled entries).
const HISTORY = History.of([
  user("one"),
  reply("reply one", "msg_1"),
  user("two"),
  reply("reply two", "msg_2"),
  user("three"),
  entry(assistantMessage([{ type: "text", text: "streaming…" }])),
]);

function agent(summary: { fork: boolean; id: string | null }) {
  const calls: string[] = [];
  const conn = {
    summary: { ...summary, resume: true, load: false },
    async forkSession(id: string, cwd: string, servers: { name: string }[], _f: unknown, at?: string) {
      calls.push(`fork ${id} in ${cwd}${at ? ` at ${at}` : ""}${servers.map((s) => ` with ${s.name}`).join("")}`);
      return { sessionId: "forked", response: {} };
    },
    async newSession(cwd: string, servers: { name: string }[]) {
      calls.push(`new in ${cwd}${servers.map((s) => ` with ${s.name}`).join("")}`);
      return { sessionId: "fresh", response: {} };
    },
    async setMode(id: string, mode: string) {
      calls.push(`mode ${id} ${mode}`);
    },
  } as unknown as AcpConnection;
  return { conn, calls };
}

function source(conn: AcpConnection, over: Partial<ForkSource> = {}): ForkSource {
  return {
    agent: "claude",
    sessionId: "src",
    cwd: "/p",
    files: {} as never,
    history: HISTORY,
    settledLength: 5,
    busy: true,
    session: async () => conn,
    connection: async () => conn,
    mode: "default",
    mcpServers: () => [],
    ...over,
  };
}

const CLAUDE = { fork: true, id: "@agentclientprotocol/claude-agent-acp" };

describe("prepareAcpFork", () => {
  it("the fork's session gets tine's MCP servers as a new session does, whichever way it is made", async () => {
    const servers = () => [{ name: "echo", command: "echo-server", args: [], env: [] }];
    const native = agent(CLAUDE);
    await prepareAcpFork(source(native.conn, { mcpServers: servers, busy: false }), 1);
    expect(native.calls[0]).toBe("fork src in /p at msg_1 with echo");
    const seeded = agent({ fork: false, id: null });
    await prepareAcpFork(source(seeded.conn, { mcpServers: servers, busy: false }), 1);
    expect(seeded.calls[0]).toBe("new in /p with echo");
  });

  it("while the source streams or waits for a permission: at its last finished reply, by its id; the prompt in flight stays the source's", async () => {
    const { conn, calls } = agent(CLAUDE);
    const { atMessage, fork } = await prepareAcpFork(source(conn), undefined);
    expect(calls).toEqual(["fork src in /p at msg_2", "mode forked default"]);
    expect(atMessage).toBe(3);
    expect(fork.history.length).toBe(4);
    expect(fork.seeded).toBeNull();
  });

  it("`F` on a prompt: forked at the reply before it, the prompt carried to be answered again", async () => {
    const { conn, calls } = agent(CLAUDE);
    const { atMessage, fork } = await prepareAcpFork(source(conn, { busy: false }), 2);
    expect(calls[0]).toBe("fork src in /p at msg_1");
    expect(atMessage).toBe(2);
    expect(fork.history.last()!.message).toEqual(userMessage([{ type: "text", text: "two" }]));
  });

  it("a session that cannot be taken up: a new session, seeded with the conversation up to the point, said approximate", async () => {
    const { conn, calls } = agent(CLAUDE);
    const { fork } = await prepareAcpFork(source(conn, { busy: false, session: () => Promise.reject(new Error("gone")), cwd: "/wt" }), 1);
    expect(calls).toEqual(["new in /wt", "mode fresh default"]);
    expect(fork.cwd).toBe("/wt");
    expect(fork.seeded?.note).toMatch(/^≈ approximate fork: .*; its session can no longer be taken up$/);
    expect(fork.seeded?.seed).toMatch(/User: one\n\nAssistant: reply one\n\n<\/conversation>/);
    expect(fork.seeded?.seed).not.toMatch(/two/);
  });

  it("an agent that forks only at the tip: the whole session at the latest reply, seeded before it", async () => {
    const tip = { fork: true, id: "opencode" };
    const latest = agent(tip);
    // Its latest reply: the source at rest after two turns.
    await prepareAcpFork(source(latest.conn, { busy: false, history: HISTORY.prefix(4), settledLength: 4 }), undefined);
    expect(latest.calls[0]).toBe("fork src in /p");
    const earlier = agent(tip);
    const { fork } = await prepareAcpFork(source(earlier.conn, { busy: false }), 1);
    expect(earlier.calls[0]).toBe("new in /p");
    expect(fork.seeded?.note).toMatch(/the agent forks only at its latest message$/);
  });
});
