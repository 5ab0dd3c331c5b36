/**
 * What scale.bench.ts measures with: the figures it owes (each printed with its target and a
 * PASS/FAIL mark, or as not finished), sessions with a time budget that cannot hang the run, and
 * a CPU profile's summary; the run's Neovim, environment and clock, and the fork opener items 1–3
 * and 5 share. The Lua probes are in scale-probes.ts.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type NvimBinary, nvims, type Session, type SessionOptions, withNeovim } from "../helpers/neovim.ts";

// ---- figures ----

type Figure = { label: string; target: string; value?: string; pass?: boolean };
const figures = new Map<string, Figure>();

/** A figure the run owes: printed at the end, as "did not finish" if never recorded. */
export function owe(key: string, label: string, target: string): void {
  figures.set(key, { label, target });
}

export function record(key: string, value: string, pass: boolean): void {
  const f = figures.get(key);
  if (!f) throw new Error(`no figure ${key}`);
  if (f.value === undefined) Object.assign(f, { value, pass });
}

/** Every figure of `keys` not recorded yet fails with `why`. */
export function unfinished(keys: readonly string[], why: string): void {
  for (const k of keys) record(k, why, false);
}

const notes: string[] = [];
/** A line printed under the figures (reference values, what went wrong). */
export function note(line: string): void {
  notes.push(line);
  process.stderr.write(`  · ${line}\n`);
}

export function printFigures(title: string): void {
  console.log(title);
  for (const f of figures.values()) {
    const mark = f.value === undefined ? "FAIL" : f.pass ? "PASS" : "FAIL";
    console.log(`  ${mark}  ${f.label}: ${f.value ?? "did not finish"} (target ${f.target})`);
  }
  if (notes.length) console.log("  notes:");
  for (const n of notes) console.log(`    ${n}`);
  const failed = [...figures.values()].filter((f) => !f.pass).length;
  console.log(`  ${figures.size - failed} of ${figures.size} figures meet their target`);
}

export const ms = (x: number) => `${x.toFixed(1)} ms`;
/** The value below which a share `q` of `xs` lies (nearest rank). */
export const quantile = (xs: readonly number[], q: number) => xs.slice().sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))]!;
export const median = (xs: readonly number[]) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
export const list = (xs: readonly number[], digits = 1) => xs.map((x) => x.toFixed(digits)).join(", ");

/** A wait that ran out: the figures it was for print "did not finish in N s". */
export class TimeUp extends Error {
  constructor(what: string, limitMs: number) {
    super(`did not finish in ${(limitMs / 1000).toFixed(0)} s (${what})`);
  }
}

/** Polls `check` (Neovim's state only, so the host's figures are untouched) until it holds, or throws TimeUp. */
export async function until(what: string, check: () => Promise<boolean>, limitMs: number): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new TimeUp(what, limitMs);
    await new Promise((r) => setTimeout(r, 10));
  }
}

// ---- sessions ----

/** What a session's work gets besides the Session: `startHost` starts the host (the first request) and notes its pid. */
export type Ctx = { startHost(): Promise<void> };

/**
 * One Neovim for `fn`, which gets `budgetMs` in all. Past it, or on an error, the figures of
 * `keys` still owed fail with the reason, and the host and Neovim are killed: a host stuck in a
 * long render would otherwise hold Neovim (in its request), and so this run, forever.
 */
export async function session(
  nv: NvimBinary,
  keys: readonly string[],
  budgetMs: number,
  options: SessionOptions,
  fn: (s: Session, ctx: Ctx) => Promise<void>,
): Promise<void> {
  let hostPid: number | null = null;
  try {
    await withNeovim(
      nv,
      async (s) => {
        const ctx: Ctx = {
          async startHost() {
            await s.lua("require('tine.host').request('ping')");
            hostPid = await s.hostPid();
          },
        };
        let timer: NodeJS.Timeout | undefined;
        const over = new Promise<"over">((resolve) => (timer = setTimeout(() => resolve("over"), budgetMs)));
        const work = fn(s, ctx).then(() => "done" as const);
        work.catch(() => {}); // once abandoned, its rejection is expected
        let why: string | null = null;
        try {
          if ((await Promise.race([work, over])) === "over") why = `did not finish in ${(budgetMs / 1000).toFixed(0)} s`;
        } catch (error) {
          why = error instanceof TimeUp ? error.message : `failed: ${(error as Error).message.split("\n")[0]}`;
          if (!(error instanceof TimeUp)) note(`error: ${(error as Error).message.slice(0, 2000)}`);
        } finally {
          clearTimeout(timer);
        }
        if (why === null) return;
        unfinished(keys, why);
        kill(hostPid);
        await s.killNeovim();
      },
      options,
    );
  } catch (error) {
    // Neovim's own failures (it could not start, a request broke the API's rules).
    unfinished(keys, `failed: ${(error as Error).message.split("\n")[0]}`);
    note(`error: ${(error as Error).message.slice(0, 2000)}`);
    kill(hostPid);
  }
}

