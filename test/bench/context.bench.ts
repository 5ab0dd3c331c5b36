/**
 * Mentions' cost (issue 18: "Expanding `@bufs` with 50 loaded buffers: < 50 ms"). In real Neovim
 * with 50 listed, loaded buffers of 300 lines each, prints the median of 15 expansions of `@bufs`
 * as the host times them (Neovim asked once for every buffer, each made an item; nothing sent)
 * against the target, and beside it a whole `send(id, "@bufs")` and a send of plain text as Lua
 * sees them, so what the mention adds to a send is seen apart from the send itself.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { nvims, type Session, withNeovim } from "../helpers/neovim.ts";
import { textReply } from "../mock-anthropic/script.ts";

const BUFFERS = 50;
const LINES = 300;
const RUNS = 15;
const TARGET_MS = 50;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Milliseconds of `send(id, text)` as Lua sees it; waits for the reply to end. */
async function timedSend(s: Session, id: string, text: string): Promise<number> {
  s.mock.reply(textReply("ok"));
  const ms = await s.lua<number>(
    `local t = vim.uv.hrtime()
    require("tine").send(...)
    return (vim.uv.hrtime() - t) / 1e6`,
    id,
    text,
  );
  await s.waitForStatus(id, "idle");
  return ms;
}

const nv = nvims().at(-1)!;
const rows: string[] = [];
await withNeovim(
  nv,
  async (s) => {
    mkdirSync(join(s.cwd, "src"));
    const text = Array.from({ length: LINES }, (_, i) => `export const value${i} = ${i}; // a line of ordinary source text`).join("\n");
    for (let i = 0; i < BUFFERS; i++) writeFileSync(join(s.cwd, "src", `file${i}.ts`), `${text}\n`);
    await s.lua(
      `for i = 0, ... - 1 do
        local b = vim.fn.bufadd("src/file" .. i .. ".ts")
        vim.fn.bufload(b)
        vim.bo[b].buflisted = true
      end`,
      BUFFERS,
    );
    await s.cmd("Tine");
    const id = (await s.threads())[0]!.id;
    const expand: number[] = [];
    for (let i = 0; i < RUNS + 3; i++)
      expand.push(await s.lua<number>("return require('tine.host').request('bench_expand', ...)", id, "@bufs"));
    const plain: number[] = [];
    const bufs: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      plain.push(await timedSend(s, id, `plain ${i}`));
      bufs.push(await timedSend(s, id, `@bufs ${i}`));
    }
    const blocks = s.mock.requests.at(-1)?.body.messages.at(-1)?.content;
    if (!Array.isArray(blocks) || blocks.length !== BUFFERS + 1) throw new Error(`the last request does not hold ${BUFFERS} buffers`);
    const ms = median(expand.slice(3));
    rows.push(
      `expanding @bufs (${BUFFERS} buffers × ${LINES} lines): ${ms.toFixed(1)} ms (target < ${TARGET_MS} ms) ${ms < TARGET_MS ? "PASS" : "FAIL"}`,
      `  a whole send with @bufs: ${median(bufs).toFixed(1)} ms · a send of plain text: ${median(plain).toFixed(1)} ms`,
    );
  },
  { env: { TINE_BENCH: "1" } },
);

console.log(`context benchmark (${nv.version})`);
for (const r of rows) console.log(`  ${r}`);
