/**
 * With `isolate: false` (vitest.config.ts) the test files of a worker share its process: what a
 * file changed of the process's globals (fake timers, stubbed globals and variables) goes back when
 * it ends, so the next file starts as it would alone. A spy on a global under fake timers is its
 * test's to undo by hand before the fake clock goes (see node/chat/fork-clock.test.ts): vitest
 * restores spies later, and would put the fake back.
 */
import { afterAll, vi } from "vitest";

afterAll(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.unstubAllEnvs();
});
