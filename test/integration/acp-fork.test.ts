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
import { adapterAgents, KEY_VARIABLE, scriptAdapter, sendIn, storedAcpThread, TEST_KEY } from "../helpers/acp.ts";
import { saidIn } from "../helpers/claude-code.ts";
import { gitProject } from "../helpers/git-project.ts";
import { type Session, withNeovim, withProject } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");

/** The session id its banner names. */
async function sessionOf(s: Session, id: string): Promise<string> {
  const m = /· session (\S+)/.exec(await s.display(id));
  if (!m) throw new Error(`no session in the banner of ${id}`);
  return m[1]!;
}

describe(`forks of a thread run by an ACP agent (${nv.version})`, () => {
  it("a fork at a message is the agent's fork at that reply; a fork while it streams is taken at its last finished reply, the source untouched; a worktree fork's session works there", async () => {
    await withProject(async (project) => {
      // A repository: a fork in a worktree of its own needs one.
      gitProject(project, { "README.md": "a project\n" });
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
          assert.doesNotMatch(await s.display(id), /retrying/, "a first try is not shown as a retry");
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

          // `--worktree`: the fork's session works in its worktree.
          script.reply(textReply("Worktree answer.", { id: "msg_wt" }));
          const inTree = script.conversation().length;
          const wt = await s.lua<string>("local id, p = ...; return require('tine').fork(id, p, { worktree = true })", id, "In a tree");
          await s.waitForDisplay(wt, "Worktree answer.");
          const root = (await s.thread(wt)).cwd;
          assert.notEqual(root, project);
          // Claude Code tells its model the folder it now works in.
          const told = JSON.stringify(script.conversation()[inTree]!.body.messages);
          assert.ok(told.includes(`Primary working directory: ${root}`), `the fork's session works in ${root}`);
        },
        { cwd: project, env: { [KEY_VARIABLE]: TEST_KEY }, setup: { acp_agents: agents } },
      );
    });
  });

  it("a stored thread whose session is gone forks the seeded way (≈ in its banner and the list, the conversation in its first prompt); a background fork; discard", async () => {
    await withProject(async (project) => {
      const { agents } = adapterAgents(join(project, ".acp-home"), `\${ANTHROPIC_BASE_URL}`, project);
      const stored = "00000000-0000-4000-8000-0000000000b2";
      await withNeovim(
        nv,
        async (s) => {
          const script = scriptAdapter(
            s.mock,
            textReply("Seeded answer.", { id: "msg_seeded" }),
            textReply("Background answer.", { id: "msg_bg" }),
          );
          const cwd = await s.lua<string>("return vim.fn.getcwd()");
          storedAcpThread(project, cwd, stored);
          await s.cmd("Tine restart");
          await s.until("the stored thread listed", async () => (await s.threads()).some((t) => t.id === stored));

          // Forked without being opened: its session cannot be taken up, so a new session is told the conversation.
          const fork = await s.lua<string>("return require('tine').fork(...)", stored, "Seeded question");
          await s.waitForDisplay(fork, "Seeded answer.");
          await s.waitForStatus(fork, "idle");
          const display = await s.display(fork);
          assert.match(
            display,
            /≈ approximate fork: .*tool calls as text, no thinking, no prompt cache.*its session can no longer be taken up/,
          );
          const said = saidIn(script.conversation()[0]!.body).join("\n");
          assert.match(
            said,
            /<conversation>[\s\S]*User: Earlier question[\s\S]*Assistant: Earlier answer[\s\S]*<\/conversation>[\s\S]*Seeded question/,
          );
          // Drawn as the user wrote it: the told conversation is never shown.
          assert.deepEqual((await s.messages(fork)).slice(2, 3), [{ role: "user", content: [{ type: "text", text: "Seeded question" }] }]);
          assert.doesNotMatch(display, /<conversation>/);
          await s.openList();
          await s.listLine("[claude ≈]");

          // A background fork of the fork (it has a session now): made without taking the cursor, it answers on its own.
          const bg = await s.lua<string>(
            "local id, p = ...; return require('tine').fork(id, p, { background = true })",
            fork,
            "In the background",
          );
          // Its turn ends: it reports its final reply to its parent, and ends.
          await s.waitForDisplay(fork, /📨 Report from .* goes with your next message: Background answer\./);
          await s.waitForGone(bg);
          // Discard: a background fork still at work leaves the tree, and reports nothing.
          script.reply(response([{ text: "Never", holdInside: { hold: "bg2", afterDeltas: 1 } }], { id: "msg_bg2" }));
          const held = await s.lua<string>(
            "local id, p = ...; return require('tine').fork(id, p, { background = true })",
            fork,
            "Held in the background",
          );
          await s.until("the held fork's request", async () =>
            script.conversation().some((r) => saidIn(r.body).some((t) => t.includes("Held in the background"))),
          );
          await s.lua("require('tine').discard(...)", held);
          await s.waitForGone(held);
          s.mock.release("bg2");
          assert.doesNotMatch(await s.display(fork), /Never/);
        },
        { cwd: project, env: { [KEY_VARIABLE]: TEST_KEY }, setup: { acp_agents: agents } },
      );
    });
  });

  it("report: the fork is asked for a summary, which its parent gets; promote: the parent goes on from the fork's session, its own tail kept as a fork", async () => {
    await withProject(async (project) => {
      const { agents } = adapterAgents(join(project, ".acp-home"), `\${ANTHROPIC_BASE_URL}`, project);
      await withNeovim(
        nv,
        async (s) => {
          const script = scriptAdapter(
            s.mock,
            textReply("Reply one.", { id: "msg_one" }),
            textReply("Reply two.", { id: "msg_two" }),
            textReply("Looked into it.", { id: "msg_looked" }),
            textReply("Summary: it is fine.", { id: "msg_summary" }),
            textReply("Other path.", { id: "msg_other" }),
            textReply("Parent goes on.", { id: "msg_on" }),
          );
          const id = await s.lua<string>("return require('tine').agent('claude')");
          await s.waitForDisplay(id, /◆ Run by the ACP agent "claude"/);
          await sendIn(s, id, "Prompt One");
          await s.waitForDisplay(id, "Reply one.");
          await s.waitForStatus(id, "idle");
          await sendIn(s, id, "Prompt Two");
          await s.waitForDisplay(id, "Reply two.");
          await s.waitForStatus(id, "idle");

          const reporting = await s.lua<string>("return require('tine').fork(...)", id, "Look into it");
          await s.waitForDisplay(reporting, "Looked into it.");
          await s.waitForStatus(reporting, "idle");
          await s.lua("require('tine').report(...)", reporting);
          await s.waitForDisplay(id, /📨 Report from .* goes with your next message: Summary: it is fine\./);
          // The fork ended as it reported (the host no longer has it).
          assert.equal(await s.lua<boolean>("return (pcall(require('tine').messages, ...))", reporting), false);
          // threads() (Lua's copy of the list) no longer lists it either.
          assert.deepEqual(
            (await s.lua<{ id: string }[]>("return require('tine').threads()")).filter((t) => t.id === reporting),
            [],
          );

          // Promote a fork at message 1: the parent takes its session and history; "Prompt Two…" stays, as a fork.
          const promoted = await s.lua<string>(
            "local id, p = ...; return require('tine').fork(id, p, { at_message = 1 })",
            id,
            "Other way",
          );
          await s.waitForDisplay(promoted, "Other path.");
          await s.waitForStatus(promoted, "idle");
          const forkSession = await sessionOf(s, promoted);
          const oldSession = await sessionOf(s, id);
          await s.lua("require('tine').promote(...)", promoted);
          await s.waitForGone(promoted);
          await s.waitForDisplay(id, `· session ${forkSession}`);
          const texts = (await s.messages(id)).map((m) => m.content.map((b) => ("text" in b ? b.text : b.type)).join(""));
          assert.deepEqual(texts, ["Prompt One", "Reply one.", "Other way", "Other path."]);
          const sibling = (await s.threads()).find((t) => t.id !== id && t.id !== reporting);
          assert.ok(sibling, "the parent's own tail is kept as a fork");
          await s.open(sibling.id);
          await s.waitForDisplay(sibling.id, `· session ${oldSession}`);
          assert.ok(JSON.stringify(await s.messages(sibling.id)).includes("Reply two."));
          // The parent's next prompt goes on in the fork's session: the API gets the fork's conversation.
          const before = script.conversation().length;
          await sendIn(s, id, "Go on");
          await s.waitForDisplay(id, "Parent goes on.");
          const said = saidIn(script.conversation()[before]!.body).join("\n");
          assert.match(said, /Other way[\s\S]*Other path\.[\s\S]*Go on/);
          assert.doesNotMatch(said, /Prompt Two/);
        },
        { cwd: project, env: { [KEY_VARIABLE]: TEST_KEY }, setup: { acp_agents: agents } },
      );
    });
  });
});
