/**
 * The connection's answers to an agent that misbehaves, with a scripted peer
 * (test/acp-peers/scripted-agent.mjs) since a real agent cannot be made to: a hang, an exit at
 * start, noise on stdout, a reply that is not JSON, a permission it never withdraws. The real
 * agent's paths are in test/integration/acp-connection.test.ts.
 */
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, assert, describe, it } from "vitest";
import type { AcpLaunch } from "./agents.ts";
import { AcpConnection, type AcpEvent } from "./connection.ts";
import { AcpError } from "./errors.ts";

const PEER = join(import.meta.dirname, "../../test/acp-peers/scripted-agent.mjs");
const noFiles = { readTextFile: () => Promise.reject(new Error("no")), writeTextFile: () => Promise.reject(new Error("no")) };

/** A launch of the peer with `script`, marked so the test can find its process afterwards. */
function peer(script: string): AcpLaunch & { marker: string } {
  const marker = `tine-test-${randomUUID()}`;
  return {
    name: "scripted",
    program: process.execPath,
    args: [PEER, script, marker],
    env: { PATH: process.env["PATH"] ?? "" },
    cwd: "/",
    marker,
  };
}

/** Whether a process whose command line holds `marker` still runs. */
function running(marker: string): boolean {
  return readdirSync("/proc").some((pid) => {
    try {
      return (
        /^\d+$/.test(pid) &&
        readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(marker) &&
        !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"))
      );
    } catch {
      return false;
    }
  });
}

const failure = (p: Promise<unknown>) =>
  p.then(
    () => assert.fail("it was to fail"),
    (e: unknown) => {
      assert.instanceOf(e, AcpError);
      return e as AcpError;
    },
  );

const open: AcpConnection[] = [];
afterEach(async () => {
  for (const c of open.splice(0)) await c.close();
});

async function start(launch: AcpLaunch, onEvent: (e: AcpEvent) => void = () => {}, requestTimeoutMs?: number) {
  const conn = await AcpConnection.start(launch, { onEvent, ...(requestTimeoutMs ? { requestTimeoutMs } : {}) });
  open.push(conn);
  return conn;
}

describe("AcpConnection with a misbehaving agent", () => {
  it("one that never answers initialize: a timed-out error, and its process is stopped", async () => {
    const launch = peer("hang");
    const error = await failure(AcpConnection.start(launch, { onEvent: () => {}, initializeTimeoutMs: 300 }));
    assert.equal(error.kind, "timed-out");
    assert.equal(error.message, 'tine: ACP agent "scripted" did not answer initialize within 0.3 s');
    assert.isFalse(running(launch.marker));
  });

  it("one that exits at start: initialize failed, with how it ended and what it wrote", async () => {
    const error = await failure(AcpConnection.start(peer("exit"), { onEvent: () => {} }));
    assert.equal(error.kind, "initialize-failed");
    assert.equal(
      error.message,
      'tine: ACP agent "scripted" failed to initialize: it exited with code 3; it wrote: scripted agent: cannot start',
    );
  });

  it("a line on stdout that is not a message is dropped and reported; the protocol goes on", async () => {
    const events: AcpEvent[] = [];
    const conn = await start(peer("noise"), (e) => events.push(e));
    assert.deepEqual(events, [{ kind: "noise", line: "Starting scripted agent v1..." }]);
    assert.equal(conn.summary.name, "scripted");
    assert.equal((await conn.newSession("/", [], noFiles)).sessionId, "s1");
  });

  it("an answer that is not JSON leaves the request unanswered: a timed-out error, the host unharmed", async () => {
    const conn = await start(peer("malformed"), () => {}, 300);
    const error = await failure(conn.newSession("/", [], noFiles));
    assert.equal(error.kind, "timed-out");
    assert.equal(error.message, 'tine: ACP agent "scripted" did not answer session/new within 0.3 s');
  });

  it('cancel answers the turn\'s pending permission "cancelled", though the agent never withdrew it', { timeout: 10_000 }, async () => {
    const texts: string[] = [];
    let asked!: (p: AcpEvent) => void;
    const permission = new Promise<AcpEvent>((resolve) => (asked = resolve));
    const conn = await start(peer("permission"), (e) => {
      if (e.kind === "permission") asked(e);
      if (e.kind === "update" && e.update.sessionUpdate === "agent_message_chunk" && e.update.content.type === "text")
        texts.push(e.update.content.text);
    });
    const { sessionId } = await conn.newSession("/", [], noFiles);
    const turn = conn.prompt(sessionId, [{ kind: "text", text: "go" }]);
    await permission;
    await conn.cancel(sessionId);
    assert.equal((await turn).stopReason, "cancelled");
    assert.deepEqual(texts, ['permission: {"outcome":"cancelled"}']);
  });

  it.each([
    ["an update the SDK refuses", "refused"],
    ['a request that holds the words "session/update"', "mention"],
  ])("after %s, text chunks are read by hand again (as the hand check makes them: no `_meta`)", async (_, script) => {
    const updates: unknown[] = [];
    const conn = await start(peer(script), (e) => {
      if (e.kind === "update") updates.push(e.update);
    });
    const { sessionId } = await conn.newSession("/", [], noFiles);
    for (let turn = 0; turn < 3; turn++)
      assert.equal((await conn.prompt(sessionId, [{ kind: "text", text: "go" }])).stopReason, "end_turn");
    // The refused update never reaches tine; the later ones come by hand, so without the agent's `_meta`.
    assert.deepEqual(updates, [
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "turn 2" } },
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "turn 3" } },
    ]);
  });

  it("an update whose method is spelled with an escaped slash keeps its place: the text chunk after it comes after it", async () => {
    const kinds: string[] = [];
    const conn = await start(peer("escaped"), (e) => {
      if (e.kind === "update") kinds.push(e.update.sessionUpdate);
    });
    const { sessionId } = await conn.newSession("/", [], noFiles);
    for (let turn = 0; turn < 2; turn++)
      assert.equal((await conn.prompt(sessionId, [{ kind: "text", text: "go" }])).stopReason, "end_turn");
    assert.deepEqual(kinds, ["available_commands_update", "agent_message_chunk", "available_commands_update", "agent_message_chunk"]);
  });

  it("closing stops the agent; a request waiting is a closed error", async () => {
    const launch = peer("permission");
    const conn = await start(launch);
    const { sessionId } = await conn.newSession("/", [], noFiles);
    const turn = failure(conn.prompt(sessionId, [{ kind: "text", text: "go" }]));
    await conn.close();
    const error = await turn;
    assert.equal(error.kind, "closed");
    assert.isFalse(running(launch.marker));
  });
});
