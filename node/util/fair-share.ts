/**
 * Stream work that gives way: every stream being read awaits `giveWay()` after each event, and
 * once this turn of the event loop has spent its budget on stream work they all wait for the next
 * turn. In between, Node reads its other input, so a request from Neovim (which waits, blocked, for
 * the answer) is answered ahead of a backlog of thirty streams instead of behind it.
 */
const BUDGET_MS = 4;

/** When this turn's stream work began; unset until the first: `performance` loads perf_hooks, kept out of start-up. */
let turnStarted: number | undefined;
let turnMarked = false;

/** Resolves at once while this turn has budget left; otherwise on the next turn. */
export function giveWay(): Promise<void> | undefined {
  if (!turnMarked) {
    turnMarked = true;
    turnStarted ??= performance.now();
    setImmediate(() => {
      turnMarked = false;
      turnStarted = performance.now();
    });
  }
  if (performance.now() - turnStarted! < BUDGET_MS) return undefined;
  return new Promise((resolve) => setImmediate(resolve));
}
