/**
 * `:Tine model` in a thread run by an ACP agent, in a real Neovim, with the real Claude ACP adapter
 * (pinned) against the mock Messages API: the picker lists the settings the agent offers (its
 * configOptions) and sets the one picked; the Messages API gets the chosen model in the thread's
 * next request, its banner shows it, a fork's new session is given it, and after a restart the
 * resumed session is given it again.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { adapterAgents, KEY_VARIABLE, scriptAdapter, sendIn, storedAcpThread, TEST_KEY } from "../helpers/acp.ts";
import { saidIn } from "../helpers/claude-code.ts";
import { withNeovim, withProject } from "../helpers/neovim.ts";
import { textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");

function agentsFor(project: string) {
  const { agents } = adapterAgents(join(project, ".acp-home"), `\${ANTHROPIC_BASE_URL}`, project);
  return agents;
}

/** The conversation request that says `text` last (the one answering that prompt). */
const modelAsked = (requests: { body: { model: string } }[], text: string) => {
  const req = requests.findLast((r) => saidIn(r.body as never).some((t) => t.includes(text)));
  if (!req) throw new Error(`no request said ${JSON.stringify(text)}`);
  return req.body.model;
};

describe(`an ACP agent's settings through :Tine model (${nv.version})`, () => {
  it("the picker lists what the agent offers and sets the model picked: the next request uses it, the banner shows it, a fork and a restart keep it", async () => {
    await withProject(async (project) => {
      let id = "";
      const opts = { cwd: project, env: { [KEY_VARIABLE]: TEST_KEY }, setup: { acp_agents: agentsFor(project) } };
      await withNeovim(
        nv,
        async (s) => {
          const script = scriptAdapter(s.mock, textReply("First.", { id: "msg_1" }), textReply("Second.", { id: "msg_2" }));
          id = await s.lua<string>("return require('tine').agent('claude')");
          await s.waitForDisplay(id, /◆ Run by the ACP agent "claude"/);
          await sendIn(s, id, "Question one");
          await s.waitForDisplay(id, "First.");
          assert.doesNotMatch(modelAsked(script.conversation(), "Question one"), /sonnet/);

          // The first picker lists the agent's settings in its words; the second that setting's values.
          await s.lua(`
            _G.tine_listed = {}
            local picks = { function(s) return s.id == "model" end, function(o) return o.value == "sonnet" end }
            vim.ui.select = function(items, opts, cb)
              local lines = {}
              for _, it in ipairs(items) do table.insert(lines, opts.format_item(it)) end
              table.insert(_G.tine_listed, lines)
              local want = table.remove(picks, 1)
              for _, it in ipairs(items) do if want(it) then return cb(it) end end
              cb(nil)
            end`);
          await s.cmd("Tine model");
          await s.waitForDisplay(id, /^◆ Model: Sonnet/m);
          const listed = await s.lua<string[][]>("return _G.tine_listed");
          assert.ok(listed[0]!.includes("Model: Default (recommended)"), JSON.stringify(listed[0]));
          assert.ok(
            listed[0]!.some((l) => l.startsWith("Mode: ")),
            JSON.stringify(listed[0]),
          );
          assert.ok(
            listed[1]!.some((l) => /^Default \(recommended\).*\(now\)$/.test(l)),
            JSON.stringify(listed[1]),
          );
          assert.ok(
            listed[1]!.some((l) => l.startsWith("Sonnet")),
            JSON.stringify(listed[1]),
          );

          await sendIn(s, id, "Question two");
          await s.waitForDisplay(id, "Second.");
          assert.match(modelAsked(script.conversation(), "Question two"), /sonnet/);

          // A fork is a new session of the agent's: it is given the source's choice before its first prompt.
          script.reply(textReply("Forked.", { id: "msg_f" }));
          const fork = await s.lua<string>("return require('tine').fork(...)", id, "Fork question");
          await s.waitForDisplay(fork, "Forked.");
          assert.match(modelAsked(script.conversation(), "Fork question"), /sonnet/);
          await s.waitForDisplay(fork, /^◆ Model: Sonnet/m);
          // An unknown value is refused by name, nothing set.
          await s.cmd("Tine model gpt-bogus");
          await s.notified(/tine: the agent offers no setting with the value "gpt-bogus"/);
        },
        opts,
      );
      await withNeovim(
        nv,
        async (s) => {
          const script = scriptAdapter(s.mock, textReply("Resumed.", { id: "msg_r" }));
          await s.until("the thread listed again", async () => (await s.threads()).some((x) => x.id === id));
          await s.open(id);
          // Its session resumed, the choice set on it again, shown in the banner.
          await s.until("the model shown again", async () => /^◆ Model: Sonnet/m.test(await s.display(id)), 20_000);
          await sendIn(s, id, "After the restart");
          await s.waitForDisplay(id, "Resumed.");
          assert.match(modelAsked(script.conversation(), "After the restart"), /sonnet/);
        },
        opts,
      );
    });
  });

  it("a stored choice is read back and set on a new session: a stored thread whose session is gone forks on a new session given its model", async () => {
    await withProject(async (project) => {
      const stored = "00000000-0000-4000-8000-0000000000c3";
      await withNeovim(
        nv,
        async (s) => {
          const script = scriptAdapter(s.mock, textReply("Seeded answer.", { id: "msg_seeded" }));
          const cwd = await s.lua<string>("return vim.fn.getcwd()");
          storedAcpThread(project, cwd, stored, [{ t: "settings", settings: { model: "sonnet" } }]);
          await s.cmd("Tine restart");
          await s.until("the stored thread listed", async () => (await s.threads()).some((t) => t.id === stored));
          const fork = await s.lua<string>("return require('tine').fork(...)", stored, "Seeded question");
          await s.waitForDisplay(fork, "Seeded answer.");
          assert.match(modelAsked(script.conversation(), "Seeded question"), /sonnet/);
          await s.waitForDisplay(fork, /^◆ Model: Sonnet/m);
        },
        { cwd: project, env: { [KEY_VARIABLE]: TEST_KEY }, setup: { acp_agents: agentsFor(project) } },
      );
    });
  });
});
