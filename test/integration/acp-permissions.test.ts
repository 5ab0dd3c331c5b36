/**
 * An ACP agent's permission requests beyond `a` / `d`, in a real Neovim with the real Claude ACP
 * adapter (pinned) against the mock Messages API: `D` (deny, saying why) rejects the call and the
 * agent is told why as soon as its turn ends; a fork taken while a permission waits is taken at the
 * last finished reply, without the permission, which waits on in its source and is answered there.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { adapterAgents, KEY_VARIABLE, scriptAdapter, sendIn, TEST_KEY } from "../helpers/acp.ts";
import { saidIn } from "../helpers/claude-code.ts";
import { withNeovim, withProject } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");

/** `claude` in "default" mode: Claude Code asks before it writes. */
function agentsFor(project: string) {
  const { agents } = adapterAgents(join(project, ".acp-home"), `\${ANTHROPIC_BASE_URL}`, project);
  return { claude: { ...agents["claude"], mode: "default" } };
}

const write = (id: string, path: string) =>
  response([{ toolUse: { id: `toolu_${id}`, name: "Write", input: { file_path: path, content: "x\n" } } }], { id: `msg_${id}` });

describe(`an ACP agent's permission requests (${nv.version})`, () => {
  it("`D`: the call is rejected, and the reason goes to the agent as the next prompt once its turn ends, drawn as sent", async () => {
    await withProject(async (project) => {
      await withNeovim(
        nv,
        async (s) => {
          const never = join(project, "never.txt");
          const script = scriptAdapter(s.mock, write("w", never), textReply("Not written.", { id: "msg_not" }));
          script.reply(textReply("Understood: notes.md then.", { id: "msg_why" }));
          const id = await s.lua<string>("return require('tine').agent('claude')");
          await s.waitForDisplay(id, /◆ Run by the ACP agent "claude"/);
          await sendIn(s, id, "Write never.txt");
          await s.waitForDisplay(id, /\? .*asks permission/);
          await s.lua("vim.ui.input = function(opts, cb) _G.asked = opts.prompt; cb('write notes.md instead') end");
          await s.onDisplayLine(id, "? ", "D");
          await s.waitForDisplay(id, "Understood: notes.md then.");
          assert.equal(existsSync(never), false, "a denied write is never made");
          const last = saidIn(script.conversation().at(-1)!.body);
          assert.ok(
            last.some((t) => /I denied .*Why: write notes\.md instead/.test(t)),
            JSON.stringify(last),
          );
          // What was sent is in the transcript, as the user's message.
          const messages = await s.messages(id);
          const said = messages.filter((m) => m.role === "user").map((m) => JSON.stringify(m.content));
          assert.ok(
            said.some((t) => t.includes("Why: write notes.md instead")),
            JSON.stringify(said),
          );
          await s.waitForStatus(id, "idle");
        },
        { cwd: project, env: { [KEY_VARIABLE]: TEST_KEY }, setup: { acp_agents: agentsFor(project) } },
      );
    });
  });

  it("a fork while a permission waits: at the last finished reply, no permission of its own; the source's waits on and is answered there only", async () => {
    await withProject(async (project) => {
      await withNeovim(
        nv,
        async (s) => {
          const out = join(project, "out.txt");
          const script = scriptAdapter(
            s.mock,
            textReply("Hello.", { id: "msg_hello" }),
            write("w", out),
            textReply("Forked answer.", { id: "msg_fork" }),
            textReply("Written.", { id: "msg_written" }),
          );
          const id = await s.lua<string>("return require('tine').agent('claude')");
          await s.waitForDisplay(id, /◆ Run by the ACP agent "claude"/);
          await sendIn(s, id, "Say hello");
          await s.waitForDisplay(id, "Hello.");
          await sendIn(s, id, "Write out.txt");
          await s.waitForDisplay(id, /\? .*asks permission/);
          await s.waitForStatus(id, "waiting");

          const fork = await s.lua<string>("return require('tine').fork(...)", id, "Fork question");
          await s.waitForDisplay(fork, "Forked answer.");
          await s.waitForStatus(fork, "idle");
          // At the last finished reply: the exchange before the permission, then its own prompt.
          const forked = await s.messages(fork);
          assert.deepEqual(forked.slice(0, 2), [
            { role: "user", content: [{ type: "text", text: "Say hello" }] },
            { role: "assistant", content: [{ type: "text", text: "Hello." }] },
          ]);
          assert.deepEqual(forked[2], { role: "user", content: [{ type: "text", text: "Fork question" }] });
          const forkSaid = saidIn(script.conversation()[2]!.body).join("\n");
          assert.match(forkSaid, /Say hello[\s\S]*Fork question/);
          assert.doesNotMatch(forkSaid, /Write out\.txt/);
          // No permission of its own: nothing to answer there.
          assert.doesNotMatch(await s.display(fork), /asks permission/);
          await s.open(fork);
          await s.onDisplayLine(fork, "Forked answer.", "a");
          await s.notified(/tine: no tool call is awaiting approval/);
          assert.equal(existsSync(out), false);

          // The source still waits, and its answer is given there.
          assert.equal((await s.thread(id)).status, "waiting");
          await s.open(id);
          await s.onDisplayLine(id, "? ", "a");
          await s.waitForDisplay(id, "Written.");
          assert.equal(readFileSync(out, "utf8"), "x\n");
          assert.doesNotMatch(await s.display(fork), /Written\./);
        },
        { cwd: project, env: { [KEY_VARIABLE]: TEST_KEY }, setup: { acp_agents: agentsFor(project) } },
      );
    });
  });
});
