/**
 * The boundary between Lua and the host, as a user's script meets it: every function of
 * require("tine") that takes arguments refuses wrong ones with an error naming the argument, and
 * nothing changes; the host takes the options whole, with no defaults of its own.
 */
import assert from "node:assert/strict";
import { describe, inject, it } from "vitest";
import { bodies, texts, typeAndSend } from "../helpers/chat-driver.ts";
import type { Session } from "../helpers/neovim.ts";
import { withNeovim } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");

/**
 * Runs `code` (with `tine`, and `ID` and `FORK` the ids of a thread and of its fork) under pcall:
 * the error it raised, or else the error it reported with vim.notify (the commands report theirs).
 */
async function refusal(s: Session, code: string, ids: { id: string; fork: string }): Promise<string> {
  return await s.lua<string>(
    `
    local code, id, fork = ...
    local run = assert(loadstring("local tine, ID, FORK = ...; " .. code))
    local seen = #_G.tine_notes
    local ok, e = pcall(run, require("tine"), id, fork)
    if not ok then return tostring(e) end
    local note = _G.tine_notes[seen + 1]
    return note and note.msg or "no error"`,
    code,
    ids.id,
    ids.fork,
  );
}

/** What a wrong call must leave as it was: threads, the requests sent, the options, windows and buffers. */
async function state(s: Session) {
  const threads = (await s.threads()).map(({ id, num, parent_id, title, status, messages }) => ({
    id,
    num,
    parent_id,
    title,
    status,
    messages,
  }));
  const editor = await s.lua(`return {
    current = require("tine").current(),
    options = require("tine.config").options,
    tabs = #vim.api.nvim_list_tabpages(),
    windows = #vim.api.nvim_list_wins(),
    buffers = #vim.api.nvim_list_bufs(),
  }`);
  return { threads, requests: s.mock.requests.map((r) => r.body), editor };
}

