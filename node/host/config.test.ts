import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { emptyHint, forkKeys, type Keymaps, parseConfig, type SentConfig } from "./config.ts";

const keymaps: Keymaps = {
  send: "<CR>",
  send_any: "<C-s>",
  help: "g?",
  abort: "<C-c>",
  retry: "R",
  toggle_detail: "<Tab>",
  open_change: "<CR>",
  approve: "a",
  approve_always: "A",
  deny: "d",
  input_approve: "<C-y>",
  input_approve_always: "g<C-y>",
  input_deny: "<C-n>",
  input_deny_reason: "g<C-n>",
  edit_queued: "<CR>",
  resolve_merge: "<CR>",
  fork_at_message: "F",
  go_to_parent: "gp",
  go_to_fork: "gb",
  fork_report: "gR",
  fork_promote: "gP",
  fork_discard: "gD",
  list_background: "b",
  list_open: "<CR>",
  list_fork: "f",
  list_worktree: "w",
  list_rename: "r",
  list_delete: "D",
  add: "<leader>ta",
  list_filter: "/",
  list_diff: "d",
  compare_open: "<CR>",
  compare_expand: "<Tab>",
  compare_mark: "m",
  compare_diff: "d",
  compare_promote: "P",
  compare_discard: "D",
  compare_discard_others: "X",
  compare_graft: "g",
  label: "L",
  edit_message: "e",
  compact: "C",
  deny_reason: "D",
  review_keep: "gk",
  review_undo: "gu",
  review_comment: "gc",
  next_hunk: "]h",
  prev_hunk: "[h",
  review_next_file: "]f",
  review_prev_file: "[f",
  review_quit: "q",
};

/** Every option, as lua/tine/host.lua sends it (the unset ones as nil). */
const base: SentConfig = {
  model: "m",
  max_tokens: 8192,
  thinking: { type: "adaptive", display: "summarized" },
  effort: null,
  web_search: false,
  tools_needing_approval: ["bash_command", "edit_file"],
  system_prompt: "s",
  instructions: { files: ["AGENTS.md"], max_bytes: 32768 },
  base_url: null,
  stream_idle_timeout: 60,
  max_retry_wait: 60,
  bash_timeout: 120,
  tool_env_deny: [],
  mcp_servers: {},
  mcp_auto_approve: [],
  mcp_timeout: 120,
  mcp_project_files: false,
  data_dir: "/tmp/tine-data",
  persist: true,
  snapshots: true,
  snapshot_keep_days: 30,
  fork_worktree: "background",
  worktree_dir: false,
  fork_unattended: "never",
  sandbox_deny_read: ["~/.kube"],
  fanout_max: 8,
  check_command: false,
  fork_idle_timeout: 10,
  agent_fork_limit: 3,
  context_max_bytes: 262144,
  context_max_files: 50,
  context_git_timeout: 10,
  fork_open: "vsplit",
  auto_title: true,
  models: ["m", "n"],
  thinking_budgets: { low: 2048, medium: 4096, high: 6000 },
  auto_compact: 0.8,
  sidebar: { side: "right", width: 80, input_height: 8, min_editor_width: 40 },
  list_max_height: 15,
  retry_delay_ms: 1000,
  display_fill_step: 131072,
  claude_command: ["claude"],
  acp_agents: {},
  node: "node",
  complete_max_items: 50,
  prices: {},
  cache_lifetime: 5,
  review_signs: true,
  keymaps,
  cwd: "/",
};

describe("parseConfig: thinking and effort", () => {
  it("passes the API's own thinking values through, with only the fields it defines", () => {
    assert.deepEqual(parseConfig({ ...base, thinking: { type: "adaptive", display: "summarized", extra: 1 } }).thinking, {
      type: "adaptive",
      display: "summarized",
    });
    assert.deepEqual(parseConfig({ ...base, thinking: { type: "between_tools", display: "summarized" } }).thinking, {
      type: "between_tools",
    });
    assert.deepEqual(parseConfig({ ...base, thinking: { type: "enabled", budget_tokens: 2048 } }).thinking, {
      type: "enabled",
      budget_tokens: 2048,
    });
  });

  it("false or nil sends no thinking and no effort; a thinking not sent at all is an error", () => {
    for (const thinking of [false, null]) {
      const c = parseConfig({ ...base, thinking, effort: null });
      assert.equal(c.thinking, null);
      assert.equal(c.effort, null);
    }
    assert.throws(() => parseConfig({ ...base, thinking: undefined }), /tine: config\.thinking is missing/);
  });

  it("reports a bad value at setup, naming the option", () => {
    assert.throws(
      () => parseConfig({ ...base, thinking: { type: "enabled", budget_tokens: 100 } }),
      /thinking\.budget_tokens must be at least 1024/,
    );
    assert.throws(() => parseConfig({ ...base, thinking: { type: "enabled", budget_tokens: 9000 } }), /below max_tokens/);
    assert.throws(() => parseConfig({ ...base, thinking: { type: "adaptve" } }), /thinking\.type must be/);
    assert.throws(() => parseConfig({ ...base, thinking: { type: "adaptive", display: "full" } }), /thinking\.display/);
    assert.throws(
      () => parseConfig({ ...base, effort: "extreme" }),
      /^Error: tine: config\.effort must be one of "low", "medium", "high", "xhigh", "max" or nil \(got "extreme"\)$/,
    );
    assert.equal(parseConfig({ ...base, effort: "xhigh" }).effort, "xhigh");
  });
});

