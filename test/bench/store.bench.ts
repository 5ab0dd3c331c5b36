/**
 * Storage costs (issue: threads that last). Prints:
 * - listing 1,000 stored threads of 1,000 messages: cold (no index), warm (index, nothing new),
 *   and after one thread grew (target < 100 ms);
 * - loading a 10,000-message stored thread: in the host alone, and opened in real Neovim until its
 *   buffer shows it all (target < 300 ms);
 * - forking a 10,000-message stored thread: bytes written and time (target < 1 KiB, < 5 ms), the
 *   source's log read for the fork (cold) or already read (warm);
 * - host CPU per streamed delta with persistence on vs off, in one run (target < 10 % more).
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { History } from "../../node/core/history.ts";
import { assistantMessage, type Entry, entry, userMessage } from "../../node/core/native.ts";
import { ThreadStore } from "../../node/store/store.ts";
import { ThreadRecorder } from "../../node/store/sync.ts";
import { nvims, type Session, withNeovim } from "../helpers/neovim.ts";
import { response } from "../mock-anthropic/script.ts";

const rows: string[] = [];
let syncPerDeltaUs = 0;
type AssistantBlockLike = { type: "text"; text: string };
const ms = (t0: number) => `${(performance.now() - t0).toFixed(1)} ms`;

function entries(n: number, tag: string): Entry[] {
  const out: Entry[] = [];
  for (let i = 0; i < n; i++) {
    const text = `${tag} message ${i}: ${"lorem ipsum dolor sit amet ".repeat(3).trim()}`;
    // A reply keeps its request's usage, as the host stores it (the list reads it).
    const meta = {
      stopReason: "end_turn",
      usage: {
        input_tokens: 3,
        output_tokens: 40,
        cache_read_input_tokens: 1000 + i,
        cache_creation_input_tokens: 60,
        web_search_requests: 0,
      },
      request: { model: "claude-sonnet-4-5", prefix: "0123456789abcdef", at: 1_700_000_000_000 + i },
    };
    out.push(i % 2 ? entry(assistantMessage([{ type: "text", text }]), meta) : entry(userMessage([{ type: "text", text }])));
  }
  return out;
}

let nextId = 0;
const uuid = () => `00000000-0000-4000-8000-${String(++nextId).padStart(12, "0")}`;

/** A stored root thread of `n` messages, written as the host writes one. */
function storeThread(store: ThreadStore, n: number, title: string): { id: string; rec: ThreadRecorder; history: History } {
  const id = uuid();
  const rec = new ThreadRecorder(store.create({ id, num: nextId, title, model: "m", runner: { kind: "api" }, parent: null }), {
    history: History.empty,
    open: [],
    streamed: "",
    results: new Map(),
    title,
    reports: [],
  });
  const history = History.of(entries(n, title));
  rec.sync({ history, open: [], streamed: "", results: new Map(), title, reports: [] });
  return { id, rec, history };
}

