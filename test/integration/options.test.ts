/**
 * Every option's rule, as a user meets it: a wrong value given to setup() is reported at once
 * (the whole message), and the default kept; the same value sent to the host's `init` is refused
 * with the same words (node/core/options.ts holds each rule once; both sides read it).
 */
import assert from "node:assert/strict";
import { describe, inject, it } from "vitest";
import { withNeovim } from "../helpers/neovim.ts";

const nv = inject("nvim");

/**
 * A wrong value (Lua source) of one option, where the problem is (`at`, from the option's name),
 * what it must be, and what it was as setup() shows it (vim.inspect) and as the host does (a
 * table is "a table"; else the same). A table value is laid over the option's default, as setup
 * does, for `init` too (the host wants every field).
 */
type Case = { option: string; value: string; at: string; wanted: string; got: string; hostGot?: string };

const ABOVE_0 = "a number above 0";
const KEY = "a key (a string) or false";
const THINKING = 'false or a table whose type is "adaptive", "between_tools", "enabled" or "disabled" or nil';
const INSTRUCTIONS = "false or a table { files = { paths }, max_bytes = N }";
const SERVER_NAME = "named with letters, digits, _ and - only (it goes into tool names)";

const CASES: Case[] = [
  { option: "model", value: "5", at: "model", wanted: "a string", got: "5" },
  { option: "max_tokens", value: "0", at: "max_tokens", wanted: ABOVE_0, got: "0" },
  { option: "thinking", value: "5", at: "thinking", wanted: THINKING, got: "5" },
  ...["100", "40000"].map((budget) => ({
    option: "thinking",
    value: `{ type = "enabled", budget_tokens = ${budget} }`,
    at: "thinking.budget_tokens",
    wanted: "at least 1024 and below max_tokens",
    got: budget,
  })),
  {
    option: "thinking",
    value: '{ type = "adaptve" }',
    at: "thinking.type",
    wanted: '"adaptive", "between_tools", "enabled" or "disabled" (or set thinking = false)',
    got: '"adaptve"',
  },
  {
    option: "thinking",
    value: '{ type = "adaptive", display = "full" }',
    at: "thinking.display",
    wanted: '"summarized" or "omitted"',
    got: '"full"',
  },
  {
    option: "effort",
    value: '"extreme"',
    at: "effort",
    wanted: 'one of "low", "medium", "high", "xhigh", "max" or nil',
    got: '"extreme"',
  },
  { option: "web_search", value: '"yes"', at: "web_search", wanted: "a boolean", got: '"yes"' },
  { option: "tools_needing_approval", value: '{ "bash_command", 7 }', at: "tools_needing_approval[2]", wanted: "a string", got: "7" },
  { option: "system_prompt", value: "false", at: "system_prompt", wanted: "a string", got: "false" },
  { option: "instructions", value: "true", at: "instructions", wanted: INSTRUCTIONS, got: "true" },
  { option: "instructions", value: '{ files = "AGENTS.md" }', at: "instructions.files", wanted: "a list of strings", got: '"AGENTS.md"' },
  { option: "instructions", value: "{ max_bytes = 0.5 }", at: "instructions.max_bytes", wanted: "a whole number >= 1", got: "0.5" },
  { option: "base_url", value: "5", at: "base_url", wanted: "a string or nil", got: "5" },
  { option: "stream_idle_timeout", value: "-1", at: "stream_idle_timeout", wanted: ABOVE_0, got: "-1" },
  { option: "max_retry_wait", value: "0", at: "max_retry_wait", wanted: ABOVE_0, got: "0" },
  { option: "bash_timeout", value: "-1", at: "bash_timeout", wanted: ABOVE_0, got: "-1" },
  { option: "tool_env_deny", value: '"HOME"', at: "tool_env_deny", wanted: "a list of strings", got: '"HOME"' },
  { option: "mcp_servers", value: '"gh"', at: "mcp_servers", wanted: "a table of servers by name", got: '"gh"' },
  { option: "mcp_servers", value: '{ ["a.b"] = { url = "u" } }', at: "mcp_servers.a.b", wanted: SERVER_NAME, got: '"a.b"' },
  {
    option: "mcp_servers",
    value: "{ s = { command = {} } }",
    at: "mcp_servers.s.command",
    wanted: "a non-empty list of strings (the program, then its arguments)",
    got: "{}",
    hostGot: "a table",
  },
  {
    option: "mcp_servers",
    value: '{ s = { url = "u", headers = { A = 1 } } }',
    at: "mcp_servers.s.headers.A",
    wanted: "a string",
    got: "1",
  },
  {
    option: "mcp_servers",
    value: "{ s = { url = 5 } }",
    at: "mcp_servers.s.command",
    wanted: "a non-empty list of strings (the program, then its arguments)",
    got: "nil",
  },
  { option: "mcp_auto_approve", value: "{ 1 }", at: "mcp_auto_approve[1]", wanted: "a string", got: "1" },
  { option: "mcp_timeout", value: "0", at: "mcp_timeout", wanted: ABOVE_0, got: "0" },
  { option: "mcp_project_files", value: '"yes"', at: "mcp_project_files", wanted: "true or false", got: '"yes"' },
  { option: "data_dir", value: "5", at: "data_dir", wanted: "a string", got: "5" },
  { option: "persist", value: "1", at: "persist", wanted: "a boolean", got: "1" },
  { option: "snapshots", value: '"no"', at: "snapshots", wanted: "a boolean", got: '"no"' },
  { option: "snapshot_keep_days", value: "0", at: "snapshot_keep_days", wanted: ABOVE_0, got: "0" },
  {
    option: "fork_worktree",
    value: '"sometimes"',
    at: "fork_worktree",
    wanted: 'one of "always", "background", "never"',
    got: '"sometimes"',
  },
  {
    option: "fork_unattended",
    value: '"yes"',
    at: "fork_unattended",
    wanted: 'one of "never", "background", "always"',
    got: '"yes"',
  },
  {
    option: "sandbox_deny_read",
    value: '{ "~/.kube", "secrets" }',
    at: "sandbox_deny_read[2]",
    wanted: "an absolute path or one starting with ~/",
    got: '"secrets"',
  },
  { option: "sandbox_deny_read", value: '"~/.kube"', at: "sandbox_deny_read", wanted: "a list of paths", got: '"~/.kube"' },
  { option: "worktree_dir", value: '""', at: "worktree_dir", wanted: "a folder (a string) or false", got: '""' },
  { option: "fork_idle_timeout", value: "0", at: "fork_idle_timeout", wanted: ABOVE_0, got: "0" },
  { option: "agent_fork_limit", value: "2.5", at: "agent_fork_limit", wanted: "a whole number >= 0", got: "2.5" },
  { option: "context_max_bytes", value: "0", at: "context_max_bytes", wanted: ABOVE_0, got: "0" },
  { option: "context_max_files", value: "-1", at: "context_max_files", wanted: ABOVE_0, got: "-1" },
  { option: "context_git_timeout", value: "0", at: "context_git_timeout", wanted: ABOVE_0, got: "0" },
  {
    option: "fork_open",
    value: '"sideways"',
    at: "fork_open",
    wanted: 'one of "vsplit", "split", "tab", "replace"',
    got: '"sideways"',
  },
  { option: "auto_title", value: '""', at: "auto_title", wanted: "true, false or a model name", got: '""' },
  { option: "models", value: '{ "m", false }', at: "models[2]", wanted: "a string", got: "false" },
  { option: "thinking_budgets", value: "{ low = 1000 }", at: "thinking_budgets.low", wanted: "a whole number >= 1024", got: "1000" },
  { option: "auto_compact", value: "1.5", at: "auto_compact", wanted: "false or a fraction above 0, at most 1", got: "1.5" },
  { option: "sidebar", value: '{ side = "top" }', at: "sidebar.side", wanted: 'one of "left", "right"', got: '"top"' },
  { option: "sidebar", value: '{ width = "wide" }', at: "sidebar.width", wanted: ABOVE_0, got: '"wide"' },
  { option: "sidebar", value: "{ min_editor_width = -1 }", at: "sidebar.min_editor_width", wanted: "a number >= 0", got: "-1" },
  { option: "list_max_height", value: "0", at: "list_max_height", wanted: ABOVE_0, got: "0" },
  { option: "retry_delay_ms", value: "-5", at: "retry_delay_ms", wanted: "a number >= 0", got: "-5" },
  { option: "display_fill_step", value: "0", at: "display_fill_step", wanted: ABOVE_0, got: "0" },
  { option: "claude_command", value: '"claude"', at: "claude_command", wanted: "a non-empty list of strings", got: '"claude"' },
  {
    option: "acp_agents",
    value: '{ claude = { command = "claude-agent-acp" } }',
    at: "acp_agents.claude.command",
    wanted: "a non-empty list of strings (the program, then its arguments)",
    got: '"claude-agent-acp"',
  },
  { option: "node", value: "false", at: "node", wanted: "a string", got: "false" },
  { option: "complete_max_items", value: "0", at: "complete_max_items", wanted: "a whole number >= 1", got: "0" },
  {
    option: "prices",
    value: '{ ["claude-x"] = { input = 3, output = 15, cache_write = 3.75, cache_read = 0.3, context_window = 0 } }',
    at: 'prices["claude-x"].context_window',
    wanted: ABOVE_0,
    got: "0",
  },
  { option: "cache_lifetime", value: "0", at: "cache_lifetime", wanted: ABOVE_0, got: "0" },
  { option: "review_signs", value: '"yes"', at: "review_signs", wanted: "a boolean", got: '"yes"' },
  { option: "keymaps", value: "{ send = 1 }", at: "keymaps.send", wanted: KEY, got: "1" },
  { option: "keymaps", value: '{ fork_report = { "gR" } }', at: "keymaps.fork_report", wanted: KEY, got: '{ "gR" }', hostGot: "a table" },
];

