/**
 * The requests the Lua side may make, dispatched over the table of methods (methods.ts): the
 * arguments are checked there first, then each method is one call into App. Both entries (the
 * jobstart host and the classic remote-plugin host) route through here.
 */

import { findInstructions } from "../context/instructions.ts";
import { parseArguments } from "../core/checks.ts";
import { App } from "../host/app.ts";
import { parseConfig } from "../host/config.ts";
import type { NvimBridge } from "../nvim/bridge.ts";
import type { MirroredThreads } from "../nvim/lua-shapes.ts";
import { fileInBoth } from "../snapshot/compare.ts";
import type { RestoreDone } from "../snapshot/restore.ts";
import { inputHelp } from "../view/input-help.ts";
import type { Host, MethodRunners } from "./method-runners.ts";
import { isMethod, METHODS, type Method, type ResultIn } from "./methods.ts";
import { isTestMethod, TEST_METHODS, TEST_RUNNERS } from "./test-methods.ts";

const RUNNERS: MethodRunners<typeof METHODS> = {
  init: (host, [config]) => {
    host.start(config);
    return true;
  },
  ping: () => true,

  threads: ({ app }) => app.threadsMirror.now(),
  recent: ({ app }) => app.queries.recent(),
  current: ({ app }) => app.chat.activeId,
  messages: ({ app }, [id]) => app.messages(id),
  usage: ({ app }, [id]) => app.usageOf(id),
  lineage: ({ app }, [id]) => app.queries.lineageOf(id),
  new_thread: ({ app }) => app.newThread().then(({ id, display, input }) => ({ id, display, input })),
  active_buffers: ({ app }) => app.activeBuffers(),
  select: ({ app }, [id]) => app.select(id),
  open: ({ app }, [id]) => app.select(id),
  rename: ({ app }, [id, title]) => {
    app.rename(id, title);
    return true;
  },
  delete: ({ app }, [id]) => {
    app.delete(id);
    return true;
  },
  restore: ({ app }, [id]) => app.list.restore(id).then(() => true as const),
  compact: ({ app }, [id, instructions, at]) => app.compact(id, instructions, at ?? undefined),
  model_choices: ({ app }, [id]) => app.modelChoices(id),
  choose_model: ({ app }, [id, model, effort]) => {
    app.chooseModel(id, model, effort);
    return true;
  },

  send: ({ app }, [id, text, approved]) => app.send(id, text, approved),
  retry: ({ app }, [id]) => {
    app.retry(id);
    return true;
  },
  abort: ({ app }, [id]) => {
    app.abort(id);
    return true;
  },
  line_action: ({ app }, [id, line, action, reason]) => {
    app.lineAction(id, line, action, reason ?? undefined);
    return true;
  },
  queued_at: ({ app }, [id, line]) => app.queuedAt(id, line),
  unqueue: ({ app }, [id, item]) => {
    app.unqueue(id, item);
    return true;
  },

  fork: ({ app }, [id, prompt, opts]) => app.fork(id, prompt, opts),
  cancel_waiting_fork: ({ app }, [id]) => app.cancelWaitingFork(id),
  fork_discard: ({ app }, [id]) => {
    app.discardFork(id);
    return true;
  },
  fork_promote: ({ app }, [id]) => app.promoteFork(id),
  fork_report: ({ app }, [id, text]) => {
    app.reportFork(id, text);
    return true;
  },
  forks_at: ({ app }, [id, line]) => app.queries.forksAt(id, line),
  edit_message: ({ app }, [id, message]) => app.editMessage(id, message).then((fork) => fork ?? ""),
  label: ({ app }, [id, message, text]) => {
    app.label(id, message ?? null, text);
    return true;
  },
  label_at: ({ app }, [id, message]) => app.queries.labelAt(id, message ?? null),
  diff: ({ app }, [a, b]) =>
    app
      .diff(a, b)
      .then((d) => ({ ...d, code: d.code.kind === "files" ? { ...d.code, files: d.code.files.map((f) => ({ ...f })) } : d.code })),
  branch_file: ({ app }, [a, b, path]) => fileInBoth(app.code.snapshots, a, b, path),

  restore_plan: ({ app }, [id, at]) =>
    app.code.plan(id, at).then((p) => ({ root: p.root, files: p.files.map((f) => ({ ...f })), changed_since: [...p.changedSince] })),
  restore_code: ({ app }, [id, at, opts]) => app.code.restore(id, at, opts.overwrite === true).then(restoreResult),
  restore_undo: ({ app }) => app.code.undoRestore().then(restoreResult),
  file_before: ({ app }, [id, line]) => {
    const at = app.locate(id, line);
    return at?.file == null ? null : app.code.fileBefore(id, at.message, at.file);
  },
  snapshot_health: ({ app }) => app.code.snapshots.health(),
  worktree_health: ({ app }) => app.worktreeHealth(),
  code_differs: ({ app }, [id, at]) => app.code.differs(id, at),
  merge_done: ({ app }, [force]) => app.forkCode.mergeDone(force),

  thread_left: ({ app }, [id]) => {
    app.threadLeft(id);
    return true;
  },
  buffers_gone: ({ app }, [id, draft]) => {
    app.buffersGone(id, draft);
    return true;
  },
  thread_for_buffer: ({ app }, [buf]) => app.threadForBuffer(buf),
  locate: ({ app }, [id, line]) => app.locate(id, line),
  locate_message: ({ app }, [id, message]) => app.messageLine(id, message),
  display_text: ({ app }, [id]) => app.displayText(id),

  thread_list: ({ app }, [all]) => app.list.show(all),
  list_filter: ({ app }, [text]) => app.list.change({ type: "filter", text }),
  list_fold: ({ app }, [line, how]) => app.list.change({ type: "fold", line, how }),
  thread_at_list_line: ({ app }, [line]) => app.list.idAt(line),
  list_item: ({ app }, [line]) => app.list.itemAt(line),
  store_health: ({ app }) => app.storeHealth(),
  instructions_health: ({ app }) => findInstructions(app.config.instructions, app.config.cwd),

  mcp_servers: ({ app }) => app.mcp.report(),
  mcp_server: ({ app }, [name, action]) => app.mcp.act(name, action),

  new_claude: ({ app }, [args]) => app.claudeCode.open(args),
  terminal_exited: ({ app }, [id]) => {
    app.terminalExited(id);
    return true;
  },
  claude_sessions: ({ app }) => app.claudeCode.sessions(),
  import_claude: ({ app }, [session]) => app.claudeCode.import(session),
  export_claude: ({ app }, [id]) => app.claudeCode.export(id),

  complete_mention: ({ app }, [before]) => app.completer.complete(before),
  complete_prepare: ({ app }) => {
    app.completer.prepare();
    return true;
  },
  input_help: () => inputHelp(),
};

