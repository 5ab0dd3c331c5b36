/**
 * What answers the methods only tests and benchmarks reach (rpc/test-methods.ts), against the
 * App `init` started.
 */
import { writeFileSync } from "node:fs";
import type { Session } from "node:inspector/promises";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { History } from "../core/history.ts";
import type { Entry } from "../core/native.ts";
import { assistantMessage, entry, userMessage } from "../core/native.ts";
import type { MethodRunners } from "../rpc/handlers.ts";
import type { TEST_METHODS } from "../rpc/test-methods.ts";
import type { App } from "./app.ts";

export const TEST_RUNNERS: MethodRunners<typeof TEST_METHODS, App> = {
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
  test_housekeep: async ({ app }): Promise<true> => {
    await app.services.housekeep();
    return true;
  },
  bench_seed: async ({ app }, [messages]) => {
    const entries: Entry[] = [];
    for (let i = 0; i < messages; i++) {
      const text = `message ${i}: ${"lorem ipsum dolor sit amet ".repeat(3).trim()}`;
      entries.push(entry(i % 2 ? assistantMessage([{ type: "text", text }]) : userMessage([{ type: "text", text }])));
    }
    const { id, display } = await app.services.threads.create({ runner: { kind: "api", history: History.of(entries) } });
    return { id, display, lines: app.services.buffers.get(id)?.view.text().length ?? 0 };
  },
  bench_expand: async ({ app }, [id, text]) => {
    const thread = app.services.chat.threads.get(id);
    if (!thread) throw new Error(`no thread ${id}`);
    const t0 = performance.now();
    await app.sending.expand(thread, text);
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
