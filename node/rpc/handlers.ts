/**
 * The requests the Lua side may make, by name. Both entries (the jobstart host and the classic
 * remote-plugin host) route through here.
 */
import { App } from "../app.ts";
import { parseConfig } from "../config.ts";
import type { NvimBridge } from "../nvim/bridge.ts";

export class Handlers {
  private app: App | null = null;

  constructor(private readonly bridge: NvimBridge) {}

  /** The host is exiting: release what the store holds (locks). */
  close(): void {
    this.app?.close();
  }

  async handle(method: string, args: unknown[]): Promise<unknown> {
    if (method === "init") {
      this.app?.close();
      this.app = new App(this.bridge, parseConfig(args[0]));
      return true;
    }
    if (method === "ping") return true;
    const app = this.app;
    if (!app) throw new Error("tine: the host is not initialised");
    const [a, b, c] = args as [any, any, any];
    switch (method) {
      case "send":
        return await app.send(a, String(b));
      case "retry":
        app.retry(String(a));
        return true;
      case "fork":
        return await app.fork(a, String(b ?? ""), c ?? {});
      case "abort":
        app.abort(a);
        return true;
      case "cancel_waiting_fork":
        return app.cancelWaitingFork(String(a));
      case "new_thread":
        return await app.newThread().then(({ id, display, input }) => ({ id, display, input }));
      case "active_buffers":
        return await app.activeBuffers();
      case "select":
      case "open":
        return await app.select(String(a));
      case "fork_discard":
        app.discardFork(String(a));
        return true;
      case "fork_promote":
        return await app.promoteFork(String(a));
      case "fork_report":
        app.reportFork(String(a), typeof b === "string" ? b : undefined);
        return true;
      case "new_claude":
        return await app.claudeCode.open(String(a ?? ""));
      case "terminal_exited":
        app.terminalExited(String(a));
        return true;
      case "claude_sessions":
        return app.claudeCode.sessions();
      case "import_claude":
        return await app.claudeCode.import(String(a));
      case "export_claude":
        return await app.claudeCode.export(String(a));
      case "diff":
        return app.diff(String(a), b == null ? undefined : String(b));
      case "restore":
        app.restore(String(a));
        return true;
      case "rename":
        app.rename(String(a), String(b ?? ""));
        return true;
      case "delete":
        app.delete(String(a));
        return true;
      case "recent":
        return app.queries.recent();
      case "store_health":
        return app.storeHealth();
      case "threads":
        return app.queries.threads();
      case "current":
        return app.chat.activeId;
      case "messages":
        return app.messages(a);
      case "lineage":
        return app.queries.lineageOf(a);
      case "buffers_gone":
        app.buffersGone(String(a), Array.isArray(b) ? b.map(String) : []);
        return true;
      case "forks_at":
        return app.queries.forksAt(String(a), Number(b));
      case "thread_for_buffer":
        return app.threadForBuffer(a);
      case "locate":
        return app.locate(a, b);
      case "locate_message":
        return app.messageLine(a, b);
      case "line_action":
        app.lineAction(a, b, c);
        return true;
      case "thread_list":
        return await app.threadList(a === true);
      case "thread_at_list_line":
        return app.threadAtListLine(a);
      case "list_item":
        return app.listItem(a);
      case "display_text":
        return app.displayText(a);
      // Tests only: an error thrown outside any request, as a bug in a callback would be.
      case "test_throw":
        if (process.env["TINE_TEST_HOOKS"] !== "1") break;
        setImmediate(() => {
          throw new Error("a test error outside any request");
        });
        return true;
      // Benchmarks only (test/bench): never reachable unless the host was started for them.
      case "bench_seed":
        if (process.env["TINE_BENCH"] !== "1") break;
        return await app.seedThread(Number(a));
      case "bench_cpu":
        if (process.env["TINE_BENCH"] !== "1") break;
        return process.cpuUsage().user + process.cpuUsage().system;
    }
    throw new Error(`tine: unknown request ${method}`);
  }
}
