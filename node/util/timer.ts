/**
 * Timers whose delay comes from an option or from the model: the one place that keeps a delay
 * within what `setTimeout` holds. A longer delay would fire after 1 ms with a
 * TimeoutOverflowWarning (a re-armed timer then spins); clamped, it fires early at worst, and
 * every caller re-checks its deadline when it fires.
 */

/** The longest delay `setTimeout` holds: 2^31-1 ms, about 24.8 days. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** `ms` as a delay `setTimeout` holds: NaN and negatives are 0, the rest at most MAX_TIMER_MS. */
export function timerDelay(ms: number): number {
  if (!(ms > 0)) return 0;
  return Math.min(ms, MAX_TIMER_MS);
}

/** `setTimeout(fn, ms)` with `ms` clamped (see timerDelay). */
export function startTimer(fn: () => void, ms: number): NodeJS.Timeout {
  return setTimeout(fn, timerDelay(ms));
}
