/**
 * The host's configuration: the options Lua sends at `init`, checked whole. Defaults and their
 * documentation live in one place, lua/tine/config.lua; here nothing has a default of its own:
 * a missing or wrong field is an error naming it. What the host derives from the options (the
 * keys a fork's banner names, the hint of an empty thread) is derived here, once.
 *
 * Over 300 lines: it is the one check of every option Lua sends (a line or two each) and of
 * what is derived from them, so that one place knows the options' shapes.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { InstructionsOption } from "../context/instructions.ts";
import {
  boolean,
  type Check,
  type Checked,
  type CheckedType,
  listOf,
  nullable,
  ok,
  oneOf,
  positive,
  record,
  say,
  string,
  wrong,
} from "../core/checks.ts";
import { type McpServerSpec, mcpServersOption } from "../mcp/config.ts";
import type { ThinkingBudgets } from "../providers/request.ts";
import { pricesOption, type Rates } from "../usage/prices.ts";

export type Effort = NonNullable<Anthropic.Messages.OutputConfig["effort"]>;

/** A key as the user maps it; false: not mapped. */
export type Key = string | false;

/** What lua/tine/host.lua sends: the merged options of lua/tine/config.lua (the unset ones as nil) and the working directory. */
export type SentConfig = {
  model: string;
  max_tokens: number;
  /** Sent as the request's `thinking`; false (or nil) leaves thinking to the model's default. */
  thinking: Anthropic.Messages.ThinkingConfigParam | false | null;
  /** Sent as `output_config.effort`; null leaves it to the model's default. */
  effort: Effort | null;
  web_search: boolean;
  tools_needing_approval: string[];
  system_prompt: string;
  /** Project instructions (context/instructions.ts): the files a thread reads when it starts, each capped; false: none. */
  instructions: InstructionsOption;
  /** null: the SDK's own (or ANTHROPIC_BASE_URL). */
  base_url: string | null;
  /** Seconds without any stream event before a request is given up. */
  stream_idle_timeout: number;
  /** The longest `retry-after` (seconds) waited out by itself. */
  max_retry_wait: number;
  /** Seconds a bash_command may run. */
  bash_timeout: number;
  /** Variables removed from tool processes' environment, besides ANTHROPIC_API_KEY; a project's MCP file never reads them either. */
  tool_env_deny: string[];
  /** MCP servers by name (mcp/config.ts), their values as written: `${VAR}` is resolved only when one starts. */
  mcp_servers: McpServerSpec[];
  /** MCP servers ("name") and tools ("name/tool") whose calls need no approval. */
  mcp_auto_approve: string[];
  /** Seconds an MCP server may take to start, or a call to answer, before it is given up (a call is cancelled). */
  mcp_timeout: number;
  /** Whether the project's MCP files are read (they name programs to start; off unless the user trusts them). */
  mcp_project_files: boolean;
  /** Root of the stored threads (one folder per project inside). */
  data_dir: string;
  /** False: nothing is written to disk. */
  persist: boolean;
  /** False: no code snapshots are taken. */
  snapshots: boolean;
  /** Days a code snapshot is kept. */
  snapshot_keep_days: number;
  /** Which forks get a git worktree of their own without being asked: every one, `@bg` ones, none. */
  fork_worktree: "always" | "background" | "never";
  /** Where forks' worktrees are made; false: under data_dir. */
  worktree_dir: string | false;
  /** Minutes of idleness before a fork is asked to wrap up (fractions allowed). */
  fork_idle_timeout: number;
  /** Live forks the agent may have opened (enter_fork) from one thread; 0: none. */
  agent_fork_limit: number;
  /** The most bytes one mention's item may hold (a larger file is an error; buffers and diffs are cut). */
  context_max_bytes: number;
  /** The most files one `@file:` glob may name. */
  context_max_files: number;
  /** Seconds one git a send runs for its mentions may take before it is stopped (`@diff`, a glob's file list). */
  context_git_timeout: number;
  fork_open: "split" | "vsplit" | "tab" | "replace";
  /** The model names a thread after its first reply: with the thread's model (true), this one (a name), or not (false). */
  auto_title: boolean | string;
  /** What `:Tine model` offers besides `model`. */
  models: string[];
  /** Thinking budgets of the efforts `:Tine model` offers. */
  thinking_budgets: ThinkingBudgets;
  /** Compaction is offered past this fraction of the context window (and done before an overflow); false: neither. */
  auto_compact: number | false;
  /** The sidebar's place and size (the Lua side's own; checked here as every option is). */
  sidebar: { side: "left" | "right"; width: number; input_height: number; min_editor_width: number };
  /** The thread list's most lines (the Lua side's own). */
  list_max_height: number;
  /** First delay (ms) when a mid-stream overload is retried. */
  retry_delay_ms: number;
  /** About how many bytes of a long display's text one step of filling it in writes. */
  display_fill_step: number;
  /** How the Claude Code CLI is started. */
  claude_command: string[];
  /** The Node binary that runs this host (the Lua side's own). */
  node: string;
  /** The most items one completion of a mention offers. */
  complete_max_items: number;
  /** Rates by model (node/usage/prices.ts's table with setup's `prices` over it). */
  prices: Record<string, Rates>;
  /** Minutes the prompt cache lives after a request reads or writes it (the winbar warns past it). */
  cache_lifetime: number;
  keymaps: Keymaps;
  cwd: string;
};

