/**
 * A turn of 1,000 agent updates in an ACP thread (issue #33: host CPU per update within 1.5× of a
 * delta of tine's own agent). Through the real host path in real Neovim: a scripted ACP peer
 * (test/acp-peers/burst-agent.mjs) floods 1,000 `session/update`s (message chunks alone, then with
 * tool calls and their ends among them) and the host folds and draws them; against the same
 * number of text deltas of tine's own agent streaming from the mock. Each figure is the median of
 * RUNS turns: host CPU from the send until the turn's last line is in the buffer; each ratio the
 * median of RUNS rounds' (a round: one turn of each, one after the other), PASS within LIMIT.
 */
import { join } from "node:path";
import { nvims, ROOT, type Session, withNeovim } from "../helpers/neovim.ts";
import { response } from "../mock-anthropic/script.ts";

const UPDATES = 1000;
const RUNS = 7;
const LIMIT = 1.5;
const nv = nvims().at(-1)!;
const PEER = join(ROOT, "test/acp-peers/burst-agent.mjs");

const cpu = (s: Session) => s.lua<number>("return require('tine.host').request('bench_cpu')");
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Host CPU (µs) from `start()` until thread `id`'s display ends with `end-mark` a `turns`-th time and it is idle. */
async function turnCpu(s: Session, id: string, turns: number, start: () => Promise<void>): Promise<number> {
  const t = await s.thread(id);
  const before = await cpu(s);
  await start();
  await s.until(
    "the turn's last line",
    async () => {
      const lines = await s.lua<string[]>("return vim.api.nvim_buf_get_lines(..., 0, -1, false)", t.bufnr);
      return lines.filter((l) => l === "end-mark").length >= turns;
    },
    60_000,
  );
  await s.waitForStatus(id, "idle");
  return (await cpu(s)) - before;
}

let own = 0;
let acpText = 0;
let acpTools = 0;
/** Each kind's ratio to tine's own: the median of each round's (its turn against the own turn next to it). */
let textRatio = 0;
let toolsRatio = 0;

await withNeovim(
  nv,
  async (s) => {
    // Each drawn in the display window during its turns. The turns take turns (the ACP thread's
    // two kinds, then tine's own, RUNS times over), so that a change of the machine's load during
    // the run weighs on all three alike.
    const text = `${Array.from({ length: UPDATES - 9 }, (_, i) => (i % 40 === 39 ? "\n" : "x")).join("")}\nend-mark`;
    const runs = { own: [] as number[], text: [] as number[], tools: [] as number[] };
    const seeded = await s.lua<{ id: string }>("return require('tine.host').request('bench_seed', ...)", 10);
    await s.open(seeded.id);
    const id = await s.lua<string>("return require('tine').agent('burst')");
    for (let i = 1; i <= RUNS; i++) {
      // The ACP thread first: an empty thread left for another is dropped.
      await s.open(id);
      for (const kind of ["text", "tools"] as const)
        runs[kind].push(
          await turnCpu(s, id, 2 * i - (kind === "text" ? 1 : 0), () => s.lua("require('tine').send(...)", id, `${UPDATES} ${kind}`)),
        );
      await s.open(seeded.id);
      s.mock.reply(response([{ text, chunk: 1 }]));
      runs.own.push(await turnCpu(s, seeded.id, i, () => s.lua("require('tine').send(...)", seeded.id, "stream please")));
    }
    own = median(runs.own) / UPDATES;
    acpText = median(runs.text) / UPDATES;
    acpTools = median(runs.tools) / UPDATES;
    textRatio = median(runs.text.map((t, i) => t / runs.own[i]!));
    toolsRatio = median(runs.tools.map((t, i) => t / runs.own[i]!));
  },
  { env: { TINE_BENCH: "1" }, setup: { acp_agents: { burst: { command: [process.execPath, PEER] } } } },
);

console.log(`ACP updates benchmark (${nv.version}, ${UPDATES} updates per turn, median of ${RUNS} turns)`);
console.log(`  tine's own agent: host CPU ${own.toFixed(1)} µs/delta`);
// Each against the own agent's deltas of the same round: a load that changes during the run weighs on both.
for (const [what, cpu, ratio] of [
  ["message chunks", acpText, textRatio],
  ["chunks and tool calls", acpTools, toolsRatio],
] as const) {
  console.log(
    `  ACP, ${what}: host CPU ${cpu.toFixed(1)} µs/update · ${ratio.toFixed(2)}× a delta of tine's own (target ≤ ${LIMIT}×): ${ratio <= LIMIT ? "PASS" : "FAIL"}`,
  );
}