/** Each call, and the error it must give (the whole message). */
const WRONG_CALLS: [code: string, error: string][] = [
  ["tine.setup(5)", "tine: setup: opts must be a table (got 5)"],
  ["tine.messages()", "tine: messages: id must be a string (got nil)"],
  ["tine.messages(1)", "tine: messages: id must be a string (got 1)"],
  ["tine.send(ID)", "tine: send: text must be a string (got nil)"],
  ["tine.send(ID, { a = 1 })", "tine: send: text must be a string (got a table)"],
  ["tine.send(ID, 42)", "tine: send: text must be a string (got 42)"],
  ["tine.send(nil, 'hi')", "tine: send: id must be a string (got nil)"],
  ["tine.abort()", "tine: abort: id must be a string (got nil)"],
  ["tine.abort({ ID })", "tine: abort: id must be a string (got a table)"],
  ["tine.fork(ID, 'p', { at_message = 0.5 })", "tine: fork: opts.at_message must be an integer >= 0 (got 0.5)"],
  ["tine.fork(ID, 'p', { at_message = -1 })", "tine: fork: opts.at_message must be an integer >= 0 (got -1)"],
  ["tine.fork(ID, 'p', { at_message = '1' })", 'tine: fork: opts.at_message must be an integer >= 0 (got "1")'],
  [
    "tine.fork(ID, 'p', { at_mesage = 1 })",
    'tine: fork: opts has no "at_mesage" (it takes at_message, prefill, wait, background, restore_code, restore_overwrite, worktree, unattended)',
  ],
  ["tine.fork(ID, 'p', { wait = 'yes' })", 'tine: fork: opts.wait must be a boolean (got "yes")'],
  ["tine.fork(ID, 'p', { background = 1 })", "tine: fork: opts.background must be a boolean (got 1)"],
  ["tine.fork(ID, 'p', { prefill = { 'x' } })", "tine: fork: opts.prefill must be a string (got a table)"],
  [
    "tine.fork(ID, 'p', 'later')",
    'tine: fork: opts must be a table (of at_message, prefill, wait, background, restore_code, restore_overwrite, worktree, unattended) (got "later")',
  ],
  ["tine.fork(ID, 5)", "tine: fork: prompt must be a string (got 5)"],
  ["tine.fork(nil, 'p')", "tine: fork: id must be a string (got nil)"],
  ["tine.open()", "tine: open: id must be a string (got nil)"],
  ["tine.open(true)", "tine: open: id must be a string (got true)"],
  ["tine.rename(ID, { a = 1 })", "tine: rename: title must be a string (got a table)"],
  ["tine.rename(ID)", "tine: rename: title must be a string (got nil)"],
  ["tine.rename(7, 'x')", "tine: rename: id must be a string (got 7)"],
  ["tine.delete()", "tine: delete: id must be a string (got nil)"],
  ["tine.delete(1.5)", "tine: delete: id must be a string (got 1.5)"],
  ["tine.discard()", "tine: discard: id must be a string (got nil)"],
  ["tine.discard({ FORK })", "tine: discard: id must be a string (got a table)"],
  ["tine.promote(false)", "tine: promote: id must be a string (got false)"],
  ["tine.report(FORK, 5)", "tine: report: text must be a string or nil (got 5)"],
  ["tine.report(nil, 'done')", "tine: report: id must be a string (got nil)"],
  ["tine.fanout(ID, 'p', { n = 1.5 })", "tine: a fan-out makes 1 to 8 forks (fanout_max), not 1.5"],
  ["tine.fanout(ID, 'p', { n = 0 })", "tine: a fan-out makes 1 to 8 forks (fanout_max), not 0"],
  ["tine.fanout(ID, 'p', { n = 'x' })", 'tine: fanout: opts.n must be a number (got "x")'],
  ["tine.fanout(ID, 'p', { models = 'm' })", 'tine: fanout: opts.models must be a list of model names (got "m")'],
  [
    "tine.fanout(ID, 'p', { models = { 'claude-haiku-4-5', 'no-such-model' } })",
    'tine: no model "no-such-model" in setup: the models are claude-sonnet-5-5, claude-haiku-4-5 (setup\'s model and models, as :Tine model offers them)',
  ],
  [
    "tine.model(ID, 'no-such-model', 'setup')",
    'tine: no model "no-such-model" in setup: the models are claude-sonnet-5-5, claude-haiku-4-5 (setup\'s model and models, as :Tine model offers them)',
  ],
  ["tine.fanout(ID, 'p', { check = true })", "tine: fanout: opts.check must be a shell command (a string) or false (got true)"],
  ["tine.fanout(ID, 'p', { n = 9 })", "tine: a fan-out makes 1 to 8 forks (fanout_max), not 9"],
  ["tine.fanout(ID, '')", "tine: a fan-out needs a prompt: each fork runs it"],
  ["tine.graft(FORK)", "tine: graft: path must be a string (got nil)"],
  ["tine.graft(FORK, 'hello.txt', 1.5)", "tine: graft: hunk must be an integer >= 0 or nil (got 1.5)"],
  ["tine.graft({}, 'hello.txt')", "tine: graft: from_id must be a thread (its id or number) (got a table)"],
  ["tine.import_claude()", "tine: import_claude: session must be a string (got nil)"],
  ["tine.import_claude(5)", "tine: import_claude: session must be a string (got 5)"],
  ["tine.export_claude(5)", "tine: export_claude: id must be a string (got 5)"],
  ["tine.claude(5)", "tine: claude: args must be a string (got 5)"],
  ["tine.diff({})", "tine: diff: a must be a thread (its id or number) (got a table)"],
  ["tine.diff(ID, 0.5)", "tine: diff: b must be a thread (its id or number) or nil (got 0.5)"],
  ["tine.fork_end('explode', FORK)", 'tine: fork_end: action must be "discard", "promote" or "report" (got "explode")'],
  ["tine.fork_end(nil, FORK)", 'tine: fork_end: action must be "discard", "promote" or "report" (got nil)'],
  ["tine.fork_end('discard', 5)", "tine: discard: id must be a string (got 5)"],
  ["tine.fork_end('report', FORK, {})", "tine: report: text must be a string or nil (got a table)"],
  ["tine.retry(5)", "tine: retry: id must be a string (got 5)"],
  [
    "tine.line_action(ID, 'explode')",
    'tine: line_action: action must be one of "toggle", "approve", "approve_always", "deny" (got "explode")',
  ],
  ["tine.line_action(3, 'toggle')", "tine: line_action: id must be a string (got 3)"],
  ["tine.go_to_parent(5)", "tine: lineage: id must be a string (got 5)"],
  ["tine.go_to_fork({})", "tine: forks_at: id must be a string (got a table)"],
  ["tine.rename_current(5)", "tine: rename_current: title must be a string (got 5)"],
];

