/**
 * The host's configuration. Defaults and documentation live in one place, lua/tine/config.lua;
 * the Lua side sends the merged table when it starts the host.
 */
export type HostConfig = {
  model: string;
  max_tokens: number;
  thinking_budget: number;
  web_search: boolean;
  tools_needing_approval: string[];
  system_prompt: string;
  base_url: string | null;
  fork_open: "split" | "vsplit" | "tab" | "replace";
  retry_delay_ms: number;
  cwd: string;
};

export function parseConfig(raw: unknown): HostConfig {
  const c = (raw ?? {}) as Partial<HostConfig>;
  const need = <K extends keyof HostConfig>(key: K, type: string): HostConfig[K] => {
    const v = c[key];
    if (typeof v !== type) throw new Error(`tine: config.${key} must be a ${type}`);
    return v as HostConfig[K];
  };
  const config: HostConfig = {
    model: need("model", "string"),
    max_tokens: need("max_tokens", "number"),
    thinking_budget: need("thinking_budget", "number"),
    web_search: need("web_search", "boolean"),
    tools_needing_approval: Array.isArray(c.tools_needing_approval) ? c.tools_needing_approval.map(String) : [],
    system_prompt: need("system_prompt", "string"),
    base_url: typeof c.base_url === "string" && c.base_url ? c.base_url : null,
    fork_open: ["split", "vsplit", "tab", "replace"].includes(String(c.fork_open)) ? (c.fork_open as HostConfig["fork_open"]) : "vsplit",
    retry_delay_ms: typeof c.retry_delay_ms === "number" ? c.retry_delay_ms : 1000,
    cwd: need("cwd", "string"),
  };
  if (config.thinking_budget > 0 && (config.thinking_budget < 1024 || config.thinking_budget >= config.max_tokens)) {
    throw new Error("tine: thinking_budget must be 0, or at least 1024 and below max_tokens");
  }
  return config;
}
