/**
 * The ACP layer (node/acp/) against a real agent: the Claude ACP adapter (pinned) running Claude
 * Code against the mock Messages API. No Neovim is needed, so it runs once, in the newest
 * Neovim's project. Each adapter start costs a second or two: one agent serves a whole scenario.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, assert, beforeEach, describe, inject, it } from "vitest";
import { launchOf } from "../../node/acp/agents.ts";
import { AcpConnection, type AcpEvent } from "../../node/acp/connection.ts";
import { AcpError } from "../../node/acp/errors.ts";
import { environmentFiles } from "../../node/acp/files.ts";
import type { PendingPermission } from "../../node/acp/permissions.ts";
import { AcpTranscript } from "../../node/acp/transcript.ts";
import { localEnvironment } from "../../node/tools/local-environment.ts";
import { adapterAgents, groupGone, scriptAdapter, TEST_KEY } from "../helpers/acp.ts";
import { saidIn } from "../helpers/claude-code.ts";
import { alive } from "../helpers/processes.ts";
import { response, textReply } from "../mock-anthropic/script.ts";
import { MockAnthropic } from "../mock-anthropic/server.ts";

/** An agent started in a fresh project, its events folded, what tine logged collected. */
async function startAgent(mock: MockAnthropic, base: string) {
  const cwd = join(base, "project");
  mkdirSync(cwd, { recursive: true });
  const { agents, host } = adapterAgents(join(base, "home"), mock.url, cwd);
  const transcript = new AcpTranscript();
  const permissions: PendingPermission[] = [];
  const permissionWaiters: ((p: PendingPermission) => void)[] = [];
  const events: AcpEvent[] = [];
  const conn = await AcpConnection.start(launchOf(agents, "claude", cwd, host), {
    onEvent: (e) => {
      events.push(e);
      if (e.kind === "update") transcript.apply(e.update);
      if (e.kind === "permission") {
        permissions.push(e.permission);
        permissionWaiters.shift()?.(e.permission);
      }
    },
  });
  const nextPermission = () => new Promise<PendingPermission>((resolve) => permissionWaiters.push(resolve));
  const files = environmentFiles(localEnvironment(cwd));
  return { conn, cwd, transcript, permissions, nextPermission, events, files };
}

