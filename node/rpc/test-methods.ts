/**
 * Methods for the test suite and the benchmarks only, apart from the user's (methods.ts): each is
 * unknown unless the host was started with its environment variable set to 1.
 */
import { writeFileSync } from "node:fs";
import type { Session } from "node:inspector/promises";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { arg, index, string } from "../core/checks.ts";
import { History } from "../core/history.ts";
import { assistantMessage, type Entry, entry, userMessage } from "../core/native.ts";
import type { MethodRunners } from "./method-runners.ts";
import { type Method, returns } from "./methods.ts";

export const TEST_METHODS = {
  /** An error thrown outside any request, as a bug in a callback would be. */
  test_throw: { args: [], result: returns<true>(), enabledBy: "TINE_TEST_HOOKS" },
  /** The names of Node's own modules the host has loaded so far (what start-up costs). */
  test_node_modules: { args: [], result: returns<string[]>(), enabledBy: "TINE_TEST_HOOKS" },
  /** A new thread holding `messages` messages of conversation. */
  bench_seed: {
    args: [arg("messages", index)],
    result: returns<{ id: string; display: number; lines: number }>(),
    enabledBy: "TINE_BENCH",
  },
  /** Milliseconds the mentions of `text` take to expand for thread `id` (the editor asked, each item made); nothing is sent. */
  bench_expand: { args: [arg("id", string), arg("text", string)], result: returns<number>(), enabledBy: "TINE_BENCH" },
  /** The host's CPU time so far (µs). */
  bench_cpu: { args: [], result: returns<number>(), enabledBy: "TINE_BENCH" },
  /** The host's heap in use (bytes) once its garbage is collected. */
  bench_heap: { args: [], result: returns<number>(), enabledBy: "TINE_BENCH" },
  /** Starts the host's CPU profiler; `bench_profile_stop` writes what it saw to `path` (.cpuprofile). */
  bench_profile_start: { args: [], result: returns<true>(), enabledBy: "TINE_BENCH" },
  bench_profile_stop: { args: [arg("path", string)], result: returns<true>(), enabledBy: "TINE_BENCH" },
} as const satisfies Record<string, Method & { enabledBy: "TINE_TEST_HOOKS" | "TINE_BENCH" }>;

export type TestMethodName = keyof typeof TEST_METHODS;

/** A test method this host answers: named in the table, and enabled by its environment variable. */
export function isTestMethod(name: string): name is TestMethodName {
  return Object.hasOwn(TEST_METHODS, name) && process.env[TEST_METHODS[name as TestMethodName].enabledBy] === "1";
}

export const TEST_RUNNERS: MethodRunners<typeof TEST_METHODS> = {
  test_throw: () => {
    setImmediate(() => {
      throw new Error("a test error outside any request");
    });
    return true;
  },
  test_node_modules: () =>
    (process as unknown as { moduleLoadList: string[] }).moduleLoadList.flatMap((m) =>
      m.startsWith("NativeModule ") ? [m.slice(13)] : [],
    ),
  bench_seed: async ({ app }, [messages]) => {
    const entries: Entry[] = [];
    for (let i = 0; i < messages; i++) {
      const text = `message ${i}: ${"lorem ipsum dolor sit amet ".repeat(3).trim()}`;
      entries.push(entry(i % 2 ? assistantMessage([{ type: "text", text }]) : userMessage([{ type: "text", text }])));
    }
    const { id, display } = await app.create({ runner: { kind: "api", history: History.of(entries) } });
    return { id, display, lines: app.displayText(id).length };
  },
  bench_expand: async ({ app }, [id, text]) => {
    const thread = app.chat.threads.get(id);
    if (!thread) throw new Error(`no thread ${id}`);
    const t0 = performance.now();
    await app.expand(thread, text);
    return performance.now() - t0;
  },
  bench_cpu: () => process.cpuUsage().user + process.cpuUsage().system,
  bench_heap: async () => {
    const gc = collector();
    // V8 sweeps concurrently: collect across a few turns of the loop before reading the heap.
    for (let i = 0; i < 4; i++) {
      gc();
      await new Promise((resolve) => setImmediate(resolve));
    }
    return process.memoryUsage().heapUsed;
  },
  bench_profile_start: async (): Promise<true> => {
    if (profiler) throw new Error("bench_profile_start: the profiler is already running");
    // Loaded here, not at start-up: only benchmarks profile. Not by import(): the host runs as a vm
    // Script (node/host/boot.ts), which has no dynamic import.
    const { Session } = process.getBuiltinModule("node:inspector/promises");
    profiler = new Session();
    profiler.connect();
    await profiler.post("Profiler.enable");
    await profiler.post("Profiler.start");
    return true;
  },
  bench_profile_stop: async (_host, [path]): Promise<true> => {
    if (!profiler) throw new Error("bench_profile_stop: the profiler was not started");
    const { profile } = await profiler.post("Profiler.stop");
    writeFileSync(path, JSON.stringify(profile));
    profiler.disconnect();
    profiler = null;
    return true;
  },
};

let profiler: Session | null = null;

/** V8's garbage collector, exposed at run time: the host is started without --expose-gc. */
function collector(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}