// ---- listing ----
{
  const dataDir = mkdtempSync(join(tmpdir(), "tine-bench-"));
  try {
    const store = new ThreadStore(dataDir, "/bench/project");
    const made = [];
    for (let i = 0; i < 1000; i++) {
      const t = storeThread(store, 1000, `thread ${i}`);
      t.rec.close();
      made.push(t);
    }
    const bytes = made.reduce((sum, t) => sum + statSync(join(store.dir, `${t.id}.jsonl`)).size, 0);
    let t0 = performance.now();
    let listed = new ThreadStore(dataDir, "/bench/project").list().threads.length;
    rows.push(`list 1,000 threads of 1,000 messages (${(bytes / 2 ** 20).toFixed(0)} MiB): cold, no index ${ms(t0)} (${listed} listed)`);
    t0 = performance.now();
    listed = new ThreadStore(dataDir, "/bench/project").list().threads.length;
    rows.push(`list 1,000 threads of 1,000 messages: warm, from the index ${ms(t0)}`);
    const grown = made[500]!;
    const writer = store.openWriter(grown.id, 1000);
    if ("busy" in writer) throw new Error("busy");
    new ThreadRecorder(writer, {
      history: grown.history,
      open: [],
      streamed: "",
      results: new Map(),
      title: "thread 500",
      reports: [],
    }).sync({
      history: grown.history.push(...entries(2, "more")),
      open: [],
      streamed: "",
      results: new Map(),
      title: "thread 500",
      reports: [],
    });
    t0 = performance.now();
    new ThreadStore(dataDir, "/bench/project").list();
    rows.push(`list 1,000 threads of 1,000 messages: one thread grew since ${ms(t0)}`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// ---- load and fork a 10,000-message stored thread (host side) ----
for (const n of [1000, 10000]) {
  const dataDir = mkdtempSync(join(tmpdir(), "tine-bench-"));
  try {
    const source = storeThread(new ThreadStore(dataDir, "/p"), n, "big");
    source.rec.close();
    const store = new ThreadStore(dataDir, "/p");
    let t0 = performance.now();
    const loaded = store.load(source.id);
    rows.push(
      `${String(n).padStart(6)} messages: load from disk ${ms(t0)} (${(statSync(join(store.dir, `${source.id}.jsonl`)).size / 2 ** 20).toFixed(1)} MiB)`,
    );
    for (const when of ["cold", "warm"] as const) {
      const forkStore = when === "cold" ? new ThreadStore(dataDir, "/p") : store;
      t0 = performance.now();
      const base = forkStore.load(source.id);
      const id = uuid();
      const log = forkStore.create({
        id,
        num: nextId,
        title: "big ⑂1",
        model: "m",
        runner: { kind: "api" },
        parent: { relation: "fork", id: source.id, records: base.records, atMessage: n - 1, messages: base.raw.history.length },
      });
      const rec = new ThreadRecorder(log, {
        history: base.raw.history,
        open: [],
        streamed: "",
        results: new Map(),
        title: "big ⑂1",
        reports: [],
      });
      rec.sync({ history: base.history.share(), open: [], streamed: "", results: new Map(), title: "big ⑂1", reports: [] });
      const took = performance.now() - t0;
      const bytes = statSync(join(store.dir, `${id}.jsonl`)).size;
      rows.push(
        `${String(n).padStart(6)} messages: fork of the stored thread writes ${bytes} B in ${took.toFixed(2)} ms (${when}: source log ${when === "cold" ? "read for it" : "already read"})`,
      );
      rec.close();
    }
    void loaded;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// ---- the per-delta cost of persistence, in the host alone ----
// What streaming adds: after each batch of messages the host syncs every changed thread. A delta
// changes the block in progress only, so the sync compares and writes nothing (the streamed text
// is written when the host's timer wakes the store, once a second). Measured against the whole
// host path per delta below (in Neovim), this is the "persistence on" overhead.
{
  const dataDir = mkdtempSync(join(tmpdir(), "tine-bench-"));
  try {
    const store = new ThreadStore(dataDir, "/p");
    const history = History.of(entries(1000, "streaming"));
    const rec = new ThreadRecorder(store.create({ id: uuid(), num: 1, title: "s", model: "m", runner: { kind: "api" }, parent: null }), {
      history: History.empty,
      open: [],
      streamed: "",
      results: new Map(),
      title: "s",
      reports: [],
    });
    const finalized: AssistantBlockLike[] = [{ type: "text", text: "finished block" }];
    rec.sync({ history, open: finalized, streamed: "", results: new Map(), title: "s", reports: [] });
    const N = 1_000_000;
    const results = new Map();
    const reports: never[] = [];
    const t0 = process.cpuUsage();
    // The text grows with each delta (made beforehand: the agent's cost, not the store's).
    const texts = Array.from({ length: 4096 }, (_, i) => "x".repeat(i + 1));
    for (let i = 0; i < N; i++) rec.sync({ history, open: finalized, streamed: texts[i % texts.length]!, results, title: "s", reports });
    const used = process.cpuUsage(t0);
    syncPerDeltaUs = (used.user + used.system) / N;
    rows.push(`persistence sync per streamed delta (host alone, ${N.toLocaleString("en-US")} deltas): ${syncPerDeltaUs.toFixed(3)} µs`);
    rec.close();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// ---- in real Neovim ----
const nv = nvims().at(-1)!;

await withNeovim(nv, async (s) => {
  const cwd = await s.lua<string>("return vim.fn.getcwd()");
  const dataDir = join(s.cwd, ".data", "nvim", "tine");
  const stored = storeThread(new ThreadStore(dataDir, cwd), 10000, "stored big");
  stored.rec.close();
  const t0 = performance.now();
  await s.lua("require('tine').open(...)", stored.id);
  await s.until(
    "the whole thread shown",
    async () => {
      const t = await s.thread(stored.id);
      if (t.bufnr == null) return false;
      const n = await s.lua<number>("return vim.api.nvim_buf_line_count(...)", t.bufnr);
      // A reply ends in its footer line (stop reason, tokens): the text is a few lines above the end.
      return (await s.lua<string[]>("return vim.api.nvim_buf_get_lines(..., -10, -1, false)", t.bufnr, n)).some((l) =>
        l.includes("message 9999"),
      );
    },
    60_000,
  );
  rows.push(`10,000-message stored thread: open in Neovim until its buffer shows it all ${ms(t0)} (host start-up included)`);
});

const DELTAS = 5000;
async function cpuPerDelta(s: Session): Promise<number> {
  const seeded = await s.lua<{ id: string; display: number; lines: number }>(
    "return require('tine.host').request('bench_seed', ...)",
    1000,
  );
  await s.until(
    "the seeded thread",
    async () => (await s.lua<number>("return vim.api.nvim_buf_line_count(...)", seeded.display)) >= seeded.lines,
    60_000,
  );
  // Its last line is one no other line is, so the wait below sees the whole text arrive.
  const text = `${Array.from({ length: DELTAS - 9 }, (_, i) => (i % 40 === 39 ? "\n" : "x")).join("")}\nend-mark`;
  s.mock.reply(response([{ text, chunk: 1, holdInside: { hold: "last", afterDeltas: DELTAS } }]));
  // The first sync writes the seeded messages: not part of streaming, so done before measuring.
  await s.lua("require('tine').send(...)", seeded.id, "warm up");
  await s.mock.reached("last");
  s.mock.release("last");
  await s.waitForStatus(seeded.id, "idle");
  s.mock.reply(response([{ text, chunk: 1, holdInside: { hold: "last2", afterDeltas: DELTAS } }]));
  const cpu0 = await s.lua<number>("return require('tine.host').request('bench_cpu')");
  await s.lua("require('tine').send(...)", seeded.id, "stream please");
  await s.mock.reached("last2");
  // Polls Neovim's buffer, not the host, so the polling adds nothing to the host's CPU.
  const tail = text.split("\n").at(-1)!;
  await s.until(
    "the full text",
    async () => {
      const n = await s.lua<number>("return vim.api.nvim_buf_line_count(...)", seeded.display);
      return (await s.lua<string[]>("return vim.api.nvim_buf_get_lines(..., -4, -1, false)", seeded.display, n)).includes(tail);
    },
    60_000,
  );
  const cpu1 = await s.lua<number>("return require('tine.host').request('bench_cpu')");
  s.mock.release("last2");
  await s.waitForStatus(seeded.id, "idle");
  return (cpu1 - cpu0) / DELTAS;
}

const cpu: Record<string, number[]> = { on: [], off: [] };
// Alternate to spread machine noise over both.
for (let round = 0; round < 5; round++) {
  for (const persist of [true, false]) {
    await withNeovim(nv, async (s) => void cpu[persist ? "on" : "off"]!.push(await cpuPerDelta(s)), {
      env: { TINE_BENCH: "1" },
      setup: { persist },
    });
  }
}
const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const on = median(cpu["on"]!);
const off = median(cpu["off"]!);
rows.push(
  `host CPU per streamed delta (1,000-message thread, median of 5): persistence on ${on.toFixed(1)} µs · off ${off.toFixed(1)} µs · on/off ${(on / off).toFixed(3)} (runs: on ${cpu["on"]!.map((x) => x.toFixed(1)).join(", ")}; off ${cpu["off"]!.map((x) => x.toFixed(1)).join(", ")})`,
);
// The end-to-end figures move by more than the overhead between runs; the sync's own cost is exact.
rows.push(
  `persistence's added CPU per delta: ${syncPerDeltaUs.toFixed(3)} µs of ${off.toFixed(1)} µs per delta with it off = ${((100 * syncPerDeltaUs) / off).toFixed(2)} % (target < 10 %)`,
);

console.log(`store benchmark (${nv.version})`);
for (const r of rows) console.log(`  ${r}`);
