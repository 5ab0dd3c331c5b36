/**
 * The pool's sessions with a scripted peer (test/acp-peers/scripted-agent.mjs), which can be made
 * to speak at once: what an agent sends for a session before its thread listens reaches the thread.
 */
import { join } from "node:path";
import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { afterEach, assert, describe, it, vi } from "vitest";
import { AcpAgents } from "./agent-pool.ts";

const PEER = join(import.meta.dirname, "../../test/acp-peers/scripted-agent.mjs");
const noFiles = { readTextFile: () => Promise.reject(new Error("no")), writeTextFile: () => Promise.reject(new Error("no")) };

const pools: AcpAgents[] = [];
afterEach(async () => {
  for (const p of pools.splice(0)) await p.closeAll();
});

function pool(script: string, log: (line: string) => void) {
  const agents = new AcpAgents({ scripted: { command: [process.execPath, PEER, script] } }, "/", log, { PATH: process.env["PATH"] });
  pools.push(agents);
  return agents;
}

const ignore = { permission: () => {}, ended: () => {} };

describe("AcpAgents", () => {
  it("a state update sent right after session/new, before the thread listens, is given to the thread when it does; a message chunk is not", async () => {
    const logged: string[] = [];
    const agents = pool("announce", (line) => logged.push(line));
    const conn = await agents.connection("scripted");
    const { sessionId } = await conn.newSession("/", [], noFiles);
    await vi.waitFor(() =>
      assert.ok(
        logged.some((l) => l.includes(`session ${sessionId} spoke before its thread listened`)),
        logged.join("\n"),
      ),
    );
    const got: SessionUpdate[] = [];
    agents.listen("scripted", sessionId, { update: (u) => got.push(u), ...ignore });
    assert.deepEqual(got, [
      { sessionUpdate: "available_commands_update", availableCommands: [{ name: "compact", description: "Compact it" }] },
    ]);
    // Given once: a second listener (a take-up) is not told it again.
    const again: SessionUpdate[] = [];
    agents.listen("scripted", sessionId, { update: (u) => again.push(u), ...ignore });
    assert.deepEqual(again, []);
  });
});
