/**
 * The ACP runner against a scripted agent process (the real adapter is in
 * test/integration/acp-thread.test.ts): how a stored session is taken up (resume, else load with
 * its replay dropped, else said), the mode set after it, and what an agent's words become on screen.
 */

import { describe, expect, it } from "vitest";
import { writeContextBlock } from "../context/blocks.ts";
import type { AgentMsg } from "../core/agent.ts";
import { History } from "../core/history.ts";
import type { AcpAgents, SessionEvents } from "./agent-pool.ts";
import type { AcpConnection } from "./connection.ts";
import { acpKind } from "./kind.ts";
import { PendingPermission } from "./permissions.ts";
import { AcpRunner } from "./runner.ts";
import type { AgentSummary } from "./summary.ts";

const SUMMARY: AgentSummary = {
  configured: "x",
  name: "Scripted\nAgent",
  id: null,
  version: "1",
  protocolVersion: 1,
  load: true,
  list: false,
  resume: false,
  fork: false,
  close: false,
  prompt: { image: false, audio: false, embeddedContext: false },
  mcp: { http: false, sse: false },
};

/** A pool whose one agent answers as `summary` says, recording the calls it gets. */
function scripted(summary: AgentSummary, mode: string | null = null) {
  const calls: string[] = [];
  let events: SessionEvents | null = null;
  const conn = {
    summary,
    async resumeSession(id: string) {
      calls.push(`resume ${id}`);
      return { sessionId: id, response: {} };
    },
    async loadSession(id: string) {
      calls.push(`load ${id}`);
      // A load replays the conversation before it answers: tine holds it already.
      events?.update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "replayed" } });
      // What it says of the session's state meanwhile is kept (Claude's adapter announces its commands then).
      events?.update({ sessionUpdate: "available_commands_update", availableCommands: [{ name: "review", description: "Review" }] });
      return { sessionId: id, response: {} };
    },
    async setMode(id: string, m: string) {
      calls.push(`mode ${id} ${m}`);
    },
    async prompt(id: string) {
      calls.push(`prompt ${id}`);
      return { stopReason: "end_turn" };
    },
    async cancel() {},
  } as unknown as AcpConnection;
  const pool = {
    config: {},
    cwd: "/p",
    connection: async () => conn,
    current: () => conn,
    modeOf: () => mode,
    mcpServersFor: () => [],
    listen: (_name: string, _id: string, e: SessionEvents) => {
      events = e;
      return () => {};
    },
  } as unknown as AcpAgents;
  return { pool, calls, events: () => events! };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

function reopened(pool: AcpAgents, msgs: AgentMsg[] = []) {
  const stored = History.empty;
  return new AcpRunner({ pool, cwd: "/p", files: () => ({}) as never }, "x", "s1", (m) => msgs.push(m), stored, null);
}

