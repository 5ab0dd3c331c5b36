/**
 * Forking cost. For threads of 100, 1,000 and 10,000 messages: the time of `clone` alone; the
 * heap each fork adds (10,000 forks of the same thread held at once) against what a deep copy of
 * its messages adds (shared, not copied: the ratio stays far below 1 and falls as n grows); and
 * end to end in real Neovim, the time from sending `@fork hi` to the clone's buffer showing its
 * full history.
 * Run with --expose-gc (scripts/bench.mjs does).
 */

import { History } from "../../node/core/history.ts";
import { assistantMessage, type Entry, entry, userMessage } from "../../node/core/native.ts";
import { AnthropicAgent } from "../../node/providers/anthropic-agent.ts";
import { testConfig } from "../helpers/agent-harness.ts";
import { nvims, withNeovim } from "../helpers/neovim.ts";
import { textReply } from "../mock-anthropic/script.ts";

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with node --expose-gc");
/** Heap in use once garbage is gone: V8 sweeps concurrently, so collect across a few turns. */
async function heap(): Promise<number> {
  for (let i = 0; i < 4; i++) {
    gc!();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return process.memoryUsage().heapUsed;
}
const connection = { client: null, streamRetries: 0, retryDelayMs: 0 };

function entries(n: number): Entry[] {
  const out: Entry[] = [];
  for (let i = 0; i < n; i++) {
    const text = `message ${i}: ${"lorem ipsum dolor sit amet ".repeat(3).trim()}`;
    out.push(entry(i % 2 ? assistantMessage([{ type: "text", text }]) : userMessage([{ type: "text", text }])));
  }
  return out;
}

const FORKS = 10_000;

/**
 * One size's figures. A function of its own: a suspended async frame keeps stale registers alive,
 * so measuring in one loop would count the last size's forks being freed against this size's.
 */
async function measure(n: number): Promise<string> {
  const source = new AnthropicAgent(testConfig, connection, () => {}, History.of(entries(n)), { type: "stopped", stopReason: "end_turn" });
  for (let i = 0; i < 200; i++) source.clone(() => {}); // warm up
  const runs = 2000;
  const t0 = performance.now();
  for (let i = 0; i < runs; i++) source.clone(() => {});
  const cloneUs = ((performance.now() - t0) / runs) * 1000;
  // Many forks held at once, so the figure per fork stands well above the heap's noise.
  const before = await heap();
  const forks = Array.from({ length: FORKS }, () => source.clone(() => {}));
  const perFork = ((await heap()) - before) / forks.length;
  // What copying the conversation would cost instead: the size of the messages themselves.
  const copyBefore = await heap();
  const copies = Array.from({ length: 10 }, () => structuredClone(source.history.messages()));
  const perCopy = ((await heap()) - copyBefore) / copies.length;
  return (
    `${String(n).padStart(6)} messages: clone ${cloneUs.toFixed(2)} µs · each fork adds ${perFork.toFixed(0)} B · ` +
    `a deep copy would add ${(perCopy / 1024).toFixed(0)} KiB (fork/copy ${(perFork / perCopy).toExponential(1)})`
  );
}

const rows: string[] = [];
for (const n of [100, 1000, 10000]) rows.push(await measure(n));

const nv = nvims().at(-1)!;
await withNeovim(
  nv,
  async (s) => {
    for (const n of [100, 1000, 10000]) {
      const seeded = await s.lua<{ id: number; display: number; lines: number }>(
        "return require('tine.host').request('bench_seed', ...)",
        n,
      );
      s.mock.reply(textReply("ok"));
      const before = (await s.threads()).length;
      const t0 = performance.now();
      await s.lua("require('tine').send(...)", seeded.id, "@fork hi");
      // The clone's history: the seeded messages plus the prompt, in its own buffer.
      await s.until(
        "the clone's full history",
        async () => {
          const threads = await s.threads();
          if (threads.length === before) return false;
          const buf = threads.at(-1)!.bufnr;
          const count = await s.lua<number>("return vim.api.nvim_buf_line_count(...)", buf);
          return (
            count >= seeded.lines + 3 && (await s.lua<string[]>("return vim.api.nvim_buf_get_lines(..., 0, -1, false)", buf)).includes("hi")
          );
        },
        60_000,
      );
      const ms = performance.now() - t0;
      rows.push(`${String(n).padStart(6)} messages: @fork hi → clone buffer shows its full history ${ms.toFixed(1)} ms`);
      await s.waitForStatus((await s.threads()).at(-1)!.id, "idle");
    }
  },
  { env: { TINE_BENCH: "1" } },
);

console.log(`fork benchmark (${nv.version})`);
for (const r of rows) console.log(`  ${r}`);