/**
 * Each case's value given to setup() (what it notified, and whether the option kept its default),
 * and sent at a later `init` laid over the options as host.lua sends them (the error it raised).
 */
const RUN_CASES = `
  local cases = ...
  local config, host = require("tine.config"), require("tine.host")
  local out = {}
  for i, c in ipairs(cases) do
    local value = assert(loadstring("return " .. c.value))()
    local sent = vim.deepcopy(config.options)
    sent.effort, sent.base_url, sent.cwd = vim.NIL, vim.NIL, vim.fn.getcwd()
    local default = config.defaults[c.option]
    local over = type(value) == "table" and type(default) == "table" and not vim.islist(default)
    sent[c.option] = over and vim.tbl_deep_extend("force", default, value) or value
    local ok, e = pcall(host.request, "init", sent)
    out[i] = { init = ok and "accepted" or e }
  end
  for i, c in ipairs(cases) do
    local seen = #_G.tine_notes
    config.setup({ [c.option] = assert(loadstring("return " .. c.value))() })
    local note = _G.tine_notes[seen + 1]
    out[i].setup = note and note.msg or "nothing"
    out[i].kept = vim.deep_equal(config.options[c.option], config.defaults[c.option])
  end
  return out`;

describe(`options (${nv.version})`, () => {
  it("a wrong value of each option: setup() says what it must be and keeps the default; the host's init refuses it in the same words", async () => {
    await withNeovim(nv, async (s) => {
      const seen = await s.lua<{ setup: string; init: string; kept: boolean }[]>(
        RUN_CASES,
        CASES.map(({ option, value }) => ({ option, value })),
      );
      const expected = CASES.map((c) => ({
        setup: `tine: setup: ${c.at} must be ${c.wanted} (got ${c.got})`,
        init: `tine: config.${c.at} must be ${c.wanted} (got ${c.hostGot ?? c.got})`,
        kept: true,
      }));
      assert.deepEqual(seen, expected);
    });
  });

  it("a field no rule names, inside an option: setup() and the host's init both name it and what the option takes", async () => {
    await withNeovim(nv, async (s) => {
      const cases = [
        { option: "mcp_servers", value: '{ s = { cmd = "x" } }' },
        { option: "sidebar", value: '{ sides = "left" }' },
        { option: "keymaps", value: '{ sned = "x" }' },
      ];
      const seen = await s.lua<{ setup: string; init: string; kept: boolean }[]>(RUN_CASES, cases);
      const servers = 'mcp_servers.s has no "cmd" (it takes type, command, args, env, cwd, url, headers, oauth)';
      const sidebar = 'sidebar has no "sides" (it takes side, width, input_height, min_editor_width)';
      assert.deepEqual(seen.slice(0, 2), [
        { setup: `tine: setup: ${servers}`, init: `tine: config.${servers}`, kept: true },
        { setup: `tine: setup: ${sidebar}`, init: `tine: config.${sidebar}`, kept: true },
      ]);
      const keys = seen[2]!;
      assert.match(keys.setup, /^tine: setup: keymaps has no "sned" \(it takes send, send_any, help, .*, deny_reason, .*\)$/);
      assert.equal(keys.init, keys.setup.replace("tine: setup: ", "tine: config."));
      assert.equal(keys.kept, true);
    });
  });
});
