/**
 * Entry of the host Neovim starts with `jobstart(..., { rpc = true })`: msgpack-RPC on stdio.
 * Lua calls `rpcrequest(chan, "tine", method, ...args)`.
 */
import { attach } from "neovim";
import { NvimBridge } from "./nvim/bridge.ts";
import { quietLogger } from "./nvim/logger.ts";
import { Handlers } from "./rpc/handlers.ts";
import { killAllToolProcesses } from "./tools/run.ts";

const nvim = attach({ reader: process.stdin, writer: process.stdout, options: { logger: quietLogger } });
const handlers = new Handlers(new NvimBridge(nvim));

nvim.on("request", (name: string, args: unknown[], resp: { send(value: unknown, isError?: boolean): void }) => {
  if (name !== "tine") return resp.send(`tine: unknown request ${name}`, true);
  const [method, ...rest] = args as [string, ...unknown[]];
  handlers.handle(method, rest).then(
    (value) => resp.send(value ?? null),
    (error: unknown) => resp.send(error instanceof Error ? error.message : String(error), true),
  );
});

// A bug must not take the host (and every thread with it) down: it is logged and reported.
const report = (what: string) => (error: unknown) => {
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`tine host: ${what}: ${text}\n`);
  void nvim
    .lua("local msg = ...; vim.schedule(function() vim.notify(msg, vim.log.levels.ERROR) end)", [
      `tine: internal error (${what}): ${error instanceof Error ? error.message : String(error)}. See the log; your threads are stored.`,
    ])
    .catch(() => {});
};
process.on("unhandledRejection", report("unhandled rejection"));
process.on("uncaughtException", report("uncaught exception"));
// Locks on stored threads are released on every way out that runs code (a kill -9 leaves them
// stale, and the next host takes them over).
process.on("exit", () => {
  handlers.close();
  killAllToolProcesses();
});
process.on("SIGTERM", () => process.exit(0));
process.stdin.on("end", () => process.exit(0));
