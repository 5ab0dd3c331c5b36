/**
 * Methods for the test suite and the benchmarks only, apart from the user's (methods.ts): each is
 * unknown unless the host was started with its environment variable set to 1. What answers them
 * is node/host/test-requests.ts.
 */

import { arg, index, string } from "../core/checks.ts";
import { type Method, returns } from "./methods.ts";

export const TEST_METHODS = {
  /** An error thrown outside any request, as a bug in a callback would be. */
  test_throw: { args: [], result: returns<true>(), enabledBy: "TINE_TEST_HOOKS" },
  /** The names of Node's own modules the host has loaded so far (what start-up costs). */
  test_node_modules: { args: [], result: returns<string[]>(), enabledBy: "TINE_TEST_HOOKS" },
  /** Runs the snapshot housekeeping now, as the timer a while after start-up does; answers once it is done. */
  test_housekeep: { args: [], result: returns<true>(), enabledBy: "TINE_TEST_HOOKS" },
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

/** Whether this host answers test method `name`: its environment variable is set to 1. */
export function testMethodEnabled(name: TestMethodName): boolean {
  return process.env[TEST_METHODS[name].enabledBy] === "1";
}
