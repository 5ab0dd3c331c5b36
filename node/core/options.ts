/**
 * What every option must be, written once: setup() checks the user's options against these (its
 * copy, lua/tine/option_rules.lua, is written from here by `node scripts/option-rules.mjs`), and
 * the host checks what it is sent at `init` against the same rules (node/host/config.ts). What
 * each option does and its default are in lua/tine/config.lua. The words after "must be" are
 * each rule's `wanted`; the order of the fields is the order a problem lists them in.
 */
import {
  bool,
  either,
  listOf,
  literal,
  mapOf,
  nonEmptyListOf,
  nonEmptyStr,
  nullable,
  num,
  oneOf,
  optional,
  path,
  record,
  str,
  tagged,
  variants,
  word,
} from "./rules.ts";

const positive = num({ above: 0 });
const strings = listOf(str(), "a list of strings");
const stringMap = optional(mapOf(str(), "a table of strings", "dotted"));

/**
 * A remote MCP server's sign-in (node/mcp/auth/): a client registered with its authorization
 * server beforehand (else tine registers itself), the scope to ask for when the server does not
 * say, and a fixed port for the callback (a pre-registered client's redirect URL names one).
 */
const OAUTH = record(
  {
    client_id: optional(nonEmptyStr()),
    client_secret: optional(str()),
    scope: optional(str()),
    callback_port: optional(num({ whole: true, min: 1, max: 65535 })),
    // An https URL of tine's client metadata (SEP-991), used as the client id where the server takes one.
    client_metadata_url: optional(nonEmptyStr()),
  },
  "a table { client_id, client_secret, scope, callback_port, client_metadata_url }",
);

/**
 * An MCP server by name, as setup gives it (`{ command = { prog, args... }, env, cwd }` or
 * `{ url, headers }`) and as a project's file does (Claude Code's `{ command: "prog", args,
 * env, cwd }` or `{ type: "http"|"sse", url, headers }`): node/mcp/config.ts reads both with it.
 */
export const MCP_SERVERS = mapOf(
  variants({
    wanted: "a table { command = {...} } or { url = ... }",
    common: { type: optional(oneOf("stdio", "http", "sse")) },
    pick: [
      {
        fields: {
          // A string takes its arguments from `args` (the files); a list is the whole command line (setup).
          command: either(
            "a non-empty list of strings (the program, then its arguments)",
            str(),
            nonEmptyListOf(str(), "a non-empty list of strings"),
          ),
          args: optional(strings),
          env: stringMap,
          cwd: optional(str()),
        },
      },
      { when: { url: str(), type: oneOf("http", "sse") }, fields: { url: str(), headers: stringMap, oauth: optional(OAUTH) } },
    ],
    extra: "refused",
  }),
  "a table of servers by name",
  "dotted",
  // A server name goes into tool names (`mcp__<name>__<tool>`), which the API allows only these characters in.
  word("named with letters, digits, _ and - only (it goes into tool names)", 64, "A-Za-z0-9_-"),
);

/**
 * ACP agents by name (node/acp/): the command line as a list (never through a shell) and variables
 * set over the host's environment, `${VAR}` in them read from Neovim's environment when the agent
 * starts (node/acp/agents.ts), never stored.
 */
export const ACP_AGENTS = mapOf(
  record(
    {
      command: nonEmptyListOf(str(), "a non-empty list of strings (the program, then its arguments)"),
      env: stringMap,
      // The session mode set after each session/new or resume (the Claude adapter's "default" asks before tools).
      mode: optional(nonEmptyStr('a mode id the agent lists (e.g. "default")')),
    },
    'a table { command = { program, args... }, env = { K = "v" }, mode = "default" }',
  ),
  "a table of agents by name",
  "dotted",
  // A name is typed after `:Tine agent` and completed there.
  word("named with letters, digits, _ and - only", 64, "A-Za-z0-9_-"),
);

/** Dollars per million tokens, by model; the context window in tokens. */
const dollars = num({ finite: true, min: 0 }, "a number >= 0 (dollars per million tokens)");
const RATES = record(
  { input: dollars, output: dollars, cache_write: dollars, cache_read: dollars, context_window: num({ finite: true, above: 0 }) },
  "a table { input, output, cache_write, cache_read, context_window }",
  "dropped",
);

const display = optional({ ...oneOf("summarized", "omitted"), wanted: '"summarized" or "omitted"' } as const);

