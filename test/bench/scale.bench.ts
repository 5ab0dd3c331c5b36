/**
 * Scale (issue 17: hundreds of forks open, any reply renders). In real Neovim with the HTTP mock,
 * each figure printed with its target and PASS/FAIL; ratios compare two things measured in the
 * same run, alternating between Neovims open at once (the machine is shared: absolute figures
 * drift between runs):
 * 1. host CPU per streamed delta in one thread, alone vs with 500 forks open (≤ 1.2×);
 * 2. fork(id, 'p') → the fork's display shows its history, 0 vs 300 forks open (≤ 1.2×);
 * 3. an unrelated 10-message thread's send → reply visible, 0 vs 300 forks open (≤ 1.3×);
 * 4. the longest require('tine').threads() call (Neovim held in vim.rpcrequest) while 30
 *    background forks stream, their replies sent by the mock at once (≤ 20 ms);
 * 5. host heap per opened fork of a 1,000-message thread (≤ 64 KiB);
 * 6. :Tine → a thread ready for input (≤ 100 ms): the cursor in its input window in the sidebar,
 *    the buffer modifiable (the host starts meanwhile; when it took over is shown, and Node's own
 *    start-up, for reference);
 * 7. a 1,000,000-line (10 MB) reply renders, and the host's heap for it (< 5× its size); a 50 MB
 *    stored thread opens at its end: first screen (< 200 ms), then the longest main-loop block
 *    until all is shown (≤ 50 ms).
 * Every wait has a limit: what does not finish prints as FAIL, and the run goes on.
 * TINE_SCALE_ONLY=forks,calls,heap,startup,reply,stored runs only the parts named.
 * TINE_BENCH_PROFILE=<dir> also writes host CPU profiles of items 1–4 (with the forks open, the 30
 * forks streaming) there and prints their top functions.
 *
 * One part per figure of the issue, each a function of its own, run in the order the issue names
 * them: items 4–6 here, 1–3 in scale-forks.ts, 7 in scale-long.ts; the tools they share are in
 * scale-kit.ts and scale-probes.ts.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { response, textReply } from "../mock-anthropic/script.ts";
import { forksOpen } from "./scale-forks.ts";
import {
  env,
  hostHeap,
  lineCount,
  list,
  median,
  ms,
  nv,
  openForks,
  owe,
  printFigures,
  profiled,
  progress,
  record,
  seed,
  session,
  started,
  until,
} from "./scale-kit.ts";
import { longReply, storedThread } from "./scale-long.ts";
import { CALLS_PROBE, type CallsProbeResult, TINE_TIMED } from "./scale-probes.ts";

// ---- 4: Neovim held by a call to the host while 30 background forks stream ----

/** 4. */
async function callsWhileStreaming(): Promise<void> {
  owe(
    "4",
    "4. longest hold of Neovim by require('tine').threads() or :Tine threads while 30 background forks stream (the mock sends each reply at once: a backlog)",
    "≤ 20 ms",
  );
  const BG = 30;
  const BG_DELTAS = 5000;
  progress("4: 30 background forks");
  await session(nv, ["4"], 60_000, { env }, async (s, ctx) => {
    await ctx.startHost();
    const source = await seed(s, 10);
    const quiet: number[] = [];
    for (let i = 0; i < 10; i++)
      quiet.push(await s.lua<number>("local t0 = vim.uv.hrtime(); require('tine').threads(); return (vim.uv.hrtime() - t0) / 1e6"));
    const text = Array.from({ length: BG_DELTAS }, (_, i) => (i % 40 === 39 ? "\n" : "y")).join("");
    for (let i = 0; i < BG; i++) s.mock.reply(response([{ text, chunk: 1, holdInside: { hold: `bg${i}`, afterDeltas: 1 } }]));
    s.mock.otherwise(() => textReply("ok"));
    for (let i = 0; i < BG; i++) await s.lua("require('tine').fork(..., 'go', { background = true })", source.id);
    await Promise.all(Array.from({ length: BG }, (_, i) => s.mock.reached(`bg${i}`)));
    await s.lua(CALLS_PROBE, 20, 45_000);
    await profiled(s, "30-forks-streaming", async () => {
      for (let i = 0; i < BG; i++) s.mock.release(`bg${i}`);
      await until("the 30 forks to finish", async () => s.lua<boolean>("return _G.tine_bench_calls.done ~= nil"), 50_000);
    });
    const p = await s.lua<CallsProbeResult>("return _G.tine_bench_calls");
    if (p.done !== "drained") {
      record("4", p.done === "timeout" ? "did not finish in 45 s" : `failed: ${p.error}`, false);
      return;
    }
    record(
      "4",
      `threads() ${ms(p.max_call)}, :Tine threads ${ms(p.max_list)} (${p.calls} threads() and ${p.lists} :Tine threads in ` +
        `${(p.ms / 1000).toFixed(1)} s of ${BG}×${BG_DELTAS} deltas, threads() mean ${ms(p.sum / p.calls)}; ` +
        `with nothing streaming ${ms(median(quiet))}; longest other hold of the main loop ${ms(p.max_late)}; ` +
        `current(), which waits for the host's answer, up to ${ms(p.max_wait)})`,
      Math.max(p.max_call, p.max_list) <= 20,
    );
  });
}