describe("a thread run by an ACP agent", () => {
  it("opened again, loads its session where the agent cannot resume it, drops the replay but not the commands it announced, and sets the configured mode", async () => {
    const { pool, calls } = scripted(SUMMARY, "default");
    const runner = reopened(pool);
    await settle();
    expect(calls).toEqual(["load s1", "mode s1 default"]);
    expect(runner.history.length).toBe(0);
    expect(runner.agentCommands().map((c) => c.name)).toEqual(["review"]);
    // The agent's own words, one line whatever they hold.
    expect(runner.banner()).toEqual(['◆ Run by the ACP agent "x" (Scripted Agent 1) · session s1']);
  });

  it("resumes where it can; where it can neither, says so in the thread and a send fails keeping the text", async () => {
    const resumes = scripted({ ...SUMMARY, resume: true });
    reopened(resumes.pool);
    await settle();
    expect(resumes.calls).toEqual(["resume s1"]);

    const neither = scripted({ ...SUMMARY, load: false });
    const msgs: AgentMsg[] = [];
    const runner = reopened(neither.pool, msgs);
    await settle();
    expect(runner.banner()[1]).toMatch(/^⚠ its session could not be taken up: .*can neither resume nor load sessions/);
    runner.send([{ type: "text", text: "hello?" }]);
    await settle();
    expect(runner.status.type).toBe("error");
    expect(runner.history.messages()).toEqual([{ role: "user", content: [{ type: "text", text: "hello?" }] }]);
    expect(neither.calls).toEqual([]);
  });

  it("a permission waits for the user: the thread is waiting, the options are the agent's, an answer the agent did not offer is refused", async () => {
    const { pool, events } = scripted({ ...SUMMARY, resume: true });
    const runner = reopened(pool);
    await settle();
    const permission = new PendingPermission(
      {
        sessionId: "s1",
        toolCall: { toolCallId: "t1", title: "Write\nout.txt" },
        options: [
          { optionId: "yes", kind: "allow_once", name: "Allow" },
          { optionId: "no", kind: "reject_once", name: "Reject" },
        ],
      },
      new AbortController().signal,
    );
    events().permission(permission);
    expect(runner.threadStatus()).toBe("waiting");
    expect(runner.questions.pending()).toEqual([
      {
        toolId: "t1",
        title: "Write out.txt",
        options: [
          { kind: "allow_once", name: "Allow" },
          { kind: "reject_once", name: "Reject" },
        ],
      },
    ]);
    expect(() => runner.questions.answer("t1", "allow_always")).toThrow('offered no "allow always" answer');
    expect(runner.questions.answer("t1", "reject_once")).toBe(true);
    expect(await permission.answer).toEqual({ outcome: "selected", optionId: "no" });
    await settle();
    expect(runner.threadStatus()).toBe("idle");
  });

  it("R sends the last prompt again as it was sent: its `@file` as a resource, not as text", async () => {
    const { pool } = scripted({ ...SUMMARY, resume: true });
    const conn = (await pool.connection("x")) as unknown as { prompt: (id: string, parts: { kind: string }[]) => Promise<unknown> };
    const sent: string[][] = [];
    conn.prompt = (_id, parts) => {
      sent.push(parts.map((p) => p.kind));
      return Promise.resolve({ stopReason: "end_turn" });
    };
    const runner = reopened(pool);
    await settle();
    const file = writeContextBlock({ kind: "file", path: "notes.md", text: "the plan\n", unsaved: false, changed: false });
    runner.send([
      { type: "text", text: file },
      { type: "text", text: "What does @file:notes.md say?" },
    ]);
    await settle();
    runner.retry();
    await settle();
    expect(sent).toEqual([
      ["file", "text"],
      ["file", "text"],
    ]);
  });

  it("a call denied with a reason (`D`): rejected, and the reason is the next prompt once the turn ends, drawn as sent", async () => {
    const { pool, events } = scripted({ ...SUMMARY, resume: true });
    const conn = (await pool.connection("x")) as unknown as { prompt: (id: string, parts: { text?: string }[]) => Promise<unknown> };
    const prompts: string[] = [];
    let endTurn: () => void = () => {};
    conn.prompt = (_id, parts) => {
      prompts.push(parts.map((p) => p.text ?? "").join("|"));
      return prompts.length === 1
        ? new Promise((r) => (endTurn = () => r({ stopReason: "end_turn" })))
        : Promise.resolve({ stopReason: "end_turn" });
    };
    const runner = reopened(pool);
    await settle();
    runner.send([{ type: "text", text: "Write it" }]);
    await settle();
    const permission = new PendingPermission(
      {
        sessionId: "s1",
        toolCall: { toolCallId: "t1", title: "Write out.txt" },
        options: [{ optionId: "no", kind: "reject_once", name: "Reject" }],
      },
      new AbortController().signal,
    );
    events().permission(permission);
    expect(runner.questions.answer("t1", "reject_once", "  use notes.md  ")).toBe(true);
    expect(await permission.answer).toEqual({ outcome: "selected", optionId: "no" });
    expect(prompts).toEqual(["Write it"]);
    endTurn();
    await settle();
    await settle();
    expect(prompts).toEqual(["Write it", "I denied Write out.txt. Why: use notes.md"]);
    expect(runner.history.messages().at(-1)).toEqual({
      role: "user",
      content: [{ type: "text", text: "I denied Write out.txt. Why: use notes.md" }],
    });
  });

  it("a stored thread of an agent no longer configured, or of a folder refused, is told; its label names the agent and forking it is refused plainly", () => {
    const { pool } = scripted(SUMMARY);
    const kind = acpKind({
      pool,
      cwd: "/p",
      files: () => ({}) as never,
      folderRefused: (cwd) => (cwd === "/elsewhere" ? "not tine's" : null),
    });
    const spec = { kind: "acp" as const, agent: "gone", sessionId: "s1", cwd: "/elsewhere" };
    expect(kind.storedNotices(spec, "T").map((n) => n.key)).toEqual(["agent", "folder"]);
    expect(kind.storedNotices(spec, "T")[0]!.text).toBe(
      'tine: T: its ACP agent "gone" is no longer in acp_agents: it opens, and sends once acp_agents names it again',
    );
    expect(kind.label(spec)).toBe("[gone] ");
    expect(kind.label({ ...spec, approximate: true })).toBe("[gone ≈] ");
  });
});