/** Only the fields the API defines (others are left out), so a typo is reported at setup, not as an HTTP 400. */
const THINKING = tagged({
  tag: "type",
  wanted: 'false or a table whose type is "adaptive", "between_tools", "enabled" or "disabled"',
  unmatched: '"adaptive", "between_tools", "enabled" or "disabled" (or set thinking = false)',
  common: { display },
  variants: {
    adaptive: {},
    between_tools: {},
    disabled: {},
    enabled: { budget_tokens: num({ min: 1024, below_option: "max_tokens" }, "at least 1024 and below max_tokens") },
  },
  extra: "dropped",
});

/** A key as the user maps it; false: not mapped. */
const key = either("a key (a string) or false", literal(false), str());

/** A thinking budget: whole tokens, at least the API's 1024. */
const budget = num({ whole: true, min: 1024 });

/** Every option setup() takes, in the order the host lists them. */
export const OPTIONS = {
  model: str(),
  max_tokens: positive,
  thinking: nullable(either(THINKING.wanted, literal(false), THINKING)),
  effort: nullable(oneOf("low", "medium", "high", "xhigh", "max")),
  web_search: bool(),
  tools_needing_approval: strings,
  system_prompt: str(),
  instructions: either(
    "false or a table { files = { paths }, max_bytes = N }",
    literal(false),
    record({ files: strings, max_bytes: num({ whole: true, min: 1 }) }),
  ),
  base_url: nullable(str()),
  stream_idle_timeout: positive,
  max_retry_wait: positive,
  bash_timeout: positive,
  tool_env_deny: strings,
  mcp_servers: MCP_SERVERS,
  mcp_auto_approve: strings,
  mcp_timeout: positive,
  mcp_project_files: bool("true or false"),
  data_dir: str(),
  persist: bool(),
  snapshots: bool(),
  snapshot_keep_days: positive,
  fork_worktree: oneOf("always", "background", "never"),
  worktree_dir: either("a folder (a string) or false", literal(false), nonEmptyStr()),
  fork_unattended: oneOf("never", "background", "always"),
  sandbox_deny_read: listOf(path(), "a list of paths"),
  fanout_max: num({ whole: true, min: 1 }),
  check_command: either("a shell command (a string) or false", literal(false), nonEmptyStr()),
  fork_idle_timeout: positive,
  agent_fork_limit: num({ whole: true, min: 0 }),
  context_max_bytes: positive,
  context_max_files: positive,
  context_git_timeout: positive,
  fork_open: oneOf("vsplit", "split", "tab", "replace"),
  auto_title: either("true, false or a model name", bool(), nonEmptyStr()),
  models: strings,
  thinking_budgets: record({ low: budget, medium: budget, high: budget }),
  auto_compact: either("false or a fraction above 0, at most 1", literal(false), num({ above: 0, max: 1 })),
  sidebar: record({ side: oneOf("left", "right"), width: positive, input_height: positive, min_editor_width: num({ min: 0 }) }),
  list_max_height: positive,
  retry_delay_ms: num({ min: 0 }),
  display_fill_step: positive,
  claude_command: nonEmptyListOf(str(), "a non-empty list of strings"),
  acp_agents: ACP_AGENTS,
  node: str(),
  complete_max_items: num({ whole: true, min: 1 }),
  prices: mapOf(RATES, "a table of rates by model name", "quoted"),
  cache_lifetime: positive,
  review_signs: bool(),
  keymaps: record({
    send: key,
    send_any: key,
    help: key,
    abort: key,
    retry: key,
    toggle_detail: key,
    open_change: key,
    approve: key,
    approve_always: key,
    deny: key,
    input_approve: key,
    input_approve_always: key,
    input_deny: key,
    input_deny_reason: key,
    edit_queued: key,
    resolve_merge: key,
    fork_at_message: key,
    go_to_parent: key,
    go_to_fork: key,
    fork_report: key,
    fork_promote: key,
    fork_discard: key,
    list_background: key,
    list_open: key,
    list_fork: key,
    list_worktree: key,
    list_rename: key,
    list_delete: key,
    add: key,
    list_filter: key,
    list_diff: key,
    compare_open: key,
    compare_expand: key,
    compare_mark: key,
    compare_diff: key,
    compare_promote: key,
    compare_discard: key,
    compare_discard_others: key,
    compare_graft: key,
    label: key,
    edit_message: key,
    compact: key,
    deny_reason: key,
    review_keep: key,
    review_undo: key,
    review_comment: key,
    next_hunk: key,
    prev_hunk: key,
    review_next_file: key,
    review_prev_file: key,
    review_quit: key,
  }),
} as const;
