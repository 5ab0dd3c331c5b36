/**
 * Entry for Neovim's classic node remote-plugin host (rplugin/node/tine): the same handlers as
 * the jobstart host, reached through a `TineRequest(method, args)` function.
 */
import { NvimBridge } from "../nvim/bridge.ts";
import { stopGits } from "../tools/local-git.ts";
import { hostHandlers } from "./requests.ts";

type Plugin = {
  nvim: ConstructorParameters<typeof NvimBridge>[0];
  registerFunction(name: string, fn: (args: unknown[]) => unknown, options: { sync: boolean }): void;
};

export default function register(plugin: Plugin): void {
  const handlers = hostHandlers(new NvimBridge(plugin.nvim));
  process.on("exit", () => {
    handlers.close();
    void stopGits(); // asked to stop with what they started: the process ends now
  });
  plugin.registerFunction("TineRequest", async ([method, args]: unknown[]) => handlers.handle(String(method), (args as unknown[]) ?? []), {
    sync: true,
  });
}