describe(`boundary (${nv.version})`, () => {
  it("every function of require('tine') that takes arguments refuses wrong ones, naming the argument, and nothing changes", async () => {
    await withNeovim(
      nv,
      async (s) => {
        s.mock.reply(textReply("Hello."));
        await s.cmd("Tine");
        await typeAndSend(s, "hi");
        await s.waitForDisplay(1, "Hello.");
        // The text shows before the turn ends: what is compared must be taken once the thread is idle.
        await s.waitForStatus(1, "idle");
        const id = (await s.thread(1)).id;
        const fork = await s.lua<string>("return require('tine').fork(...)", id);
        await s.until("the fork's buffers", async () => (await s.thread(fork)).bufnr !== null);
        const before = await state(s);
        assert.equal(before.threads.length, 2);
        assert.equal(before.requests.length, 1);
        for (const [code, error] of WRONG_CALLS) {
          assert.equal(await refusal(s, code, { id, fork }), error, code);
          assert.deepEqual(await state(s), before, `${code} changed nothing`);
        }
        // A request sent late would still show: the next one carries the thread as it is.
        s.mock.reply(textReply("Still here."));
        await s.lua("require('tine').send(...)", id, "and now?");
        await s.waitForDisplay(1, "Still here.");
        assert.equal(bodies(s).length, 2);
        assert.deepEqual(texts(bodies(s)[1]!.messages), ["hi", "Hello.", "and now?"]);
      },
      // An executable Claude Code command, so that claude() and export_claude() reach the host.
      { setup: { claude_command: ["true"] } },
    );
  });

  it("the host takes the options whole: what it shows names the user's keys", async () => {
    await withNeovim(
      nv,
      async (s) => {
        await s.cmd("Tine");
        assert.match(await s.display(1), /^Type below and send with <C-s> · @fork <prompt> forks this thread$/m);
        const fork = await s.lua<string>("return require('tine').fork(...)", (await s.thread(1)).id);
        await s.waitForDisplay(
          fork,
          /^ {2}ends with, keys in this display: gX report to it · gP promote into it · - discard · anywhere: :Tine fork/m,
        );
      },
      { setup: { keymaps: { send: false, help: false, fork_report: "gX", fork_discard: false } } },
    );
  });

  it("a tool call waiting for approval names the display's keys as the user mapped them, and those keys answer it", async () => {
    await withNeovim(
      nv,
      async (s) => {
        s.mock.reply(response([{ toolUse: { id: "t1", name: "bash_command", input: { command: "cat hello.txt" } } }]), textReply("Done."));
        await s.cmd("Tine");
        await typeAndSend(s, "list");
        const shown = await s.waitForDisplay(1, "awaiting approval");
        assert.match(shown, /\n {3}⏳ awaiting approval: ga approve · d deny · <leader>n deny saying why\n/);
        await s.onDisplayLine(1, "🔧 bash_command: $ cat hello.txt", "ga");
        await s.waitForDisplay(1, "Done.");
      },
      { setup: { keymaps: { approve: "ga", approve_always: false, deny_reason: "<leader>n" } } },
    );
  });

  it("prices that are not rates are reported by setup, naming the model and field; the built-in table is kept and a send is priced by it", async () => {
    await withNeovim(nv, async (s) => {
      /** What setup() says of `prices` (the harness's own options given again: setup starts from the defaults). */
      const told = (prices: string) =>
        s.lua<string>(`
          local seen = #_G.tine_notes
          require("tine").setup({ retry_delay_ms = 5, auto_title = false, prices = ${prices} })
          local note = _G.tine_notes[seen + 1]
          return note and note.msg or "nothing"`);
      const rates = (change: string) =>
        `{ ["claude-x"] = vim.tbl_extend("force", { input = 3, output = 15, cache_write = 3.75, cache_read = 0.3, context_window = 200000 }, ${change}) }`;
      const dollars = "a number >= 0 (dollars per million tokens)";
      assert.equal(await told(rates("{ input = -1 }")), `tine: setup: prices["claude-x"].input must be ${dollars} (got -1)`);
      assert.equal(await told(rates("{ output = 0/0 }")), `tine: setup: prices["claude-x"].output must be ${dollars} (got nan)`);
      assert.equal(
        await told(rates("{ cache_read = math.huge }")),
        `tine: setup: prices["claude-x"].cache_read must be ${dollars} (got inf)`,
      );
      assert.equal(await told(rates("{ cache_write = '3' }")), `tine: setup: prices["claude-x"].cache_write must be ${dollars} (got "3")`);
      assert.equal(
        await told(rates("{ context_window = 0 }")),
        'tine: setup: prices["claude-x"].context_window must be a number above 0 (got 0)',
      );
      assert.equal(
        await told(`{ ["claude-x"] = 3 }`),
        'tine: setup: prices["claude-x"] must be a table { input, output, cache_write, cache_read, context_window } (got 3)',
      );
      assert.equal(await told("{ { input = 1 } }"), "tine: setup: prices must be a table of rates by model name (got 1 as a name)");
      assert.equal(await told(rates("{}")), "nothing", "good rates pass");
      await told(rates("{ input = -1 }"));
      assert.equal(await s.lua("return vim.tbl_isempty(require('tine.config').options.prices)"), true, "the built-in table is kept");
      // The host starts, and a reply is priced with the built-in rates of the default model (claude-sonnet-5-5: $2 in, $10 out per MTok).
      s.mock.reply(response([{ text: "Priced." }], { usage: { input_tokens: 1000, output_tokens: 100 } }));
      await s.cmd("Tine");
      await typeAndSend(s, "hi");
      await s.waitForDisplay(1, "Priced.");
      const id = (await s.thread(1)).id;
      await s.until(
        "the reply's cost",
        async () => (await s.lua<{ cost_usd: number | null }>("return require('tine').usage(...)", id)).cost_usd !== null,
      );
      const { cost_usd } = await s.lua<{ cost_usd: number }>("return require('tine').usage(...)", id);
      assert.ok(Math.abs(cost_usd - (1000 * 2 + 100 * 10) / 1e6) < 1e-12, String(cost_usd));
    });
  });

  it("the host has no defaults: options sent without a field, or with one it does not know, are refused, naming it", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(textReply("Hello."));
      await s.cmd("Tine");
      await typeAndSend(s, "hi");
      await s.waitForDisplay(1, "Hello.");
      // The text shows before the turn ends (status, message count): compare from the idle thread.
      await s.waitForStatus(1, "idle");
      const before = await state(s);
      // The options as host.lua sends them, changed by `edit`, sent at a second `init`.
      const init = (edit: string) =>
        s.lua<string>(`
          local sent = vim.deepcopy(require("tine.config").options)
          sent.effort, sent.base_url, sent.cwd = vim.NIL, vim.NIL, vim.fn.getcwd()
          ${edit}
          local ok, e = pcall(require("tine.host").request, "init", sent)
          return ok and "accepted" or e`);
      assert.equal(await init("sent.bash_timeout = nil"), "tine: config.bash_timeout must be a number above 0 (got nil)");
      assert.equal(await init("sent.effort = nil"), "tine: config.effort is missing (the Lua side sends every field, nil as vim.NIL)");
      assert.equal(await init("sent.keymaps.send = nil"), "tine: config.keymaps.send must be a key (a string) or false (got nil)");
      assert.match(await init("sent.bash_timout = 3"), /^tine: config has no "bash_timout" \(it takes model, max_tokens, /);
      assert.equal(
        await init("sent.fork_open = 'sideways'"),
        'tine: config.fork_open must be one of "vsplit", "split", "tab", "replace" (got "sideways")',
      );
      assert.deepEqual(await state(s), before, "the running host keeps its threads");
      assert.match(await s.display(1), /Hello\./);
    });
  });
});
