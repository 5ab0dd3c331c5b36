import type { Session } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";
import {
  env,
  hostCpu,
  lastLines,
  list,
  median,
  ms,
  note,
  nv,
  openForks,
  owe,
  profiled,
  progress,
  quantile,
  record,
  type Seeded,
  seed,
  session,
  TimeUp,
  until,
} from "./scale-kit.ts";
import { FORK_TIMED, SEND_TIMED } from "./scale-probes.ts";

// ---- 1–3: with 0, 300 and 500 forks open ----

const DELTAS = 5000;
function oweForks(): void {
  owe("1", "1. host CPU per streamed delta, 500 forks open / none", "≤ 1.2×");
  owe("2", "2. fork(id, 'p') → its display shows the history, 300 forks open / none (lower quartiles)", "≤ 1.2×");
  owe("3", "3. unrelated 10-message thread, send → reply visible, 300 forks open / none (lower quartiles)", "≤ 1.3×");
}

/** Host CPU per delta of one 5,000-delta stream in `t` (the block held open after its last delta). */
async function streamCpu(s: Session, t: Seeded, tag: string): Promise<number> {
  const body = Array.from({ length: DELTAS - 10 }, (_, i) => (i % 40 === 39 ? "\n" : "x")).join("");
  const text = `${body}\nend ${tag.padStart(4, "0")}`.slice(0, DELTAS);
  s.mock.reply(response([{ text, chunk: 1, holdInside: { hold: tag, afterDeltas: text.length } }]));
  const cpu0 = await hostCpu(s);
  await s.lua("require('tine').send(...)", t.id, `stream ${tag}`);
  await s.mock.reached(tag);
  const tail = text.split("\n").at(-1)!;
  // Polls Neovim alone, so the polling adds nothing to the host's CPU.
  await until(`stream ${tag} shown`, async () => (await lastLines(s, t.display, 4)).includes(tail), 60_000);
  const cpu1 = await hostCpu(s);
  s.mock.release(tag);
  await s.waitForStatus(t.id, "idle");
  return (cpu1 - cpu0) / text.length;
}

/** Waits until `buf` shows no spinner: its thread's turn has ended (asked of Neovim alone, not the host). */
const turnEnded = (s: Session, buf: number) => until("the turn to end", async () => (await s.spinners(buf)) === 0, 10_000);

type Timed = { ms: number[]; cpu: number[] };
const timed = (): Timed => ({ ms: [], cpu: [] });
/**
 * A latency is judged by its lower quartile: on a shared machine the noise only ever adds time, so
 * the fastest quarter is the steadier figure of what the work itself costs (the median is shown too).
 */
const low = (t: Timed) => quantile(t.ms, 0.25);
const figure = (t: Timed) =>
  `${ms(low(t))} (median ${ms(median(t.ms))}, ${Math.min(...t.ms).toFixed(1)}–${Math.max(...t.ms).toFixed(1)}), host CPU ${(median(t.cpu) / 1000).toFixed(1)} ms`;

/**
 * A fork of `src` with a prompt: ms from the call until the fork's display shows the history, and
 * the host CPU until its reply ended. It is discarded after, so the count of forks stays put.
 */
async function forkOnce(s: Session, src: string, into: Timed): Promise<void> {
  s.mock.reply(textReply("ok"));
  const cpu0 = await hostCpu(s);
  const r = await s.lua<{ id: string; display: number; ms: number | null }>(FORK_TIMED, src, "message 9:", 10_000);
  if (r.ms === null) throw new TimeUp("a fork's display to show its history", 10_000);
  await turnEnded(s, r.display);
  into.cpu.push((await hostCpu(s)) - cpu0);
  into.ms.push(r.ms);
  await s.waitForStatus(r.id, "idle");
  await s.lua("require('tine').discard(...)", r.id);
}

/** A send in `t`: ms from the call until the reply shows, and the host CPU until the turn ended. */
async function sendOnce(s: Session, t: Seeded, word: string, into: Timed): Promise<void> {
  s.mock.reply(textReply(`pong ${word}`));
  const cpu0 = await hostCpu(s);
  const took = await s.lua<number | null>(SEND_TIMED, t.id, t.display, word, 10_000);
  if (took === null) throw new TimeUp("a reply to show", 10_000);
  await turnEnded(s, t.display);
  into.cpu.push((await hostCpu(s)) - cpu0);
  into.ms.push(took);
  await s.waitForStatus(t.id, "idle");
}

