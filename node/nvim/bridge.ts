/**
 * The host's only way to touch Neovim: calls into the Lua side (`require("tine.host_api")`), each
 * named, with its arguments and answer, in lua-api.ts.
 * Buffer writes are sent without waiting, in order, so streaming never waits on a round trip.
 * The calls of one drawing pass go together (`together`): one message, which Neovim handles
 * whole, so nothing Neovim does in between (another client's call, a timer) sees half a pass.
 */
import type { GatherRequest } from "../context/editor.ts";
import { logLine } from "../util/log-line.ts";
import { type ApplyPayload, LUA_RESULTS, type LuaApi, type LuaFn } from "./lua-api.ts";
import type { Edit, Mark } from "./lua-shapes.ts";

/** Neovim's RPC API as the host uses it: the jobstart host's RpcChannel, or the remote-plugin host's client. */
export type NvimRequests = { request(method: string, args: unknown[]): Promise<unknown> };

type Batched = { fn: LuaFn; args: readonly unknown[]; resolve(value: unknown): void; reject(error: Error): void };

/** What a view writes in one of its buffers: its edits, its marks (none: left as they are), its spinner (null: stopped). */
export type ViewUpdate = { edits: Edit[]; marks?: Mark[]; busySince?: number | null };

export class NvimBridge {
  /** The calls of the `together` under way, sent when it ends. */
  private batch: Batched[] | null = null;

  constructor(private readonly nvim: NvimRequests) {}

  /** Calls `require("tine.host_api")[fn](...args)` and returns its answer, checked (lua-api.ts). */
  call<F extends LuaFn>(fn: F, args: LuaApi[F]["args"]): Promise<LuaApi[F]["result"]> {
    const batch = this.batch;
    const answer = batch
      ? new Promise<unknown>((resolve, reject) => batch.push({ fn, args, resolve, reject }))
      : this.nvim.request("nvim_exec_lua", [`return require("tine.host_api").${fn}(...)`, args]);
    return answer.then((value) => LUA_RESULTS[fn](value, fn));
  }

  /**
   * Runs `work` (synchronous); the calls it makes go to Neovim after it as one message, in their
   * order, each answered (or failed) on its own.
   */
  together(work: () => void): void {
    if (this.batch) {
      work();
      return;
    }
    const batch: Batched[] = [];
    this.batch = batch;
    try {
      work();
    } finally {
      this.batch = null;
    }
    if (batch.length === 0) return;
    const calls = batch.map((c) => [c.fn, c.args]);
    this.nvim.request("nvim_exec_lua", ['return require("tine.host_api").batch(...)', [calls]]).then(
      (results) =>
        batch.forEach((c, i) => {
          const [ok, value] = (results as [boolean, unknown][])[i] ?? [false, "no answer"];
          if (ok) c.resolve(value);
          else c.reject(new Error(`${c.fn}: ${String(value)}`));
        }),
      (error: Error) => {
        for (const c of batch) c.reject(error);
      },
    );
  }

  /** What the editor shows, for a message's mentions: `require("tine.context").gather(request)`. */
  gatherContext(request: GatherRequest): Promise<unknown> {
    return this.nvim.request("nvim_exec_lua", ['return require("tine.context").gather(...)', [request]]);
  }

  /** Sends a buffer's edits; the promise (which never rejects) settles once Neovim has made them. */
  applyView(buf: number, update: ViewUpdate): Promise<void> {
    const payload: ApplyPayload = {
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

  /** Shows `url` through the user's opener; it is not logged when that fails (the user sees it in `:Tine mcp`'s notice). */
  openUrl(server: string, url: string): void {
    this.call("open_url", [server, url]).catch(() => this.log(`the sign-in page of MCP server ${server} could not be shown`));
  }

  log(message: string): void {
    logLine(message);
  }
}
