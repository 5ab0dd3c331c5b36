/**
 * The host's only way to touch Neovim: calls into the Lua side (`require("tine.host_api")`).
 * Buffer writes are sent without waiting, in order, so streaming never waits on a round trip.
 */
import type { GatherRequest } from "../context/editor.ts";
import type { ViewUpdate } from "../view/thread-view.ts";

/** Neovim's RPC API as the host uses it: the jobstart host's RpcChannel, or the remote-plugin host's client. */
export type NvimRequests = { request(method: string, args: unknown[]): Promise<unknown> };

export class NvimBridge {
  constructor(private readonly nvim: NvimRequests) {}

  /** Calls `require("tine.host_api")[fn](...args)` and returns its result. */
  call(fn: string, args: unknown[]): Promise<unknown> {
    return this.nvim.request("nvim_exec_lua", [`return require("tine.host_api").${fn}(...)`, args]);
  }

  /** What the editor shows, for a message's mentions: `require("tine.context").gather(request)`. */
  gatherContext(request: GatherRequest): Promise<unknown> {
    return this.nvim.request("nvim_exec_lua", ['return require("tine.context").gather(...)', [request]]);
  }

  /** Sends a buffer's edits; the promise (which never rejects) settles once Neovim has made them. */
  applyView(buf: number, update: ViewUpdate): Promise<void> {
    const payload = {
      edits: update.edits,
      marks: update.marks ?? null,
      busy: update.busySince === undefined ? null : { since: update.busySince ?? false },
    };
    return this.call("apply", [buf, payload]).then(
      () => {},
      (e) => this.log(`apply failed: ${String(e)}`),
    );
  }

  notifyInfo(message: string): void {
    this.call("notify", [message, "info"]).catch(() => this.log(message));
  }

  notifyError(message: string): void {
    this.call("notify", [message, "error"]).catch(() => this.log(message));
  }

  log(message: string): void {
    process.stderr.write(`${message}\n`);
  }
}
