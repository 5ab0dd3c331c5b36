/**
 * Streaming and rendering in real Neovim (issue: flat cost as threads grow). For threads of 10,
 * 1,000 and 10,000 messages: host CPU per delta over 5,000 deltas, time from the last delta to
 * the full text in the buffer; time to open (first full render) 1,000 and 10,000 messages; and
 * the host's start-up time from the first command to ready.
 */
import { nvims, withNeovim } from "../helpers/neovim.ts";
import { response } from "../mock-anthropic/script.ts";

const DELTAS = 5000;
const nv = nvims().at(-1)!;
const rows: string[] = [];

await withNeovim(
  nv,
  async (s) => {
    const t0 = performance.now();
    await s.lua("require('tine.host').request('ping')");
    rows.push(`host start-up (first command to ready): ${(performance.now() - t0).toFixed(0)} ms`);

    for (const size of [10, 1000, 10000]) {
      const opened = performance.now();
      const seeded = await s.lua<{ id: number; display: number; lines: number }>(
        "return require('tine.host').request('bench_seed', ...)",
        size,
      );
      await s.until(
        "the seeded thread",
        async () => (await s.lua<number>("return vim.api.nvim_buf_line_count(...)", seeded.display)) >= seeded.lines,
        60_000,
      );
      const openMs = performance.now() - opened;
      // Its last line is one no other line is, so the wait below sees the whole text arrive.
      const text = `${Array.from({ length: DELTAS - 9 }, (_, i) => (i % 40 === 39 ? "\n" : "x")).join("")}\nend-mark`;
      s.mock.reply(response([{ text, chunk: 1, holdInside: { hold: `last${size}`, afterDeltas: DELTAS } }]));
      const cpu0 = await s.lua<number>("return require('tine.host').request('bench_cpu')");
      await s.lua("require('tine').send(...)", seeded.id, "stream please");
      await s.mock.reached(`last${size}`);
      const lastDelta = performance.now();
      const tailLine = text.split("\n").at(-1)!;
      await s.until(
        "the full text",
        async () => {
          const n = await s.lua<number>("return vim.api.nvim_buf_line_count(...)", seeded.display);
          const lines = await s.lua<string[]>("return vim.api.nvim_buf_get_lines(..., -3, -1, false)", seeded.display, n);
          return lines.includes(tailLine) && n > seeded.lines + DELTAS / 40;
        },
        60_000,
      );
      const visible = performance.now() - lastDelta;
      const cpu1 = await s.lua<number>("return require('tine.host').request('bench_cpu')");
      s.mock.release(`last${size}`);
      await s.waitForStatus(seeded.id, "idle");
      rows.push(
        `${String(size).padStart(6)} messages: host CPU ${((cpu1 - cpu0) / DELTAS).toFixed(1)} µs/delta · last delta → full text ${visible.toFixed(1)} ms` +
          (size >= 1000 ? ` · open (first full render) ${openMs.toFixed(0)} ms` : ""),
      );
    }
  },
  { env: { TINE_BENCH: "1" } },
);

console.log(`stream benchmark (${nv.version}, ${DELTAS} deltas per run)`);
for (const r of rows) console.log(`  ${r}`);
