/**
 * Entry of the host Neovim starts with `jobstart(..., { rpc = true })`: msgpack-RPC on stdio.
 * Lua calls `rpcrequest(chan, "tine", method, ...args)`.
 */
import { NvimBridge } from "../nvim/bridge.ts";
import { RpcChannel } from "../nvim/rpc-channel.ts";
import { stdinChunks, writeStdout } from "../nvim/stdio.ts";
import { stopGits } from "../tools/local-git.ts";
import { killAllToolProcesses } from "../tools/run.ts";
import { logLine } from "../util/log-line.ts";
import { hostHandlers } from "./requests.ts";

const call = (name: string, args: unknown[]): Promise<unknown> => {
  if (name !== "tine") return Promise.reject(new Error(`tine: unknown request ${name}`));
  const [method, ...rest] = args as [string, ...unknown[]];
  return handlers.handle(method, rest);
};
/**
 * A call Neovim did not wait for (`require("tine.host").request_async`): [token, method, ...args],
 * answered by calling `answered(token, error, result)` back in Lua.
 */
const answerLater = ([token, method, ...args]: unknown[]): void => {
  const back = (error: string | null, result: unknown) =>
    void nvim.request("nvim_exec_lua", ['require("tine.host").answered(...)', [token, error, result ?? null]]).catch(() => {});
  handlers.handle(String(method), args).then(
    (result) => back(null, result),
    (error: unknown) => back(error instanceof Error ? error.message : String(error), null),
  );
};
const nvim: RpcChannel = new RpcChannel(writeStdout, {
  request: call,
  // `init` comes as a notification, sent with the request that started the host (one round trip
  // fewer); its failure is the answer to the requests after it (Handlers), and goes to the log.
  notification: (name, args) =>
    name === "tine_async" ? answerLater(args) : void call(name, args).catch((error: unknown) => logLine(`tine host: ${String(error)}`)),
});
const handlers = hostHandlers(new NvimBridge(nvim));
// Neovim closing the channel (it quit, or was killed) ends the host, within a second: the gits it
// started are stopped and waited for first, so nothing of it writes the snapshot store once it is gone.
void nvim.listen(stdinChunks()).then(async () => {
  await stopGits();
  process.exit(0);
});

// A bug must not take the host (and every thread with it) down: it is logged and reported.
const report = (what: string) => (error: unknown) => {
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
  logLine(`tine host: ${what}: ${text}`);
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
  void stopGits(); // already stopped on the ways out above; here only asked, as the process ends now
});
// SIGTERM: once the gits are stopped, the exit handlers run, then the signal's own action ends the
// process. process.exit would first wait for libuv's thread pool, where the read of stdin waits
// until Neovim closes the channel (as it does before it sends this signal itself; a signal from
// elsewhere comes alone). The gits lead groups of their own: Neovim's signal to the host's group misses them.
process.once("SIGTERM", () => {
  void stopGits().then(() => {
    process.emit("exit", 0);
    process.kill(process.pid, "SIGTERM");
  });
});
