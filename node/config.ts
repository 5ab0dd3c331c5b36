/**
 * The host's configuration. Defaults and documentation live in one place, lua/tine/config.lua;
 * the Lua side sends the merged table when it starts the host.
 */
import type Anthropic from "@anthropic-ai/sdk";

export type Effort = NonNullable<Anthropic.Messages.OutputConfig["effort"]>;

export type HostConfig = {
  model: string;
  max_tokens: number;
  /** Sent as the request's `thinking`; null leaves thinking to the model's default. */
  thinking: Anthropic.Messages.ThinkingConfigParam | null;
  /** Sent as `output_config.effort`; null leaves it to the model's default. */
  effort: Effort | null;
  web_search: boolean;
  tools_needing_approval: string[];
  system_prompt: string;
  base_url: string | null;
  fork_open: "split" | "vsplit" | "tab" | "replace";
  retry_delay_ms: number;
  /** Seconds without any stream event before a request is given up. */
  stream_idle_timeout: number;
  /** The longest `retry-after` (seconds) waited out by itself. */
  max_retry_wait: number;
  /** Seconds a bash_command may run. */
  bash_timeout: number;
  /** Variables removed from tool processes' environment, besides ANTHROPIC_API_KEY. */
  tool_env_deny: string[];
  /** Root of the stored threads (one folder per project inside). */
  data_dir: string;
  /** False: nothing is written to disk. */
  persist: boolean;
  /** How the Claude Code CLI is started. */
  claude_command: string[];
  /** The keys a fork's banner names. */
  fork_keys: { report: string; promote: string; discard: string };
  /** Minutes of idleness before a fork is asked to wrap up (fractions allowed). */
  fork_idle_timeout: number;
  /** The line a thread with no messages shows (it names the user's keys). */
  empty_hint: string;
  cwd: string;
};

export function parseConfig(raw: unknown): HostConfig {
  const c = (raw ?? {}) as Partial<HostConfig>;
  const need = <K extends keyof HostConfig>(key: K, type: string): HostConfig[K] => {
    const v = c[key];
    if (typeof v !== type) throw new Error(`tine: config.${key} must be a ${type}`);
    return v as HostConfig[K];
  };
  const maxTokens = need("max_tokens", "number");
  return {
    model: need("model", "string"),
    max_tokens: maxTokens,
    thinking: parseThinking(c.thinking, maxTokens),
    effort: parseEffort(c.effort),
    web_search: need("web_search", "boolean"),
    tools_needing_approval: Array.isArray(c.tools_needing_approval) ? c.tools_needing_approval.map(String) : [],
    system_prompt: need("system_prompt", "string"),
    base_url: typeof c.base_url === "string" && c.base_url ? c.base_url : null,
    fork_open: ["split", "vsplit", "tab", "replace"].includes(String(c.fork_open)) ? (c.fork_open as HostConfig["fork_open"]) : "vsplit",
    retry_delay_ms: typeof c.retry_delay_ms === "number" ? c.retry_delay_ms : 1000,
    bash_timeout: positive(c.bash_timeout, "bash_timeout", 120),
    stream_idle_timeout: positive(c.stream_idle_timeout, "stream_idle_timeout", 60),
    max_retry_wait: positive(c.max_retry_wait, "max_retry_wait", 60),
    tool_env_deny: stringList(c.tool_env_deny, "tool_env_deny"),
    data_dir: need("data_dir", "string"),
    persist: c.persist === undefined ? true : need("persist", "boolean"),
    fork_idle_timeout: positive(c.fork_idle_timeout, "fork_idle_timeout", 10),
    claude_command: c.claude_command === undefined ? ["claude"] : stringList(c.claude_command, "claude_command"),
    fork_keys: { report: "gR", promote: "gP", discard: "gD", ...(c.fork_keys as object | undefined) },
    empty_hint:
      typeof c.empty_hint === "string"
        ? c.empty_hint
        : "Type below and send with <CR> · @fork <prompt> forks this thread · g? lists the keys",
    cwd: need("cwd", "string"),
  };
}

function positive(v: unknown, name: string, fallback: number): number {
  if (v === undefined || v === null) return fallback;
  if (typeof v !== "number" || !(v > 0)) throw new Error(`tine: config.${name} must be a number above 0`);
  return v;
}

function stringList(v: unknown, name: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || !v.every((x) => typeof x === "string")) throw new Error(`tine: config.${name} must be a list of strings`);
  return v;
}

const EFFORTS: readonly Effort[] = ["low", "medium", "high", "xhigh", "max"];

function parseEffort(v: unknown): Effort | null {
  if (v === undefined || v === null || v === false) return null;
  if (!EFFORTS.includes(v as Effort)) throw new Error(`tine: config.effort must be one of ${EFFORTS.join(", ")} (or nil)`);
  return v as Effort;
}

/** Only the fields the API defines, checked here so a typo is reported at setup, not as an HTTP 400. */
function parseThinking(v: unknown, maxTokens: number): Anthropic.Messages.ThinkingConfigParam | null {
  if (v === undefined || v === null || v === false) return null;
  const t = v as Record<string, unknown>;
  const display = (): { display?: "summarized" | "omitted" } => {
    if (t["display"] === undefined || t["display"] === null) return {};
    if (t["display"] !== "summarized" && t["display"] !== "omitted")
      throw new Error('tine: config.thinking.display must be "summarized" or "omitted"');
    return { display: t["display"] };
  };
  switch (t["type"]) {
    case "adaptive":
      return { type: "adaptive", ...display() };
    case "between_tools":
      return { type: "between_tools" };
    case "disabled":
      return { type: "disabled" };
    case "enabled": {
      const budget = t["budget_tokens"];
      if (typeof budget !== "number" || budget < 1024 || budget >= maxTokens)
        throw new Error("tine: config.thinking.budget_tokens must be at least 1024 and below max_tokens");
      return { type: "enabled", budget_tokens: budget, ...display() };
    }
    default:
      throw new Error('tine: config.thinking.type must be "adaptive", "between_tools", "enabled" or "disabled" (or set thinking = false)');
  }
}