/** The keys a fork's banner names ("-" for one not mapped). */
export type ForkKeys = { report: string; promote: string; discard: string };

export type HostConfig = Omit<SentConfig, "thinking"> & {
  /** Sent as the request's `thinking`; null leaves thinking to the model's default. */
  thinking: Anthropic.Messages.ThinkingConfigParam | null;
  fork_keys: ForkKeys;
  /** The line a thread with no messages shows (it names the user's keys). */
  empty_hint: string;
  /** What a tool call waiting for approval shows in the display: the user's keys for it. */
  approval_hint: string;
};

const EFFORTS: readonly Effort[] = ["low", "medium", "high", "xhigh", "max"];

const effort: Check<Effort> = (v, name) =>
  EFFORTS.includes(v as Effort) ? ok(v as Effort) : wrong(name, `one of ${EFFORTS.join(", ")}`, v);

const key: Check<Key> = (v, name) => (v === false || typeof v === "string" ? ok(v) : wrong(name, "a key (a string) or false", v));

/** Every key of lua/tine/config.lua's keymaps, by name. */
const keymaps = record({
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
  label: key,
  edit_message: key,
  compact: key,
  deny_reason: key,
});

export type Keymaps = CheckedType<typeof keymaps>;

const nonNegative: Check<number> = (v, name) => (typeof v === "number" && v >= 0 ? ok(v) : wrong(name, "a number >= 0", v));

const count: Check<number> = (v, name) =>
  Number.isInteger(v) && (v as number) >= 0 ? ok(v as number) : wrong(name, "a whole number >= 0", v);

const wholeAboveZero: Check<number> = (v, name) =>
  Number.isInteger(v) && (v as number) >= 1 ? ok(v as number) : wrong(name, "a whole number >= 1", v);

const strings = listOf(string, "a list of strings");

/** Only the fields the API defines, checked here so a typo is reported when the host starts, not as an HTTP 400. */
const thinking: Check<Anthropic.Messages.ThinkingConfigParam | false> = (v, name) => {
  if (v === false) return ok(false);
  if (typeof v !== "object" || v === null || Array.isArray(v))
    return wrong(name, 'false or a table whose type is "adaptive", "between_tools", "enabled" or "disabled"', v);
  const t = v as Record<string, unknown>;
  const display = t["display"] ?? undefined;
  if (display !== undefined && display !== "summarized" && display !== "omitted")
    return wrong(`${name}.display`, '"summarized" or "omitted"', display);
  const shown: { display?: "summarized" | "omitted" } = display === undefined ? {} : { display };
  switch (t["type"]) {
    case "adaptive":
      return ok({ type: "adaptive", ...shown });
    case "between_tools":
      return ok({ type: "between_tools" });
    case "disabled":
      return ok({ type: "disabled" });
    case "enabled": {
      const budget = t["budget_tokens"];
      // Below max_tokens too: checked once both are known (parseConfig).
      if (typeof budget !== "number" || budget < 1024) return wrong(`${name}.budget_tokens`, "at least 1024 and below max_tokens", budget);
      return ok({ type: "enabled", budget_tokens: budget, ...shown });
    }
    default:
      return wrong(`${name}.type`, '"adaptive", "between_tools", "enabled" or "disabled" (or set thinking = false)', t["type"]);
  }
};

/** false, or the files to read and the cap on each (a whole number of bytes >= 1). */
const instructions: Check<InstructionsOption> = (v, name) => {
  if (v === false) return ok(false);
  if (typeof v !== "object" || v === null || Array.isArray(v)) return wrong(name, "false or a table { files, max_bytes }", v);
  const maxBytes = (v as Record<string, unknown>)["max_bytes"];
  if (!Number.isInteger(maxBytes) || (maxBytes as number) < 1) return wrong(`${name}.max_bytes`, "a whole number >= 1", maxBytes);
  return record({ files: strings, max_bytes: positive })(v, name);
};

