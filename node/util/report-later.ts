/**
 * `error` reported as any uncaught error is (the host's handler logs it), after the caller has
 * gone on: for a listener that threw, where the stream or the loop that called it must not stop.
 */
export function reportLater(error: unknown): void {
  queueMicrotask(() => {
    throw error;
  });
}
