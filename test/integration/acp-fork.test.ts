/**
 * Forks of a thread run by an ACP agent, in a real Neovim, with the real Claude ACP adapter against
 * the mock Messages API: what the API gets is what the fork holds. A fork at a message is the
 * agent's own fork at that reply (`session/fork` naming its id): the fork's first request holds
 * the conversation up to there, then its prompt. A fork taken while the source streams is taken at
 * its last finished reply, and the source's turn runs on untouched.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { adapterAgents, KEY_VARIABLE, scriptAdapter, TEST_KEY } from "../helpers/acp.ts";
import { saidIn } from "../helpers/claude-code.ts";
import { type Session, withNeovim, withProject } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");

async function sendIn(s: Session, id: string, text: string): Promise<void> {
  await s.open(id);
  const t = await s.thread(id);
  await s.setLines(t.input_bufnr!, [text]);
  await s.focus(t.input_bufnr!);
  await s.cmd("Tine send");
}

/** The session id its banner names. */
async function sessionOf(s: Session, id: string): Promise<string> {
  const m = /· session (\S+)/.exec(await s.display(id));
  if (!m) throw new Error(`no session in the banner of ${id}`);
  return m[1]!;
}

describe(`forks of a thread run by an ACP agent (${nv.version})`, () => {
  it("a fork at a message is the agent's fork at that reply; a fork while it streams is taken at its last finished reply, the source untouched", async () => {
    await withProject(async (project) => {
      const { agents } = adapterAgents(join(project, ".acp-home"), `\${ANTHROPIC_BASE_URL}`, project);
      await withNeovim(
        nv,
        async (s) => {
          const script = scriptAdapter(
            s.mock,
            textReply("Reply one.", { id: "msg_one" }),
            textReply("Reply two.", { id: "msg_two" }),
            textReply("Reply three.", { id: "msg_three" }),
            textReply("Forked answer.", { id: "msg_fork" }),
          );
          const id = await s.lua<string>("return require('tine').agent('claude')");
          await s.waitForDisplay(id, /◆ Run by the ACP agent "claude" \(Claude Agent [^)]*\) · session \S+/);
          for (const [n, word] of [
            ["one", "One"],
            ["two", "Two"],
            ["three", "Three"],
          ] as const) {
            await sendIn(s, id, `Prompt ${word}`);
            await s.waitForDisplay(id, `Reply ${n}.`);
            await s.waitForStatus(id, "idle");
          }
          const source = await s.messages(id);
          assert.equal(source.length, 6);

          // `fork(id, p, { at_message = 3 })`: at "Reply two.".
          const requests = script.conversation().length;
          const fork = await s.lua<string>(
            "local id, p = ...; return require('tine').fork(id, p, { at_message = 3 })",
            id,
            "Fork question",
          );
          await s.waitForDisplay(fork, "Forked answer.");
          const first = script.conversation()[requests]!;
          const said = saidIn(first.body);
          for (const kept of ["Prompt One", "Reply one.", "Prompt Two", "Reply two."])
            assert.ok(
              said.some((t) => t.includes(kept)),
              kept,
            );
          assert.ok(
            !said.some((t) => t.includes("Three") || t.includes("three")),
            `the fork's request holds nothing after its point: ${said}`,
          );
          assert.ok(said.at(-1)!.includes("Fork question") || said.some((t) => t.includes("Fork question")));
          assert.notEqual(await sessionOf(s, fork), await sessionOf(s, id));
          assert.deepEqual(
            (await s.messages(fork)).map((m) => m.content.map((b) => ("text" in b ? b.text : b.type)).join("")),
            ["Prompt One", "Reply one.", "Prompt Two", "Reply two.", "Fork question", "Forked answer."],
          );
          assert.deepEqual(await s.messages(id), source, "the source is untouched");

          // While the source streams: a fork at its last finished reply; the source's turn runs on.
          script.reply(
            response([{ text: "Slow four and then", holdInside: { hold: "h", afterDeltas: 1 } }], { id: "msg_four" }),
            textReply("Mid-stream fork answer.", { id: "msg_mid" }),
          );
          await sendIn(s, id, "Prompt Four");
          await s.waitForDisplay(id, "Slow");
          const before = script.conversation().length;
          const mid = await s.lua<string>("return require('tine').fork(...)", id, "Mid question");
          await s.waitForDisplay(mid, "Mid-stream fork answer.");
          const midSaid = saidIn(script.conversation()[before]!.body);
          assert.ok(
            midSaid.some((t) => t.includes("Reply three.")),
            "up to its last finished reply",
          );
          assert.ok(!midSaid.some((t) => t.includes("Prompt Four") || t.includes("Slow")), `not the turn in flight: ${midSaid}`);
          assert.equal((await s.thread(id)).status, "streaming");
          s.mock.release("h");
          await s.waitForDisplay(id, "Slow four and then");
          await s.waitForStatus(id, "idle");
          assert.equal((await s.messages(id)).length, 8);
          assert.equal((await s.messages(mid)).length, 8);
        },
        { cwd: project, env: { [KEY_VARIABLE]: TEST_KEY }, setup: { acp_agents: agents } },
      );
    });
  });
});
