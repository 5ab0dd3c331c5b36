/**
 * What an ACP thread shows and sends besides its transcript, against the real Claude ACP adapter
 * (pinned) running Claude Code on the mock Messages API: its usage in the winbar and the list.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { adapterAgents, KEY_VARIABLE, scriptAdapter, TEST_KEY } from "../helpers/acp.ts";
import { type Session, withNeovim, withProject } from "../helpers/neovim.ts";
import { waitForWinbar } from "../helpers/winbar.ts";
import { textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");

function agentsFor(project: string) {
  return adapterAgents(join(project, ".acp-home"), `\${ANTHROPIC_BASE_URL}`, project).agents;
}

async function sendIn(s: Session, id: string, text: string): Promise<void> {
  await s.open(id);
  const t = await s.thread(id);
  await s.setLines(t.input_bufnr!, [text]);
  await s.focus(t.input_bufnr!);
  await s.cmd("Tine send");
}

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
});
