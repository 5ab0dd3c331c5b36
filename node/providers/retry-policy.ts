/**
 * What follows a failed attempt of a thread's request: a wait and another try, or giving up with
 * the one line the thread shows (why, and what the user can do). Which errors can be retried at
 * all is api-errors.ts's rule; how often and how long is this host's (`Connection`).
 */
import { startTimer, timerDelay } from "../util/timer.ts";
import { describeError, isRetryable, retryAfterMs } from "./api-errors.ts";
import type { Connection } from "./connection.ts";

/** A request refused before it was sent, for its size; its message says why and how to go on. */
export class OversizeRequest extends Error {}

export type AfterFailure =
  /** Tried again from zero after `ms`; `why` the attempt failed, shown while it waits. */
  | { readonly type: "retry"; readonly ms: number; readonly why: string }
  /** The thread's error. */
  | { readonly type: "give-up"; readonly message: string };

export type FailedAttempt = {
  readonly error: unknown;
  /** 0 for the first try. */
  readonly attempt: number;
  /** The stream went silent past `idleMs` (a stalled connection): given up, never retried. */
  readonly idledOut: boolean;
  readonly idleMs: number;
  readonly baseURL: string;
};

export function afterFailedAttempt(failed: FailedAttempt, connection: Connection): AfterFailure {
  const { error, attempt, baseURL } = failed;
  const wait = failed.idledOut ? null : retryWait(error, attempt, connection);
  if (wait !== null && wait.ms <= (connection.maxRetryWaitMs ?? 60_000))
    return { type: "retry", ms: wait.ms, why: describeError(error, baseURL) };
  let message = failed.idledOut
    ? `no data from the API for ${Math.round(timerDelay(failed.idleMs) / 1000)} s: the request was given up`
    : error instanceof OversizeRequest
      ? error.message
      : describeError(error, baseURL);
  if (wait) message += ` · the server asks to wait ${Math.round(wait.ms / 1000)} s (more than max_retry_wait): send again when you want to`;
  else if (attempt > 0) message += ` · tried ${attempt + 1} times`;
  return { type: "give-up", message };
}

/** How long to wait before trying again, or null when this error is not retried. */
function retryWait(error: unknown, attempt: number, connection: Connection): { ms: number } | null {
  if (!isRetryable(error) || attempt >= connection.streamRetries) return null;
  return { ms: retryAfterMs(error) ?? connection.retryDelayMs * 2 ** attempt };
}

/** Resolves after `ms`, or at once when `signal` aborts (the caller checks which). */
export const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = startTimer(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