describe("parseConfig: every option, no defaults of its own", () => {
  it("takes the options as sent", () => {
    const c = parseConfig(base);
    assert.equal(c.bash_timeout, 120);
    assert.equal(c.fork_open, "vsplit");
    assert.deepEqual(c.claude_command, ["claude"]);
    assert.deepEqual(c.keymaps, keymaps);
  });

  it("a field not sent is an error naming it, for every field", () => {
    for (const name of Object.keys(base) as (keyof SentConfig)[]) {
      const { [name]: _, ...without } = base;
      assert.throws(() => parseConfig(without), new RegExp(`^Error: tine: config\\.${name} (is missing|must be)`), name);
    }
    const { send: _, ...keys } = keymaps;
    assert.throws(
      () => parseConfig({ ...base, keymaps: keys }),
      /tine: config\.keymaps\.send must be a key \(a string\) or false \(got nil\)/,
    );
  });

  it("a wrong value is an error naming it and saying what it must be", () => {
    assert.throws(
      () => parseConfig({ ...base, bash_timeout: 0 }),
      /^Error: tine: config\.bash_timeout must be a number above 0 \(got 0\)$/,
    );
    assert.throws(
      () => parseConfig({ ...base, fork_open: "sideways" }),
      /^Error: tine: config\.fork_open must be one of "vsplit", "split", "tab", "replace" \(got "sideways"\)$/,
    );
    assert.throws(
      () => parseConfig({ ...base, agent_fork_limit: 2.5 }),
      /^Error: tine: config\.agent_fork_limit must be a whole number >= 0 \(got 2\.5\)$/,
    );
    assert.equal(parseConfig({ ...base, agent_fork_limit: 0 }).agent_fork_limit, 0);
    assert.throws(() => parseConfig({ ...base, claude_command: [] }), /config\.claude_command must be a non-empty list of strings/);
    assert.throws(() => parseConfig({ ...base, tool_env_deny: ["A", 1] }), /config\.tool_env_deny\[2\] must be a string \(got 1\)/);
    assert.throws(() => parseConfig({ ...base, sidebar: { ...base.sidebar, width: "wide" } }), /config\.sidebar\.width must be a number/);
    assert.throws(() => parseConfig({ ...base, keymaps: { ...keymaps, send: 1 } }), /config\.keymaps\.send must be a key/);
    assert.throws(() => parseConfig("model"), /^Error: tine: config must be a table \(got "model"\)$/);
    assert.equal(parseConfig({ ...base, instructions: false }).instructions, false);
    assert.throws(() => parseConfig({ ...base, instructions: true }), /config\.instructions must be false or a table/);
    assert.throws(
      () => parseConfig({ ...base, instructions: { files: ["A"], max_bytes: 0.5 } }),
      /config\.instructions\.max_bytes must be a whole number >= 1/,
    );
    assert.throws(() => parseConfig({ ...base, instructions: { files: "A", max_bytes: 9 } }), /config\.instructions\.files must be a list/);
  });

  it("an option it does not know is an error naming it", () => {
    assert.throws(() => parseConfig({ ...base, bash_timout: 3 }), /tine: config has no "bash_timout"/);
    assert.throws(() => parseConfig({ ...base, keymaps: { ...keymaps, sned: "x" } }), /tine: config\.keymaps has no "sned"/);
  });

  it("derives a fork's banner keys and the empty thread's hint from the keymaps", () => {
    const c = parseConfig(base);
    assert.deepEqual(c.fork_keys, { report: "gR", promote: "gP", discard: "gD" });
    assert.equal(c.empty_hint, "Type below and send with <CR> (or <C-s>) · @fork <prompt> forks this thread · g? lists the keys");
    assert.deepEqual(forkKeys({ ...keymaps, fork_report: false, fork_discard: "X" }), { report: "-", promote: "gP", discard: "X" });
    assert.equal(
      emptyHint({ ...keymaps, send: false }),
      "Type below and send with <C-s> · @fork <prompt> forks this thread · g? lists the keys",
    );
    assert.equal(
      emptyHint({ ...keymaps, send: false, send_any: false, help: false }),
      "Type below and send with :Tine send · @fork <prompt> forks this thread",
    );
  });
});
