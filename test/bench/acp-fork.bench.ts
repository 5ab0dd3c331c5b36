/**
 * A native fork of a thread run by an ACP agent, ready for input (#33: < 1 s against the mock): the
 * real Claude ACP adapter against the mock Messages API, a thread of two exchanges, then the time
 * from `fork(id, "", { at_message = 1 })` to the fork's display showing its own session and the
 * history up to its point. The agent's process is already running (one serves all its threads).
 */
import { join } from "node:path";
import { adapterAgents, KEY_VARIABLE, scriptAdapter, TEST_KEY } from "../helpers/acp.ts";
import { nvims, withNeovim, withProject } from "../helpers/neovim.ts";
import { textReply } from "../mock-anthropic/script.ts";

const RUNS = 10;
const TARGET_MS = 1000;
const nv = nvims().at(-1)!;
const times: number[] = [];

await withProject(async (project) => {
  const { agents } = adapterAgents(join(project, ".acp-home"), `\${ANTHROPIC_BASE_URL}`, project);
  await withNeovim(
    nv,
    async (s) => {
      scriptAdapter(s.mock, textReply("Reply one.", { id: "msg_one" }), textReply("Reply two.", { id: "msg_two" }));
      const id = await s.lua<string>("return require('tine').agent('claude')");
      await s.waitForDisplay(id, /◆ Run by the ACP agent "claude"/);
      for (const [prompt, reply] of [
        ["Prompt one", "Reply one."],
        ["Prompt two", "Reply two."],
      ]) {
        await s.lua("require('tine').send(...)", id, prompt);
        await s.waitForDisplay(id, reply!);
        await s.waitForStatus(id, "idle");
      }
      const source = /· session (\S+)/.exec(await s.display(id))![1]!;
      for (let i = 0; i < RUNS; i++) {
        const t0 = performance.now();
        const fork = await s.lua<string>("local id = ...; return require('tine').fork(id, '', { at_message = 1 })", id);
        const shown = await s.waitForDisplay(fork, /· session (\S+)[\s\S]*Reply one\./);
        times.push(performance.now() - t0);
        if (shown.includes(source) || shown.includes("Reply two."))
          throw new Error(`not a fork at message 1 on a session of its own:\n${shown}`);
      }
    },
    { cwd: project, env: { [KEY_VARIABLE]: TEST_KEY }, setup: { acp_agents: agents } },
  );
});

times.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)]!;
console.log(`ACP fork benchmark (${nv.version}, claude-agent-acp against the mock)`);
console.log(
  `  native fork at a message, ready for input: median ${median.toFixed(0)} ms · max ${times.at(-1)!.toFixed(0)} ms over ${RUNS} (target < ${TARGET_MS} ms)`,
);
if (median >= TARGET_MS) process.exitCode = 1;
