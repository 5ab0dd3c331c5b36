/**
 * A thread run by an ACP agent, as the user sees it in a real Neovim: the real Claude ACP adapter
 * (pinned) running Claude Code against the mock Messages API. `:Tine agent claude` starts it, a
 * send prompts it, its reply and tool calls are drawn, its permission requests wait for `a`, `<C-c>`
 * cancels, and after `:Tine restart` the thread is listed and, opened, resumes its session.
 * Each adapter start costs a second or more: one scenario per Neovim.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { ThreadStore } from "../../node/store/store.ts";
import { adapterAgents, KEY_VARIABLE, scriptAdapter, sendIn, TEST_KEY } from "../helpers/acp.ts";
import { saidIn } from "../helpers/claude-code.ts";
import { withNeovim, withProject } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");

/** acp_agents with `claude`, its key from the host's KEY_VARIABLE and the mock's URL from Neovim's environment. */
function agentsFor(project: string, extra: Record<string, unknown> = {}) {
  const { agents } = adapterAgents(join(project, ".acp-home"), `\${ANTHROPIC_BASE_URL}`, project);
  return { claude: { ...agents["claude"], ...extra } };
}

/** The agent the host started (its process leads a group of its own). */
function agentPid(hostPid: number): number {
  const [pid, ...more] = agentPids(hostPid);
  if (pid === undefined) throw new Error(`no ACP agent runs under the host ${hostPid}`);
  if (more.length) throw new Error(`${more.length + 1} ACP agents run under the host ${hostPid}: one serves all its threads`);
  return pid;
}

function agentPids(hostPid: number): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === hostPid && readFileSync(`/proc/${name}/cmdline`, "utf8").includes("claude-agent-acp")) pids.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

