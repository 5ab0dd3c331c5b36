/**
 * The host's one way to its log: stderr, which Neovim keeps in tine.log. The handler for its
 * errors is set on the first line, not at start-up: touching process.stderr makes Node load its
 * stream modules, which the first screen does not need (test/integration/startup.test.ts). With
 * Neovim gone, its end closed, a write fails (EPIPE) as an 'error' event: unhandled, that is an
 * uncaught exception whose report writes here again, without end, and the host would spin.
 */
let guarded = false;

export function logLine(text: string): void {
  if (!guarded) {
    process.stderr.on("error", () => {});
    guarded = true;
  }
  process.stderr.write(`${text}\n`);
}
