/**
 * What an ACP thread shows and sends besides its transcript, against the real Claude ACP adapter
 * (pinned) running Claude Code on the mock Messages API: its usage in the winbar and the list, and
 * its prompt's `@file` mentions sent as resources, tine's MCP servers given to its session.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, inject, it } from "vitest";
import { adapterAgents, KEY_VARIABLE, scriptAdapter, sendIn, TEST_KEY } from "../helpers/acp.ts";
import { saidIn } from "../helpers/claude-code.ts";
import { testServer } from "../helpers/mcp.ts";
import { withNeovim, withProject } from "../helpers/neovim.ts";
import { waitForWinbar } from "../helpers/winbar.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");

function agentsFor(project: string, extra: Record<string, unknown> = {}) {
  const { agents } = adapterAgents(join(project, ".acp-home"), `\${ANTHROPIC_BASE_URL}`, project);
  return { claude: { ...agents["claude"], ...extra } };
}

/** The adapter's environment (adapterAgents), to add to. */
const agentEnv = (project: string) => (agentsFor(project)["claude"] as { env: Record<string, string> }).env;

describe(`an ACP thread's extras (${nv.version})`, () => {
  it("its usage: the winbar shows the agent's context, the turn's tokens and the cost the agent said; the list its tokens and cost", async () => {
    await withProject(async (project) => {
      await withNeovim(
        nv,
        async (s) => {
          scriptAdapter(s.mock, textReply("Counted.", { id: "msg_counted", usage: { input_tokens: 1200, output_tokens: 300 } }));
          const id = await s.lua<string>("return require('tine').agent('claude')");
          await s.waitForDisplay(id, /◆ Run by the ACP agent "claude"/);
          await sendIn(s, id, "Count this.");
          await s.waitForDisplay(id, "Counted.");
          await s.waitForStatus(id, "idle");
          // The adapter's own note on billing (tine says it shows notices): in the banner, apart from the reply.
          const shown = await s.waitForDisplay(id, /⚠ claude says: .*auto mode/);
          assert.doesNotMatch(shown, /Counted\.\s*\S*Warning/, shown);
          const bar = await waitForWinbar(s, id, "tokens");
          // The agent's context (its usage_update's used / size), the turn's tokens, and the session's cost in dollars.
          assert.match(bar, /ctx \S+ \/ \S+/, bar);
          assert.match(bar, /\d\S* tokens/, bar);
          assert.match(bar, /\$\d/, bar);
          const usage = await s.lua<{ output: number; cost_usd: number | null; context_window: number | null }>(
            "return require('tine').usage(...)",
            id,
          );
          assert.ok(usage.output >= 300, JSON.stringify(usage));
          assert.ok(usage.cost_usd !== null && usage.cost_usd > 0, JSON.stringify(usage));
          assert.ok(usage.context_window !== null && usage.context_window > 0, JSON.stringify(usage));
          await s.cmd("Tine threads");
          await s.until("the list line with its tokens and cost", async () => (await s.listLines()).some((l) => /\d\S* tok \$\d/.test(l)));
        },
        { cwd: project, env: { [KEY_VARIABLE]: TEST_KEY }, setup: { acp_agents: agentsFor(project) } },
      );
    });
  });

  it("`@file:` in its prompt goes to the agent as an embedded resource (its uri and text), not as tine's context text", async () => {
    await withProject(async (project) => {
      await withNeovim(
        nv,
        async (s) => {
          const notes = join(project, "notes.md");
          writeFileSync(notes, "the plan: ship on Friday\n");
          const script = scriptAdapter(s.mock, textReply("Read it.", { id: "msg_read" }));
          const id = await s.lua<string>("return require('tine').agent('claude')");
          await s.waitForDisplay(id, /◆ Run by the ACP agent "claude"/);
          // `/` then <C-x><C-o> at the start of a message: the commands the agent announced, with what each does.
          await s.open(id);
          const input = (await s.thread(id)).input_bufnr!;
          await s.focus(input);
          await s.cmd("set completeopt=menuone,noselect");
          // The agent announces them once its session is made, after the banner.
          await s.until("the agent's commands", async () => {
            const got = await s.lua<{ items: { word: string }[] } | null>(
              "return require('tine.host').request('complete_mention', '/', true, ...)",
              input,
            );
            return got?.items.some((c) => c.word === "compact") ?? false;
          });
          await s.lua(`vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("i/<C-x><C-o>", true, false, true), "mt", false)`);
          let commands: { word: string; menu: string; kind: string }[] = [];
          await s.until("the agent's commands in the menu", async () => {
            commands = await s.lua("return vim.fn.complete_info({ 'items' }).items");
            return commands.some((c) => c.word === "compact");
          });
          assert.ok(
            commands.every((c) => c.kind === "command") && commands.find((c) => c.word === "compact")!.menu.length > 0,
            JSON.stringify(commands),
          );
          await s.lua(`vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("<C-e><Esc>", true, false, true), "mx", false)`);
          await sendIn(s, id, "What does @file:notes.md say?");
          await s.waitForDisplay(id, "Read it.");
          const said = saidIn(script.conversation()[0]!.body).join("\n");
          const uri = pathToFileURL(notes).href;
          // The adapter's form of an embedded resource: a link where it was mentioned, its text in a context of that uri.
          assert.ok(said.includes(`<context ref="${uri}">\nthe plan: ship on Friday\n`), said);
          assert.ok(said.includes(`[@notes.md](${uri})`), said);
          assert.ok(!said.includes('<context kind="file"'), said);
          assert.ok(said.includes("What does @file:notes.md say?"), said);
        },
        { cwd: project, env: { [KEY_VARIABLE]: TEST_KEY }, setup: { acp_agents: agentsFor(project) } },
      );
    });
  });

  it("tine's MCP servers go to its session: the agent lists the test server's tools to the model and calls one", async () => {
    await withProject(async (project) => {
      await withNeovim(
        nv,
        async (s) => {
          const script = scriptAdapter(
            s.mock,
            response([{ toolUse: { id: "toolu_echo", name: "mcp__test__echo", input: { text: "over ACP" } } }], { id: "msg_call" }),
            textReply("Echoed.", { id: "msg_echoed" }),
          );
          const id = await s.lua<string>("return require('tine').agent('claude')");
          await s.waitForDisplay(id, /◆ Run by the ACP agent "claude"/);
          await sendIn(s, id, "Echo something.");
          await s.waitForDisplay(id, "Echoed.");
          const [first, second] = script.conversation();
          // Tool search off (ENABLE_TOOL_SEARCH): Claude Code lists every MCP tool to the model.
          const tools = (first!.body.tools ?? []).map((t) => ("name" in t ? t.name : ""));
          assert.ok(tools.includes("mcp__test__echo"), tools.join(", "));
          // The real server answered the agent's call: its result went back to the model.
          assert.ok(JSON.stringify(second!.body.messages).includes("echo: over ACP"), JSON.stringify(second!.body.messages).slice(-600));
          // Never the API key: not in what the agent was told of the server, nor in the server's environment.
          assert.ok(!JSON.stringify(s.mock.requests.map((r) => r.body)).includes(TEST_KEY));
        },
        {
          cwd: project,
          env: { [KEY_VARIABLE]: TEST_KEY },
          setup: {
            acp_agents: agentsFor(project, { mode: "bypassPermissions", env: { ...agentEnv(project), ENABLE_TOOL_SEARCH: "false" } }),
            mcp_servers: { test: testServer(project) },
          },
        },
      );
    });
  });
});