/** A thinking budget: whole tokens, at least the API's 1024. */
const budget: Check<number> = (v, name) =>
  Number.isInteger(v) && (v as number) >= 1024 ? ok(v as number) : wrong(name, "a whole number >= 1024", v);

/** Every field of SentConfig and its check; the compiler keeps the two in step. */
const sentConfig = record({
  model: string,
  max_tokens: positive,
  thinking: nullable(thinking),
  effort: nullable(effort),
  web_search: boolean,
  tools_needing_approval: strings,
  system_prompt: string,
  instructions,
  base_url: nullable(string),
  stream_idle_timeout: positive,
  max_retry_wait: positive,
  bash_timeout: positive,
  tool_env_deny: strings,
  mcp_servers: mcpServersOption,
  mcp_auto_approve: strings,
  mcp_timeout: positive,
  mcp_project_files: (v, name) => (typeof v === "boolean" ? ok(v) : wrong(name, "true or false", v)),
  data_dir: string,
  persist: boolean,
  snapshots: boolean,
  snapshot_keep_days: positive,
  fork_worktree: oneOf("always", "background", "never"),
  worktree_dir: (v, name) => (v === false || (typeof v === "string" && v !== "") ? ok(v) : wrong(name, "a folder (a string) or false", v)),
  fork_idle_timeout: positive,
  agent_fork_limit: count,
  context_max_bytes: positive,
  context_max_files: positive,
  context_git_timeout: positive,
  fork_open: oneOf("split", "vsplit", "tab", "replace"),
  auto_title: (v, name) =>
    typeof v === "boolean" || (typeof v === "string" && v !== "") ? ok(v) : wrong(name, "true, false or a model name", v),
  models: strings,
  thinking_budgets: record({ low: budget, medium: budget, high: budget }),
  auto_compact: (v, name) =>
    v === false || (typeof v === "number" && v > 0 && v <= 1) ? ok(v) : wrong(name, "false or a fraction above 0, at most 1", v),
  sidebar: record({ side: oneOf("left", "right"), width: positive, input_height: positive, min_editor_width: nonNegative }),
  list_max_height: positive,
  retry_delay_ms: nonNegative,
  display_fill_step: positive,
  claude_command: listOf(string, "a non-empty list of strings", true),
  node: string,
  complete_max_items: wholeAboveZero,
  prices: pricesOption,
  cache_lifetime: positive,
  keymaps,
  cwd: string,
} satisfies { [K in keyof SentConfig]: Check<SentConfig[K]> });

export function parseConfig(raw: unknown): HostConfig {
  const checked: Checked<SentConfig> = sentConfig(raw, "config");
  if (!checked.ok) throw new Error(`tine: ${say(checked.problem)}`);
  const sent = checked.value;
  if (sent.thinking && sent.thinking.type === "enabled" && sent.thinking.budget_tokens >= sent.max_tokens)
    throw new Error(`tine: config.thinking.budget_tokens must be at least 1024 and below max_tokens (got ${sent.thinking.budget_tokens})`);
  return {
    ...sent,
    thinking: sent.thinking || null,
    // An empty base_url is unset, as an empty ANTHROPIC_BASE_URL is.
    base_url: sent.base_url || null,
    fork_keys: forkKeys(sent.keymaps),
    empty_hint: emptyHint(sent.keymaps),
    approval_hint: approvalHint(sent.keymaps),
  };
}

export function forkKeys(keys: Keymaps): ForkKeys {
  const shown = (k: Key) => (k === false ? "-" : k);
  return { report: shown(keys.fork_report), promote: shown(keys.fork_promote), discard: shown(keys.fork_discard) };
}

/** Names the display's keys that answer a tool call waiting for approval, as mapped (an unmapped one goes unsaid). */
export function approvalHint(keys: Keymaps): string {
  const named: [Key, string][] = [
    [keys.approve, "approve"],
    [keys.approve_always, "always (this tool, this thread)"],
    [keys.deny, "deny"],
    [keys.deny_reason, "deny saying why"],
  ];
  const mapped = named.flatMap(([key, what]) => (key === false ? [] : [`${key} ${what}`]));
  return mapped.length ? mapped.join(" · ") : "no key of the display answers it (keymaps.approve, keymaps.deny)";
}

/** Names the keys that send (or the command, when neither is mapped) and the help key when it is mapped. */
export function emptyHint(keys: Keymaps): string {
  const send = [keys.send, keys.send_any].filter((k): k is string => k !== false);
  const how = send.length === 2 ? `${send[0]} (or ${send[1]})` : (send[0] ?? ":Tine send");
  const help = keys.help === false ? "" : ` · ${keys.help} lists the keys`;
  return `Type below and send with ${how} · @fork <prompt> forks this thread${help}`;
}
