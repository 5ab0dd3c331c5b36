import { statSync } from "node:fs";
import { join } from "node:path";
import { History } from "../../node/core/history.ts";
import { assistantMessage, type Entry, entry, userMessage } from "../../node/core/native.ts";
import { ThreadStore } from "../../node/store/store.ts";
import { ThreadRecorder } from "../../node/store/sync.ts";
import { response } from "../mock-anthropic/script.ts";
import {
  env,
  hostHeap,
  lastLines,
  lineCount,
  median,
  ms,
  nv,
  owe,
  progress,
  record,
  seed,
  session,
  unfinished,
  until,
} from "./scale-kit.ts";
import { OPEN_PROBE } from "./scale-probes.ts";

// ---- 7: replies and threads of any length ----

/** 7a, 7b. */
export async function longReply(): Promise<void> {
  owe("7a", "7a. a 1,000,000-line (10 MB) reply in one text block: send → last line shown", "renders, no error");
  owe("7b", "7b. host heap for that 10 MB reply / its size", "< 5×");
  progress("7: a 10 MB reply");
  await session(nv, ["7a", "7b"], 90_000, { env }, async (s, ctx) => {
    await ctx.startHost();
    const t = await seed(s, 2);
    const LINES = 1_000_000;
    const text = Array.from({ length: LINES }, (_, i) => String(i).padStart(9, "0")).join("\n");
    const last = String(LINES - 1).padStart(9, "0");
    const before = await hostHeap(s);
    s.mock.reply(response([{ text, chunk: 1 << 16 }]));
    const t0 = performance.now();
    await s.lua("require('tine').send(...)", t.id, "a long one please");
    let failed = "";
    await until(
      "the reply's last line shown",
      async () => {
        const errors = (await s.notifications()).filter((n) => n.level >= 4);
        if (errors.length) failed = errors.at(-1)!.msg;
        return failed !== "" || (await lastLines(s, t.display, 6)).includes(last);
      },
      60_000,
    );
    if (failed) {
      unfinished(["7a", "7b"], `failed: ${failed.slice(0, 200)}`);
      return;
    }
    const shown = performance.now() - t0;
    const lines = await lineCount(s, t.display);
    record("7a", `${ms(shown)} (${lines.toLocaleString("en-US")} buffer lines)`, lines >= LINES);
    await until("the reply to end", async () => (await s.thread(t.id)).status === "idle", 30_000);
    const ratio = ((await hostHeap(s)) - before) / text.length;
    record("7b", `${ratio.toFixed(2)}× (${(text.length / 1e6).toFixed(1)} MB reply)`, ratio < 5);
  });
}

/** 7c, 7d. */
export async function storedThread(): Promise<void> {
  owe("7c", "7c. a 50 MB stored thread: open → first screen (its end)", "< 200 ms");
  owe("7d", "7d. a 50 MB stored thread: longest main-loop block from the first screen until all is shown", "≤ 50 ms");
  progress("7: a 50 MB stored thread");
  await session(nv, ["7c", "7d"], 90_000, { env }, async (s, ctx) => {
    // Written as the host writes a thread, before the host starts (it finds it when it starts).
    const dir = join(s.cwd, ".data", "nvim", "tine");
    const store = new ThreadStore(dir, await s.lua<string>("return vim.fn.getcwd()"));
    const id = "00000000-0000-4000-8000-000000005050";
    const title = "fifty megabytes";
    const entries: Entry[] = [];
    const MESSAGES = 200;
    const LINES = 9000;
    for (let m = 0; m < MESSAGES; m++) {
      const text = Array.from({ length: LINES }, (_, j) => `m${m} l${j} `.padEnd(27, "-")).join("\n");
      entries.push(entry(m % 2 ? assistantMessage([{ type: "text", text }]) : userMessage([{ type: "text", text }])));
    }
    const empty = { history: History.empty, open: [], streamed: "", results: new Map(), title, reports: [] };
    const rec = new ThreadRecorder(store.create({ id, num: 1, title, model: "m", runner: { kind: "api" }, parent: null }), empty);
    rec.sync({ ...empty, history: History.of(entries) });
    rec.close();
    const size = statSync(join(store.dir, `${id}.jsonl`)).size;
    // For reference: reading and parsing the transcript alone, in this process (the host does it first).
    const reading: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      new ThreadStore(dir, await s.lua<string>("return vim.fn.getcwd()")).load(id);
      reading.push(performance.now() - t0);
    }
    await ctx.startHost();
    await s.lua(OPEN_PROBE, id, "m0 l0 ", `m${MESSAGES - 1} l${LINES - 1} `, 60_000);
    await until("the stored thread to open", async () => s.lua<boolean>("return _G.tine_bench_open.done ~= nil"), 70_000);
    const p = await s.lua<{
      done: string;
      first?: number;
      all?: number;
      max_gap: number;
      max_apply: number;
      applies: number;
      open_call?: number;
      error?: string;
    }>("return _G.tine_bench_open");
    const what = `${(size / 1e6).toFixed(1)} MB, ${((MESSAGES * LINES) / 1e6).toFixed(1)} M lines`;
    if (p.done === "error") {
      unfinished(["7c", "7d"], `failed: ${p.error}`);
      return;
    }
    if (p.first === undefined) unfinished(["7c"], `did not finish in 60 s (${what})`);
    else
      record(
        "7c",
        `${ms(p.first)} (${what}; the open call held Neovim ${ms(p.open_call ?? Number.NaN)}; reading and parsing the transcript alone: ${ms(median(reading))})`,
        p.first < 200,
      );
    if (p.done !== "all") unfinished(["7d"], "did not finish in 60 s");
    else
      record(
        "7d",
        `${ms(p.max_gap)} (all shown after ${ms(p.all!)}; the longest gap between 5 ms ticks; the longest of ${p.applies} writes into Neovim meanwhile: ${ms(p.max_apply)})`,
        p.max_gap <= 50,
      );
  });
}