describe.runIf(inject("newestUnderTest"))("ACP connection with the Claude ACP adapter", () => {
  let mock: MockAnthropic;
  let base: string;
  let logged: string[];
  let restoreStderr: () => void;
  const started: AcpConnection[] = [];

  beforeEach(async () => {
    mock = await MockAnthropic.start();
    base = mkdtempSync(join(tmpdir(), "tine-acp-"));
    // What tine logs goes to the host's stderr (node/util/log-line.ts): kept here to be searched.
    logged = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
      logged.push(String(chunk));
      // The agent's own progress lines are kept here only (the test's output stays readable).
      return String(chunk).startsWith("tine: acp agent") || write(chunk, ...rest);
    }) as typeof process.stderr.write;
    restoreStderr = () => (process.stderr.write = write);
  });

  afterEach(async () => {
    for (const c of started.splice(0)) await c.close();
    restoreStderr();
    await mock.close();
    rmSync(base, { recursive: true, force: true });
  });

  it("initializes, prompts, asks permission for a tool the test allows, cancels a turn waiting for permission, forks at a message", async () => {
    const dir = () => join(base, "project");
    const script = scriptAdapter(
      mock,
      textReply("Hello from the mock.", { id: "msg_hello" }),
      response(
        [
          { text: "Writing." },
          { toolUse: { id: "toolu_w", name: "Write", input: { file_path: join(dir(), "out.txt"), content: "hello\n" } } },
        ],
        {
          id: "msg_write",
        },
      ),
      textReply("Written.", { id: "msg_written" }),
      response([{ toolUse: { id: "toolu_x", name: "Write", input: { file_path: join(dir(), "never.txt"), content: "no\n" } } }], {
        id: "msg_never",
      }),
    );
    const a = await startAgent(mock, base);
    started.push(a.conn);
    assert.deepEqual(
      { ...a.conn.summary, version: a.conn.summary.version !== null },
      {
        configured: "claude",
        id: "@agentclientprotocol/claude-agent-acp",
        name: "Claude Agent",
        version: true,
        protocolVersion: 1,
        load: true,
        list: true,
        resume: true,
        fork: true,
        close: true,
        prompt: { image: true, audio: false, embeddedContext: true },
        mcp: { http: true, sse: true },
      },
    );

    const session = await a.conn.newSession(a.cwd, [], a.files);
    a.transcript.prompt([{ type: "text", text: "Say hello, tine here." }]);
    const first = await a.conn.prompt(session.sessionId, [{ kind: "text", text: "Say hello, tine here." }]);
    a.transcript.endTurn(first);
    assert.equal(first.stopReason, "end_turn");
    assert.deepEqual(a.transcript.history.messages().at(-1), {
      role: "assistant",
      content: [{ type: "text", text: "Hello from the mock." }],
    });
    assert.include(saidIn(script.conversation()[0]!.body), "Say hello, tine here.");

    // Manual mode: Claude Code asks before it writes.
    await a.conn.setMode(session.sessionId, "default");
    a.transcript.prompt([{ type: "text", text: "Write out.txt" }]);
    const asked = a.nextPermission();
    const writing = a.conn.prompt(session.sessionId, [{ kind: "text", text: "Write out.txt" }]);
    const permission = await asked;
    assert.equal(permission.toolCall.toolCallId, "toolu_w");
    assert.isFalse(existsSync(join(a.cwd, "out.txt")), "nothing is written before the user answers");
    permission.select(permission.options.find((o) => o.kind === "allow_once")!.optionId);
    const written = await writing;
    a.transcript.endTurn(written);
    assert.equal(readFileSync(join(a.cwd, "out.txt"), "utf8"), "hello\n");
    const messages = a.transcript.history.messages();
    const result = messages
      .flatMap((m): readonly unknown[] => m.content)
      .find((b) => (b as { tool_use_id?: string }).tool_use_id === "toolu_w");
    assert.match((result as { content: string }).content, /^\[edit\] Write out\.txt \(completed\)\n/);
    assert.deepEqual(messages.at(-1), { role: "assistant", content: [{ type: "text", text: "Written." }] });

    // A turn cancelled while its permission waits: the permission is answered "cancelled", nothing is written.
    const askedAgain = a.nextPermission();
    const never = a.conn.prompt(session.sessionId, [{ kind: "text", text: "Write never.txt" }]);
    const pending = await askedAgain;
    await a.conn.cancel(session.sessionId);
    assert.deepEqual(await pending.answer, { outcome: "cancelled" });
    assert.equal((await never).stopReason, "cancelled");
    assert.isFalse(existsSync(join(a.cwd, "never.txt")));

    // A fork at the first reply (its messageId is the API message's id) holds that exchange only,
    // and takes a prompt at once (0.101.0 starts the forked session; no session/resume needed).
    const fork = await a.conn.forkSession(session.sessionId, a.cwd, [], a.files, "msg_hello");
    const sent = script.conversation().length;
    script.reply(textReply("From the fork.", { id: "msg_fork" }));
    assert.equal((await a.conn.prompt(fork.sessionId, [{ kind: "text", text: "In the fork" }])).stopReason, "end_turn");
    const forkSaid = saidIn(script.conversation()[sent]!.body);
    assert.includeMembers(forkSaid, ["Say hello, tine here.", "Hello from the mock.", "In the fork"]);
    assert.notInclude(forkSaid.join("\n"), "Write out.txt");

    // The key went to the agent (it reached the mock) and nowhere tine writes.
    assert.equal(script.conversation()[0]!.headers["x-api-key"], TEST_KEY);
    const tineLog = logged.filter((l) => l.startsWith("tine: acp agent"));
    assert.isAbove(tineLog.length, 0, "the agent's stderr is logged");
    assert.notInclude(logged.join(""), TEST_KEY);
    assert.notInclude(JSON.stringify(a.events), TEST_KEY);
  });

  it("an agent killed mid-turn is a clear error, and nothing of it is left running", async () => {
    scriptAdapter(mock, response([{ text: "Partial answer", holdInside: { hold: "mid", afterDeltas: 1 } }]));
    const a = await startAgent(mock, base);
    started.push(a.conn);
    const session = await a.conn.newSession(a.cwd, [], a.files);
    const turn = a.conn.prompt(session.sessionId, [{ kind: "text", text: "Answer slowly" }]);
    await mock.reached("mid");
    const pid = a.conn.pid!;
    process.kill(pid, "SIGKILL");
    const error = await turn.then(
      () => null,
      (e: unknown) => e,
    );
    assert.instanceOf(error, AcpError);
    assert.equal((error as AcpError).kind, "exited");
    assert.match((error as AcpError).message, /^tine: ACP agent "claude" was killed \(SIGKILL\) during session\/prompt/);
    const ended = a.events.find((e) => e.kind === "ended");
    assert.equal(ended?.kind === "ended" && ended.error?.kind, "exited");
    assert.isFalse(alive(pid));
    // Claude Code, which the adapter started in its group, goes with it.
    await groupGone(pid);
  });

  it("after a restart, a session resumes in a new agent process, and loads with its conversation replayed into the same History", async () => {
    const script = scriptAdapter(mock, textReply("Remember 42.", { id: "msg_first" }), textReply("It was 42.", { id: "msg_again" }));
    const first = await startAgent(mock, base);
    started.push(first.conn);
    const { sessionId } = await first.conn.newSession(first.cwd, [], first.files);
    first.transcript.prompt([{ type: "text", text: "Remember a number" }]);
    first.transcript.endTurn(await first.conn.prompt(sessionId, [{ kind: "text", text: "Remember a number" }]));
    await first.conn.close();

    const second = await startAgent(mock, base);
    started.push(second.conn);
    await second.conn.loadSession(sessionId, second.cwd, [], second.files);
    second.transcript.endTurn({ stopReason: "end_turn" });
    assert.deepEqual(second.transcript.history.messages(), first.transcript.history.messages());

    const third = await startAgent(mock, base);
    started.push(third.conn);
    await third.conn.resumeSession(sessionId, third.cwd, [], third.files);
    const sent = script.conversation().length;
    await third.conn.prompt(sessionId, [{ kind: "text", text: "Which number?" }]);
    assert.includeMembers(saidIn(script.conversation()[sent]!.body), ["Remember a number", "Remember 42.", "Which number?"]);
  });

  it("a command that is not installed is a clear error", async () => {
    const launch = { name: "ghost", program: join(base, "no-such-agent"), args: [], env: {}, cwd: base };
    const error = await AcpConnection.start(launch, { onEvent: () => {} }).then(
      () => null,
      (e: unknown) => e,
    );
    assert.instanceOf(error, AcpError);
    assert.equal((error as AcpError).kind, "not-installed");
    assert.equal(
      (error as AcpError).message,
      `tine: ACP agent "ghost": \`${join(base, "no-such-agent")}\` was not found: install it, or set acp_agents.ghost.command`,
    );
  });
});
