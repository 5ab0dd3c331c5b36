/**
 * Entry of the host Neovim starts with `jobstart(..., { rpc = true })`: msgpack-RPC on stdio.
 * Lua calls `rpcrequest(chan, "tine", method, ...args)`.
 */
import { NvimBridge } from "./nvim/bridge.ts";
import { RpcChannel } from "./nvim/rpc-channel.ts";
import { Handlers } from "./rpc/handlers.ts";
import { killAllToolProcesses } from "./tools/run.ts";

const nvim: RpcChannel = new RpcChannel(process.stdout, (name, args): Promise<unknown> => {
  if (name !== "tine") return Promise.reject(new Error(`tine: unknown request ${name}`));
  const [method, ...rest] = args as [string, ...unknown[]];
  return handlers.handle(method, rest);
});
const handlers = new Handlers(new NvimBridge(nvim));
void nvim.listen(process.stdin);

// A bug must not take the host (and every thread with it) down: it is logged and reported.
const report = (what: string) => (error: unknown) => {
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`tine host: ${what}: ${text}\n`);
  void nvim
    .request("nvim_exec_lua", [
      "local msg = ...; vim.schedule(function() vim.notify(msg, vim.log.levels.ERROR) end)",
      [`tine: internal error (${what}): ${error instanceof Error ? error.message : String(error)}. See the log; your threads are stored.`],
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