// ---- 5: host memory per opened fork of a 1,000-message thread ----

/** 5. */
async function heapPerFork(): Promise<void> {
  owe("5", "5. host heap per opened fork of a 1,000-message thread", "≤ 64 KiB");
  const FORKS_FOR_HEAP = 100;
  progress("5: heap per fork");
  await session(nv, ["5"], 60_000, { env }, async (s, ctx) => {
    await ctx.startHost();
    const source = await seed(s, 1000);
    await openForks(s, source.id, 5, 30_000); // one-time costs (code, caches) out of the figure
    const before = await hostHeap(s);
    await openForks(s, source.id, FORKS_FOR_HEAP, 45_000);
    const last = (await s.threads()).at(-1)!;
    await until("the last fork's history shown", async () => (await lineCount(s, last.bufnr!)) >= source.lines, 10_000);
    const perFork = ((await hostHeap(s)) - before) / FORKS_FOR_HEAP;
    const text = await s.lines(last.bufnr!);
    const textKiB = text.reduce((sum, l) => sum + Buffer.byteLength(l) + 1, 0) / 1024;
    record(
      "5",
      `${(perFork / 1024).toFixed(1)} KiB (${FORKS_FOR_HEAP} forks; each fork's buffer text is ${textKiB.toFixed(0)} KiB, in Neovim)`,
      perFork <= 64 * 1024,
    );
  });
}

// ---- 6: :Tine → ready ----

/** 6. */
async function startUp(): Promise<void> {
  const RUNS_6 = 7;
  owe("6", `6. :Tine → a thread ready for input (median of ${RUNS_6} fresh Neovims)`, "≤ 100 ms");
  progress("6: start-up");
  const runs: number[] = [];
  const hostRuns: number[] = [];
  for (let i = 0; i < RUNS_6; i++) {
    await session(nv, ["6"], 20_000, { env }, async (s) => {
      const took = await s.lua<{ ready: number | null; host: number | null }>(TINE_TIMED);
      if (took.ready === null) throw new Error(":Tine left no thread input focused in the sidebar");
      if (took.host === null) throw new Error("the host never took the thread over");
      runs.push(took.ready);
      hostRuns.push(took.host);
    });
  }
  // For reference, taken in turns: Node's own start-up, and the host bundle loading (with its
  // input closed it loads, attaches, sees the end and exits).
  const wall = (argv: string[]) => {
    const t0 = performance.now();
    spawnSync("node", argv, { stdio: "ignore" });
    return performance.now() - t0;
  };
  const floor: number[] = [];
  const bundle: number[] = [];
  for (let i = 0; i < RUNS_6; i++) {
    floor.push(wall(["-e", "0"]));
    bundle.push(wall([join(import.meta.dirname, "../host.cjs")]));
  }
  if (runs.length === RUNS_6)
    record(
      "6",
      `${ms(median(runs))} [${list(runs)}] (the host took the thread over after ${ms(median(hostRuns))}; node -e 0: ${ms(median(floor))}; node dist/host.cjs loading and exiting: ${ms(median(bundle))})`,
      median(runs) <= 100,
    );
}

/** The parts, by name: TINE_SCALE_ONLY=forks,calls runs those alone (all by default). */
const PARTS = { forks: forksOpen, calls: callsWhileStreaming, heap: heapPerFork, startup: startUp, reply: longReply, stored: storedThread };
const only = process.env["TINE_SCALE_ONLY"]?.split(",");
for (const [name, run] of Object.entries(PARTS)) if (!only || only.includes(name)) await run();
printFigures(`scale benchmark (${nv.version}; ${((performance.now() - started) / 1000).toFixed(0)} s)`);
