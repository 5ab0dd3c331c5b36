/**
 * OpenCode (`opencode acp`, pinned) as an ACP agent, offline against the mock Messages API: a
 * second real agent, one without a message-level fork. In Neovim: `:Tine agent opencode`, a
 * prompt, its reply drawn, what the mock received. Against the connection: what its
 * `session/fork` does (it forks the whole session and ignores a fork point in `_meta`, so a fork
 * of an OpenCode thread is native only at the latest message, and only while no turn runs: a fork
 * taken mid-turn holds the prompt in flight; earlier, it must be seeded).
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { launchOf } from "../../node/acp/agents.ts";
import { AcpConnection, type AcpEvent } from "../../node/acp/connection.ts";
import { environmentFiles } from "../../node/acp/files.ts";
import { localEnvironment } from "../../node/tools/local-environment.ts";
import { KEY_VARIABLE, OPENCODE_MODEL, openCodeAgent, scriptOpenCode, TEST_KEY } from "../helpers/acp.ts";
import { saidIn } from "../helpers/claude-code.ts";
import { withNeovim, withProject } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";
import { MockAnthropic } from "../mock-anthropic/server.ts";

const nv = inject("nvim");

describe(`a thread run by OpenCode (${nv.version})`, () => {
  it("`:Tine agent opencode`: its banner, a prompt and its reply drawn, the mock asked with the key and the whole conversation", async () => {
    await withProject(async (project) => {
      await withNeovim(
        nv,
        async (s) => {
          const script = scriptOpenCode(
            s.mock,
            textReply("Hello from the mock.", { id: "msg_hello" }),
            textReply("Again, hello.", { id: "msg_again" }),
          );
          await s.cmd("Tine agent opencode");
          await s.until("the thread listed", async () => (await s.threads()).length === 1);
          const id = (await s.threads())[0]!.id;
          await s.waitForDisplay(id, /◆ Run by the ACP agent "opencode" \(OpenCode [^)]*\) · session ses_\S+/);

          for (const [text, reply] of [
            ["Say hello, tine here.", "Hello from the mock."],
            ["Once more", "Again, hello."],
          ] as const) {
            await s.open(id);
            const t = await s.thread(id);
            await s.setLines(t.input_bufnr!, [text]);
            await s.focus(t.input_bufnr!);
            await s.cmd("Tine send");
            await s.waitForDisplay(id, reply);
            await s.waitForStatus(id, "idle");
          }

          const [first, second] = script.conversation();
          assert.equal(first!.body.model, OPENCODE_MODEL);
          assert.equal(first!.headers["x-api-key"], TEST_KEY);
          assert.ok(saidIn(first!.body).includes("Say hello, tine here."));
          // OpenCode's session holds the conversation: the second turn sends the first with it.
          assert.deepEqual(
            saidIn(second!.body).filter((x) => x !== ""),
            ["Say hello, tine here.", "Hello from the mock.", "Once more"],
          );
          assert.deepEqual(await s.messages(id), [
            { role: "user", content: [{ type: "text", text: "Say hello, tine here." }] },
            { role: "assistant", content: [{ type: "text", text: "Hello from the mock." }] },
            { role: "user", content: [{ type: "text", text: "Once more" }] },
            { role: "assistant", content: [{ type: "text", text: "Again, hello." }] },
          ]);
          // The key went to OpenCode (it reached the mock), and into nothing tine stored.
          const stored = join(project, ".data");
          const files = readdirSync(stored, { recursive: true, encoding: "utf8" }).filter((f) => statSync(join(stored, f)).isFile());
          assert.ok(
            files.some((f) => f.endsWith(".jsonl")),
            "the thread is stored",
          );
          for (const f of files) assert.ok(!readFileSync(join(stored, f), "utf8").includes(TEST_KEY), `${f} holds the key`);

          // Forks through tine. At the latest message: OpenCode's own fork of the whole session.
          script.reply(textReply("Tip fork answer.", { id: "msg_tip" }), textReply("Early fork answer.", { id: "msg_early" }));
          const atTip = script.conversation().length;
          const tip = await s.lua<string>("return require('tine').fork(...)", id, "Fork at the tip");
          await s.waitForDisplay(tip, "Tip fork answer.");
          assert.doesNotMatch(await s.display(tip), /≈ approximate fork/, "a native fork");
          // The fork holds the conversation once: OpenCode's replay of it into the new session is not drawn again.
          await s.waitForStatus(tip, "idle");
          assert.deepEqual(
            (await s.messages(tip)).map((m) => m.content.map((c) => ("text" in c ? c.text : c.type)).join("")),
            ["Say hello, tine here.", "Hello from the mock.", "Once more", "Again, hello.", "Fork at the tip", "Tip fork answer."],
          );
          assert.deepEqual(
            saidIn(script.conversation()[atTip]!.body).filter((x) => x !== ""),
            ["Say hello, tine here.", "Hello from the mock.", "Once more", "Again, hello.", "Fork at the tip"],
          );
          // At an earlier message: OpenCode forks only at its tip, so the fork is a new session told
          // the conversation up to that point, and says so.
          const atEarly = script.conversation().length;
          const early = await s.lua<string>("local id, p = ...; return require('tine').fork(id, p, { at_message = 1 })", id, "Fork early");
          await s.waitForDisplay(early, "Early fork answer.");
          await s.waitForDisplay(early, /≈ approximate fork: .*tool calls as text, no thinking, no prompt cache/);
          const told = saidIn(script.conversation()[atEarly]!.body).join("\n");
          assert.match(told, /Say hello, tine here\.[\s\S]*Hello from the mock\.[\s\S]*Fork early/);
          assert.doesNotMatch(told, /Once more|Again, hello/, "nothing after the fork point");
          await s.openList();
          await s.listLine("[opencode ≈]");
          assert.deepEqual((await s.messages(id)).length, 4, "the source is untouched");
        },
        {
          cwd: project,
          env: { [KEY_VARIABLE]: TEST_KEY },
          setup: { acp_agents: { opencode: openCodeAgent(join(project, ".opencode-home"), `\${ANTHROPIC_BASE_URL}`) } },
        },
      );
    });
  });
});

describe.runIf(inject("newestUnderTest"))("OpenCode's session/fork, through tine's ACP connection", () => {
  it("forks the whole session whatever fork point `_meta` names, replays it on the fork, takes a prompt at once; mid-turn, holds the prompt in flight", async () => {
    const mock = await MockAnthropic.start();
    const base = mkdtempSync(join(tmpdir(), "tine-opencode-"));
    const cwd = join(base, "project");
    mkdirSync(cwd);
    const events: AcpEvent[] = [];
    let conn: AcpConnection | undefined;
    try {
      const script = scriptOpenCode(mock, textReply("First answer."), textReply("Second answer."), textReply("From the fork."));
      const agents = { opencode: openCodeAgent(join(base, "home"), mock.url) };
      conn = await AcpConnection.start(launchOf(agents, "opencode", cwd, { PATH: process.env["PATH"] ?? "", [KEY_VARIABLE]: TEST_KEY }), {
        onEvent: (e) => events.push(e),
      });
      assert.equal(conn.summary.name, "OpenCode");
      assert.equal(conn.summary.fork, true);
      const files = environmentFiles(localEnvironment(cwd));
      const { sessionId } = await conn.newSession(cwd, [], files);
      await conn.prompt(sessionId, [{ kind: "text", text: "First question" }]);
      await conn.prompt(sessionId, [{ kind: "text", text: "Second question" }]);

      // The id of the first answer, as OpenCode streamed it: the fork point a message-level fork would take.
      const firstAnswerId = events
        .flatMap((e) =>
          e.kind === "update" && e.sessionId === sessionId && e.update.sessionUpdate === "agent_message_chunk" ? [e.update] : [],
        )
        .map((u) => (u as { messageId?: string }).messageId)[0];
      assert.ok(firstAnswerId, "OpenCode names the messages it streams");

      const fork = await conn.forkSession(sessionId, cwd, [], files, firstAnswerId);
      assert.notEqual(fork.sessionId, sessionId);
      // Before answering, it replays the whole source conversation as the fork's updates (under new message ids).
      const replayed = events.flatMap((e) => {
        if (e.kind !== "update" || e.sessionId !== fork.sessionId) return [];
        const u = e.update;
        return (u.sessionUpdate === "user_message_chunk" || u.sessionUpdate === "agent_message_chunk") && u.content.type === "text"
          ? [`${u.sessionUpdate}: ${u.content.text}`]
          : [];
      });
      assert.deepEqual(replayed, [
        "user_message_chunk: First question",
        "agent_message_chunk: First answer.",
        "user_message_chunk: Second question",
        "agent_message_chunk: Second answer.",
      ]);

      // Prompted without a resume, the fork sends the whole conversation: the fork point was ignored.
      assert.equal((await conn.prompt(fork.sessionId, [{ kind: "text", text: "In the fork" }])).stopReason, "end_turn");
      assert.deepEqual(
        saidIn(script.conversation().at(-1)!.body).filter((x) => x !== ""),
        ["First question", "First answer.", "Second question", "Second answer.", "In the fork"],
      );

      // Forked while the source streams a reply, the fork holds the source's prompt in flight (not
      // its partial reply), and its own first prompt joins that one: so not at the last completed message.
      script.reply(response([{ text: "Slow and then more", holdInside: { hold: "slow", afterDeltas: 1 } }]), textReply("Fork's answer."));
      const streaming = conn.prompt(sessionId, [{ kind: "text", text: "Third question" }]);
      await mock.reached("slow");
      const midTurn = await conn.forkSession(sessionId, cwd, [], files);
      await conn.prompt(midTurn.sessionId, [{ kind: "text", text: "Fork mid-turn" }]);
      const forkSaid = saidIn(script.conversation().at(-1)!.body).filter((x) => x !== "");
      assert.deepEqual(forkSaid.slice(-2), ["Third question", "Fork mid-turn"]);
      assert.ok(!forkSaid.some((x) => x.includes("Slow")), "the partial reply is not in the fork");
      mock.release("slow");
      assert.equal((await streaming).stopReason, "end_turn");
    } finally {
      await conn?.close();
      await mock.close();
      rmSync(base, { recursive: true, force: true });
    }
  });
});