const restoreResult = (r: RestoreDone) => ({ written: [...r.written], left: [...r.left], skipped: [...r.skipped] });

/** Checks the call's arguments against the table, then runs the method. */
function run<T extends Record<string, Method>, M extends keyof T & string>(
  table: T,
  runners: MethodRunners<T>,
  host: Host,
  name: M,
  args: readonly unknown[],
): ResultIn<T, M> | Promise<ResultIn<T, M>> {
  const method: T[M] = table[name];
  return runners[name](host, parseArguments<T[M]["args"]>(method.api ?? name, method.args, args));
}

/** What every request is answered with (lua/tine/host.lua unwraps it). */
export type Answer = { result: unknown; threads: MirroredThreads | null };

export class Handlers implements Host {
  private current: App | null = null;
  /** Why the last `init` failed: every method says it (the jobstart host gets `init` as a notification, which has no answer). */
  private failedStart: string | null = null;

  constructor(private readonly bridge: NvimBridge) {}

  get app(): App {
    if (!this.current) throw new Error(this.failedStart ?? "tine: the host is not initialised");
    return this.current;
  }

  /** `init`: a new App with these options (a second init replaces the first; a rejected one changes nothing). */
  start(config: unknown): void {
    try {
      const checked = parseConfig(config);
      this.current?.close();
      this.current = null;
      this.current = new App(this.bridge, checked);
      this.failedStart = null;
    } catch (error) {
      if (!this.current) this.failedStart = `tine: the host failed to start: ${error instanceof Error ? error.message : String(error)}`;
      throw error;
    }
  }

  /** The host is exiting: release what the store holds (locks). */
  close(): void {
    this.current?.close();
  }

  /**
   * Runs a request. Its answer carries the thread list when it changed since Lua last got it
   * (view/threads-mirror.ts): after any call, threads() in Lua is as current as the host.
   */
  async handle(method: string, args: unknown[]): Promise<Answer> {
    const result = await this.runMethod(method, args);
    return { result: result ?? null, threads: this.current?.threadsMirror.due() ?? null };
  }

  private async runMethod(method: string, args: unknown[]): Promise<unknown> {
    if (isMethod(method)) return await run(METHODS, RUNNERS, this, method, args);
    if (isTestMethod(method)) return await run(TEST_METHODS, TEST_RUNNERS, this, method, args);
    throw new Error(`tine: unknown request ${method}`);
  }
}
