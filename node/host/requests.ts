/**
 * Which service answers each request Lua makes (rpc/methods.ts), one line each: the service that
 * owns the method (`app.services.…`, `app.sending`), or an entry point of App's when it combines
 * services (app.ts). Adding a method: its line in rpc/methods.ts, its work in the service that
 * owns it, and its line here. Both entries (index.ts, rplugin.ts) take their handlers from
 * `hostHandlers`.
 */

import { findInstructions } from "../context/instructions.ts";
import type { NvimBridge } from "../nvim/bridge.ts";
import { Handlers, type MethodRunners, methodSet } from "../rpc/handlers.ts";
import { METHODS } from "../rpc/methods.ts";
import { TEST_METHODS, testMethodEnabled } from "../rpc/test-methods.ts";
import { sandboxAvailable } from "../sandbox/bwrap.ts";
import { fileInBoth } from "../snapshot/compare.ts";
import type { RestoreDone } from "../snapshot/restore.ts";
import { inputHelp } from "../view/input-help.ts";
import { agentSettingsOf, chooseAgentSetting } from "./agent-settings.ts";
import { App } from "./app.ts";
import { type HostConfig, parseConfig } from "./config.ts";
import { TEST_RUNNERS } from "./test-requests.ts";

const RUNNERS: MethodRunners<typeof METHODS, App> = {
  init: (host, [config]) => {
    host.start(config);
    return true;
  },
  ping: () => true,

  threads: ({ app }) => app.services.threadsMirror.now(),
  recent: ({ app }) => app.services.queries.recent(),
  current: ({ app }) => app.services.chat.activeId,
  messages: ({ app }, [id]) => app.services.threads.live(id).runner.history.messages(),
  usage: ({ app }, [id]) => app.usageOf(id),
  lineage: ({ app }, [id]) => app.services.queries.lineageOf(id),
  new_thread: ({ app }) => app.services.threads.newThread().then(({ id, display, input }) => ({ id, display, input })),
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
  restore: ({ app }, [id]) => app.services.list.restore(id).then(() => true as const),
  compact: ({ app }, [id, instructions, at]) => app.sending.compact(id, instructions, at ?? undefined),
  model_choices: ({ app }, [id]) => app.modelChoices(id),
  agent_settings: ({ app }, [id]) => agentSettingsOf(app.services.threads.live(id)),
  choose_agent_setting: ({ app }, [id, setting, value]) => chooseAgentSetting(app.services.threads.live(id), setting, value),
  choose_model: ({ app }, [id, model, effort]) => {
    app.chooseModel(id, model, effort);
    return true;
  },

  send: ({ app }, [id, text, approved]) => app.sending.send(id, text, approved),
  retry: ({ app }, [id]) => {
    app.sending.retry(id);
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
  queued_at: ({ app }, [id, line]) => app.sending.queuedAt(id, line),
  resolve_merge_at: ({ app }, [id, line]) => app.services.queries.resolveMergeAt(id, line),
  unqueue: ({ app }, [id, item]) => {
    app.sending.unqueue(id, item);
    return true;
  },

  fork: ({ app }, [id, prompt, opts]) => app.sending.fork(id, prompt, opts),
  fanout: ({ app }, [id, prompt, opts]) => app.sending.fanout(id, prompt, opts),
  compare: ({ app }, [ids]) => app.services.fanouts.compare(ids),
  cancel_waiting_fork: ({ app }, [id]) => app.services.forks.cancel(id),
  fork_discard: ({ app }, [id]) => {
    app.discardFork(id);
    return true;
  },
  fork_promote: ({ app }, [id]) => app.promoteFork(id),
  fork_report: ({ app }, [id, text]) => {
    app.reportFork(id, text);
    return true;
  },
  forks_at: ({ app }, [id, line]) => app.services.queries.forksAt(id, line),
  edit_message: ({ app }, [id, message]) => app.services.forks.editMessage(id, message).then((fork) => fork ?? ""),
  label: ({ app }, [id, message, text]) => {
    app.label(id, message ?? null, text);
    return true;
  },
  label_at: ({ app }, [id, message]) => app.services.queries.labelAt(id, message ?? null),
  diff: ({ app }, [a, b]) =>
    app
      .diff(a, b)
      .then((d) => ({ ...d, code: d.code.kind === "files" ? { ...d.code, files: d.code.files.map((f) => ({ ...f })) } : d.code })),
  branch_file: ({ app }, [a, b, path]) => fileInBoth(app.services.code.snapshots, a, b, path),

  restore_plan: ({ app }, [id, at]) =>
    app.services.code
      .plan(id, at)
      .then((p) => ({ root: p.root, files: p.files.map((f) => ({ ...f })), changed_since: [...p.changedSince] })),
  restore_code: ({ app }, [id, at, opts]) => app.services.code.restore(id, at, opts.overwrite === true).then(restoreResult),
  restore_undo: ({ app }) => app.services.code.undoRestore().then(restoreResult),
  file_before: ({ app }, [id, line]) => {
    const at = app.services.buffers.locate(id, line);
    return at?.file == null ? null : app.services.code.fileBefore(id, at.message, at.file);
  },
  snapshot_health: ({ app }) => app.services.code.snapshots.health(),
  worktree_health: ({ app }) => app.worktreeHealth(),
  sandbox_status: () => sandboxAvailable(),
  code_differs: ({ app }, [id, at]) => app.services.code.differs(id, at),
  merge_done: ({ app }, [force]) => app.services.forkCode.mergeDone(force),
  graft: ({ app }, [id, path, hunk]) =>
    app.services.codeServices.grafts
      .graft(app.services.queries.resolve(id), path, hunk ?? null)
      .then((g) => ({ path: g.path, conflicts: g.conflicts, ...(g.hunk === null ? {} : { hunk: g.hunk }) })),
  graft_hunks: ({ app }, [id, path]) =>
    app.services.codeServices.grafts.hunks(id, path).then((hs) => hs.map(({ header, added, removed }) => ({ header, added, removed }))),
  review_hunks: ({ app }, [id, at]) => app.services.reviews.hunks(app.services.queries.resolve(id), at ?? null),
  keep_hunk: ({ app }, [id, path, n, at]) =>
    app.services.reviews.keep(app.services.queries.resolve(id), path, n, at ?? null).then(() => true as const),
  reject_hunk: ({ app }, [id, path, n, at]) =>
    app.services.reviews.reject(app.services.queries.resolve(id), path, n, at ?? null).then((u) => ({ ...u })),
  comment_hunk: ({ app }, [id, path, n, text, at]) =>
    app.services.reviews.comment(app.services.queries.resolve(id), path, n, text, at ?? null).then(() => true as const),

  review_file: ({ app }, [path, id, at]) =>
    app.services.reviews
      .files(path, id == null ? null : app.services.queries.resolve(id), at ?? null)
      .then((fs) => fs.map((f) => ({ ...f }))),

  thread_left: ({ app }, [id]) => {
    app.threadLeft(id);
    return true;
  },
  buffers_gone: ({ app }, [id, draft]) => {
    app.services.buffers.gone(id, draft);
    return true;
  },
  thread_for_buffer: ({ app }, [buf]) => app.services.buffers.threadForBuffer(buf),
  locate: ({ app }, [id, line]) => app.services.buffers.locate(id, line),
  locate_message: ({ app }, [id, message]) => app.messageLine(id, message),
  display_text: ({ app }, [id]) => app.services.buffers.get(id)?.view.text() ?? [],

  thread_list: ({ app }, [all]) => app.services.list.show(all),
  list_filter: ({ app }, [text]) => app.services.list.change({ type: "filter", text }),
  list_fold: ({ app }, [line, how]) => app.services.list.change({ type: "fold", line, how }),
  thread_at_list_line: ({ app }, [line]) => app.services.list.idAt(line),
  list_item: ({ app }, [line]) => app.services.list.itemAt(line),
  store_health: ({ app }) => app.storeHealth(),
  instructions_health: ({ app }) => findInstructions(app.config.instructions, app.config.cwd),

  mcp_servers: ({ app }) => app.services.mcp.report(),
  mcp_unread: ({ app }) => app.services.mcp.unread(),
  mcp_server: ({ app }, [name, action]) => app.services.mcp.act(name, action),
  mcp_tools: ({ app }, [name]) => app.services.mcp.tools(name),
  elicitation_next: ({ app }, [id]) => app.services.mcp.elicitations.next(id),
  elicitation_answer: ({ app }, [id, key, action, values]) => app.services.mcp.elicitations.answer(id, key, action, values ?? {}),

  new_claude: ({ app }, [args]) => app.services.claudeCode.open(args),
  terminal_exited: ({ app }, [id]) => {
    app.services.threads.terminalExited(id);
    return true;
  },
  claude_sessions: ({ app }) => app.services.claudeCode.sessions(),
  import_claude: ({ app }, [session]) => app.services.claudeCode.import(session),
  export_claude: ({ app }, [id]) => app.services.claudeCode.export(id),

  new_agent: ({ app }, [name]) => app.services.agents.open(name),
  agents_health: ({ app }) => app.services.agents.health(),

  complete_mention: ({ app }, [before, messageStart, buf]) => {
    const thread = buf === undefined ? null : app.services.buffers.threadForBuffer(buf);
    const commands = (thread === null ? undefined : app.services.chat.threads.get(thread)?.runner.agentCommands?.()) ?? [];
    return app.services.completer.complete(before, messageStart ?? false, commands);
  },
  complete_prepare: ({ app }) => {
    app.services.completer.prepare();
    return true;
  },
  input_help: () => inputHelp(),
};

const restoreResult = (r: RestoreDone) => ({ written: [...r.written], left: [...r.left], skipped: [...r.skipped] });

/** The handlers of both entries: `init` checks the options and starts an App over `bridge`; the user's methods, then the tests'. */
export function hostHandlers(bridge: NvimBridge): Handlers<App, HostConfig> {
  return new Handlers({
    check: parseConfig,
    start: (config) => new App(bridge, config),
    close: (app) => app.close(),
    threadsDue: (app) => app.services.threadsMirror.due(),
    methods: [methodSet(METHODS, RUNNERS), methodSet(TEST_METHODS, TEST_RUNNERS, testMethodEnabled)],
  });
}