describe(`a thread run by an ACP agent (${nv.version})`, () => {
  it("`:Tine agent claude`: banner, a prompt and its reply, a permission answered with `a`, <C-c> cancels; after :Tine restart it resumes its session", async () => {
    await withProject(async (project) => {
      await withNeovim(
        nv,
        async (s) => {
          const out = join(project, "out.txt");
          const never = join(project, "never.txt");
          const script = scriptAdapter(
            s.mock,
            textReply("Hello from the mock.", { id: "msg_hello" }),
            response([{ text: "Writing." }, { toolUse: { id: "toolu_w", name: "Write", input: { file_path: out, content: "hello\n" } } }], {
              id: "msg_write",
            }),
            textReply("Written.", { id: "msg_written" }),
            response([{ toolUse: { id: "toolu_x", name: "Write", input: { file_path: never, content: "no\n" } } }], { id: "msg_never" }),
            textReply("Not written, then.", { id: "msg_not" }),
            response([{ text: "Slow and then more", holdInside: { hold: "h", afterDeltas: 1 } }], { id: "msg_slow" }),
          );
          const id = await s.lua<string>("return require('tine').agent('claude')");
          await s.waitForDisplay(id, /◆ Run by the ACP agent "claude" \(Claude Agent [^)]*\) · session \S+/);

          await sendIn(s, id, "Say hello, tine here.");
          await s.waitForDisplay(id, "Hello from the mock.");
          assert.ok(saidIn(script.conversation()[0]!.body).some((t) => t.includes("Say hello, tine here.")));

          // mode = "default": Claude Code asks before it writes; tine waits for the user.
          await sendIn(s, id, "Write out.txt");
          await s.waitForDisplay(id, /\? .*asks permission: a allow · A always · d reject/);
          await s.waitForStatus(id, "waiting");
          assert.equal(existsSync(out), false, "nothing is written before the user answers");
          await s.onDisplayLine(id, "? ", "a");
          await s.waitForDisplay(id, "Written.");
          assert.equal(readFileSync(out, "utf8"), "hello\n");

          // The input's key answers too (<C-n>: reject), as it does tine's own approvals.
          await sendIn(s, id, "Write never.txt");
          await s.waitForDisplay(id, /\? Write .*asks permission/);
          await s.keys("<Esc><C-n>");
          await s.waitForDisplay(id, "Not written, then.");
          assert.equal(existsSync(never), false, "a rejected write is never made");

          // <C-c> in the input: session/cancel; the turn stops, what came is kept.
          await sendIn(s, id, "Go slowly");
          await s.waitForDisplay(id, "Slow");
          const t = await s.thread(id);
          await s.focus(t.input_bufnr!);
          await s.keys("<Esc><C-c>");
          await s.waitForDisplay(id, "── interrupted (aborted): the reply stops here");
          s.mock.release("h");
          await s.waitForStatus(id, "idle");

          const before = await s.messages(id);
          assert.deepEqual(before.slice(0, 2), [
            { role: "user", content: [{ type: "text", text: "Say hello, tine here." }] },
            { role: "assistant", content: [{ type: "text", text: "Hello from the mock." }] },
          ]);

          // Stored like any thread: listed after a restart, and opened it resumes its session.
          await s.cmd("Tine restart");
          await s.until("the thread listed again", async () => (await s.threads()).some((x) => x.id === id));
          await s.open(id);
          // Opened, it starts its agent and resumes its session (an adapter start: allowed more time on a loaded machine).
          await s.until(
            "the session taken up",
            async () => /^◆ Run by the ACP agent "claude" \(Claude Agent [^)]*\) · session \S+\n/.test(await s.display(id)),
            20_000,
          );
          script.reply(textReply("Resumed.", { id: "msg_resumed" }));
          await sendIn(s, id, "Still there?");
          await s.waitForDisplay(id, "Resumed.");
          const last = script.conversation().at(-1)!;
          // The agent's own session went on: it still holds the first exchange.
          assert.ok(saidIn(last.body).some((x) => x.includes("Say hello, tine here.")));
          assert.deepEqual((await s.messages(id)).slice(0, 2), before.slice(0, 2));

          // The agent dies mid-turn: the thread says so and keeps what came; a send starts it again and resumes.
          script.reply(response([{ text: "Half and then", holdInside: { hold: "k", afterDeltas: 1 } }], { id: "msg_half" }));
          await sendIn(s, id, "Crash now");
          await s.waitForDisplay(id, "Half");
          // A second thread of the same agent is a second session of the same process, and is told of its end too.
          const other = await s.lua<string>("return require('tine').agent('claude')");
          await s.waitForDisplay(other, /◆ Run by the ACP agent "claude" \(Claude Agent/);
          process.kill(-agentPid(await s.hostPid()), "SIGKILL");
          await s.waitForStatus(id, "error");
          await s.waitForDisplay(other, /⚠ tine: ACP agent "claude" .* · sending again tries again/);
          await s.waitForDisplay(id, /tine: ACP agent "claude" .*during session\/prompt/);
          s.mock.release("k");
          script.reply(textReply("Back again.", { id: "msg_back" }));
          await sendIn(s, id, "Are you back?");
          // The agent starts again and resumes the session first (an adapter start: more time on a loaded machine).
          await s.until("the reply after the agent started again", async () => (await s.display(id)).includes("Back again."), 20_000);
          assert.ok(saidIn(script.conversation().at(-1)!.body).some((x) => x.includes("Say hello, tine here.")));
        },
        {
          cwd: project,
          env: { [KEY_VARIABLE]: TEST_KEY },
          setup: { acp_agents: agentsFor(project, { mode: "default" }) },
        },
      );
    });
  });

  it("an agent not configured, or not installed: a clear message, no thread; a stored thread of one opens saying why, and a send keeps its text", async () => {
    await withProject(async (project) => {
      const thread = "00000000-0000-4000-8000-0000000000a1";
      await withNeovim(
        nv,
        async (s) => {
          await s.cmd("Tine agent nope");
          await s.notified(/^tine: no ACP agent named "nope" \(acp_agents has missing\)/);
          await s.cmd("Tine agent missing");
          await s.notified(/^tine: ACP agent "missing": `\/nonexistent\/acp-agent` was not found/);
          assert.equal((await s.threads()).length, 0);

          // A thread stored by an agent that cannot start now: it opens, says why, and a send fails keeping its text.
          const cwd = await s.lua<string>("return vim.fn.getcwd()");
          new ThreadStore(join(project, ".data", "nvim", "tine"), cwd)
            .create({
              id: thread,
              num: 1,
              title: "stored",
              model: "m",
              runner: { kind: "acp", agent: "missing", sessionId: "sess-1" },
              parent: null,
            })
            .close();
          await s.cmd("Tine restart");
          await s.until("the stored thread listed", async () => (await s.threads()).some((t) => t.id === thread));
          await s.open(thread);
          await s.waitForDisplay(
            thread,
            /⚠ its session could not be taken up: tine: ACP agent "missing": `\/nonexistent\/acp-agent` was not found/,
          );
          await sendIn(s, thread, "are you there?");
          await s.waitForStatus(thread, "error");
          assert.deepEqual(await s.messages(thread), [{ role: "user", content: [{ type: "text", text: "are you there?" }] }]);
        },
        { cwd: project, setup: { acp_agents: { missing: { command: ["/nonexistent/acp-agent"] } } } },
      );
    });
  });

  it(":checkhealth tine starts each configured agent once and shows its initialize answer, or why it could not start", async () => {
    await withProject(async (project) => {
      await withNeovim(
        nv,
        async (s) => {
          const text = await s.health();
          assert.match(text, /OK claude: Claude Agent \S+, ACP protocol 1: can load, can list, can resume, can fork sessions\n/);
          assert.match(text, /ERROR tine: ACP agent "missing": `\/nonexistent\/acp-agent` was not found/);
        },
        {
          cwd: project,
          env: { [KEY_VARIABLE]: TEST_KEY },
          setup: { acp_agents: { ...agentsFor(project), missing: { command: ["/nonexistent/acp-agent"] } } },
        },
      );
    });
  });
});