function kill(pid: number | null): void {
  if (pid === null) return;
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
}

export type Seeded = { id: string; display: number; lines: number };
/** A thread of `messages` messages made by the host (bench_seed), once its display shows them all. */
export async function seed(s: Session, messages: number): Promise<Seeded> {
  const seeded = await s.lua<Seeded>("return require('tine.host').request('bench_seed', ...)", messages);
  await until("the seeded thread shown", async () => (await lineCount(s, seeded.display)) >= seeded.lines, 30_000);
  return seeded;
}
export const lineCount = (s: Session, buf: number) => s.lua<number>("return vim.api.nvim_buf_line_count(...)", buf);

/** The host's heap in use after a full collection (bytes). */
export const hostHeap = (s: Session) => s.lua<number>("return require('tine.host').request('bench_heap')");
/** The host's CPU time so far (µs). */
export const hostCpu = (s: Session) => s.lua<number>("return require('tine.host').request('bench_cpu')");

// ---- a CPU profile's summary ----

const profileDir = process.env["TINE_BENCH_PROFILE"];

/** Runs `fn` under the host's CPU profiler when TINE_BENCH_PROFILE=<dir> is set, and notes its top functions. */
export async function profiled<T>(s: Session, name: string, fn: () => Promise<T>): Promise<T> {
  if (!profileDir) return fn();
  mkdirSync(profileDir, { recursive: true });
  await s.lua("require('tine.host').request('bench_profile_start')");
  const result = await fn();
  const path = join(profileDir, `${name}.cpuprofile`);
  await s.lua("require('tine.host').request('bench_profile_stop', ...)", path);
  note(`profile ${path}, top self time:`);
  for (const line of topFunctions(path)) note(`  ${line}`);
  return result;
}

type ProfileNode = {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
};
type Profile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };

/**
 * The functions with the most self time in a .cpuprofile of the host, as "share  name
 * (source file:line)" through the bundle's source map, as shares of the busy time: idle samples
 * and the profiler's own start and stop are left out.
 */
export function topFunctions(path: string, n = 12): string[] {
  const p = JSON.parse(readFileSync(path, "utf8")) as Profile;
  const byId = new Map(p.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of p.nodes) for (const c of node.children ?? []) parent.set(c, node.id);
  const maps = new Map<string, SourceMap | null>();
  const where = (f: ProfileNode["callFrame"]): string => {
    if (!f.url) return "native";
    if (!maps.has(f.url)) {
      try {
        maps.set(f.url, new SourceMap(JSON.parse(readFileSync(`${fileURLToPath(f.url)}.map`, "utf8"))));
      } catch {
        maps.set(f.url, null);
      }
    }
    const entry = maps.get(f.url)?.findEntry(f.lineNumber, f.columnNumber);
    return entry && "originalSource" in entry
      ? `${entry.originalSource.replace(/^.*\/node\//, "node/")}:${entry.originalLine + 1}`
      : `${f.url.split("/").at(-1)}:${f.lineNumber + 1}`;
  };
  const profilerOwn = (id: number): boolean => {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at))
      if (byId.get(at)!.callFrame.functionName.startsWith("bench_profile")) return true;
    return false;
  };
  const self = new Map<string, number>();
  let total = 0;
  p.samples.forEach((id, i) => {
    const f = byId.get(id)!.callFrame;
    if (f.functionName === "(idle)" || profilerOwn(id)) return;
    const dt = p.timeDeltas[i] ?? 0;
    total += dt;
    const key = `${f.functionName || "(anonymous)"} (${where(f)})`;
    self.set(key, (self.get(key) ?? 0) + dt);
  });
  return [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([key, t]) => `${((100 * t) / total).toFixed(1).padStart(5)} %  ${key}`);
}

/** The run's Neovim (the newest under test), the host's environment and the run's clock. */
export const nv = nvims().at(-1)!;
export const env = { TINE_BENCH: "1" };
export const started = performance.now();
export const progress = (what: string) => process.stderr.write(`scale: ${what} (${((performance.now() - started) / 1000).toFixed(0)} s)\n`);

/** The last `n` lines of `buf` (where a streamed reply ends). */
export const lastLines = (s: Session, buf: number, n: number) =>
  s.lua<string[]>(
    "local b, n = ...; return vim.api.nvim_buf_get_lines(b, math.max(0, vim.api.nvim_buf_line_count(b) - n), -1, false)",
    buf,
    n,
  );

/** Forks `src` `n` times with no prompt, as `require('tine').fork(id, '')` from a user; ms in all. */
export async function openForks(s: Session, src: string, n: number, limitMs: number): Promise<number> {
  const t0 = performance.now();
  for (let done = 0; done < n; done += 25) {
    if (performance.now() - t0 > limitMs) throw new TimeUp(`opening ${n} forks (${done} opened)`, limitMs);
    await s.lua("local src, n = ...; for _ = 1, n do require('tine').fork(src, '') end", src, Math.min(25, n - done));
  }
  return performance.now() - t0;
}