/** Streams per condition (item 1), and forks and sends per condition (items 2, 3: short, so noisier). */
const RUNS = 9;
const LATENCY_RUNS = 20;

/**
 * 1–3 (the figures are owed above). Each condition has a Neovim of its own, all three open at
 * once, and the measurements alternate between them: the load of a shared machine drifts, and so
 * falls on both sides of a ratio alike. `alone`: one thread (item 1's "none"); `bare`: a thread to
 * fork and one to send in (items 2, 3 with no forks); `forked`: the same three threads and the
 * forks (300, then 500).
 */
export async function forksOpen(): Promise<void> {
  oweForks();
  const keys = ["1", "2", "3"];
  progress("1–3: forks open");
  await session(nv, keys, 200_000, { env }, async (alone, aloneCtx) => {
    await aloneCtx.startHost();
    const aloneStreamer = await seed(alone, 10);
    await streamCpu(alone, aloneStreamer, "warm"); // the first sync writes the seeded messages
    await session(nv, keys, 190_000, { env }, async (bare, bareCtx) => {
      await bareCtx.startHost();
      const bareSource = await seed(bare, 10);
      const bareOther = await seed(bare, 10);
      await forkOnce(bare, bareSource.id, timed()); // warm-up
      await sendOnce(bare, bareOther, "w", timed());
      await session(nv, keys, 180_000, { env }, async (forked, forkedCtx) => {
        await forkedCtx.startHost();
        const streamer = await seed(forked, 10);
        const source = await seed(forked, 10);
        const other = await seed(forked, 10);
        await streamCpu(forked, streamer, "warm");
        await forkOnce(forked, source.id, timed());
        await sendOnce(forked, other, "w", timed());

        const open300 = await openForks(forked, source.id, 300, 60_000);
        note(`opening 300 forks of a 10-message thread (fork(id, '') each, from Lua): ${(open300 / 1000).toFixed(1)} s`);
        progress("300 forks open");
        const [fork0, fork300, send0, send300] = [timed(), timed(), timed(), timed()];
        await profiled(forked, "fork-300-forks", async () => {
          for (let i = 0; i < LATENCY_RUNS; i++) {
            await forkOnce(bare, bareSource.id, fork0);
            await forkOnce(forked, source.id, fork300);
          }
        });
        await profiled(forked, "send-300-forks", async () => {
          for (let i = 0; i < LATENCY_RUNS; i++) {
            await sendOnce(bare, bareOther, `a${i}`, send0);
            await sendOnce(forked, other, `b${i}`, send300);
          }
        });
        const forkRatio = low(fork300) / low(fork0);
        record("2", `${forkRatio.toFixed(2)}× (none ${figure(fork0)} · 300 open ${figure(fork300)})`, forkRatio <= 1.2);
        const sendRatio = low(send300) / low(send0);
        record("3", `${sendRatio.toFixed(2)}× (none ${figure(send0)} · 300 open ${figure(send300)})`, sendRatio <= 1.3);

        const open500 = await openForks(forked, source.id, 200, 60_000);
        note(`opening forks 301–500: ${(open500 / 1000).toFixed(1)} s`);
        progress("500 forks open");
        const cpu0: number[] = [];
        const cpu500: number[] = [];
        // Warm on both sides first: the first few streams of a host run slower (JIT, heap growth).
        for (let i = 0; i < 3; i++) {
          await streamCpu(alone, aloneStreamer, `aw${i}`);
          await streamCpu(forked, streamer, `bw${i}`);
        }
        await profiled(forked, "stream-500-forks", async () => {
          for (let i = 0; i < RUNS; i++) {
            cpu0.push(await streamCpu(alone, aloneStreamer, `a${i}`));
            cpu500.push(await streamCpu(forked, streamer, `b${i}`));
          }
        });
        const cpuRatio = median(cpu500) / median(cpu0);
        record(
          "1",
          `${cpuRatio.toFixed(2)}× (alone ${median(cpu0).toFixed(1)} µs [${list(cpu0)}] · 500 forks open ${median(cpu500).toFixed(1)} µs [${list(cpu500)}])`,
          cpuRatio <= 1.2,
        );
      });
    });
  });
}
