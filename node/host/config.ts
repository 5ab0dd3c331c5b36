/**
 * The host's configuration: the options Lua sends at `init`, checked whole against the options'
 * rules (node/core/options.ts, the ones setup() checks too). Defaults and their documentation live
 * in one place, lua/tine/config.lua; here nothing has a default of its own: a missing or wrong
 * field is an error naming it. What the host derives from the options (the keys a fork's banner
 * names, the hint of an empty thread, the price table) is derived here, once.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { say } from "../core/checks.ts";
import { OPTIONS } from "../core/options.ts";
import { check, record, str, type Value } from "../core/rules.ts";
import { type McpServerSpec, serversOf } from "../mcp/config.ts";
import { PRICES, type Rates } from "../usage/prices.ts";
import { assertUnreachable } from "../util/assert-unreachable.ts";

/** What lua/tine/host.lua sends: the merged options of lua/tine/config.lua (the unset ones as nil) and the working directory. */
const SENT_CONFIG = record({ ...OPTIONS, cwd: str() });

export type SentConfig = Value<typeof SENT_CONFIG>;

export type Effort = NonNullable<SentConfig["effort"]>;

export type Keymaps = SentConfig["keymaps"];

/** A key as the user maps it; false: not mapped. */
export type Key = Keymaps[keyof Keymaps];

/** The keys a fork's banner names ("-" for one not mapped). */
export type ForkKeys = { report: string; promote: string; discard: string };

export type HostConfig = Omit<SentConfig, "thinking" | "mcp_servers" | "prices"> & {
  /** Sent as the request's `thinking`; null leaves thinking to the model's default. */
  thinking: Anthropic.Messages.ThinkingConfigParam | null;
  /** MCP servers by name (mcp/config.ts), their values as written: `${VAR}` is resolved only when one starts. */
  mcp_servers: McpServerSpec[];
  /** Rates by model (node/usage/prices.ts's table with setup's `prices` over it). */
  prices: Record<string, Rates>;
  fork_keys: ForkKeys;
  /** The line a thread with no messages shows (it names the user's keys). */
  empty_hint: string;
  /** What a tool call waiting for approval shows in the display: the user's keys for it. */
  approval_hint: string;
};

/** The API's own thinking value, with only the fields each type defines. */
function thinkingParam(t: NonNullable<SentConfig["thinking"]>): Anthropic.Messages.ThinkingConfigParam | null {
  if (t === false) return null;
  const shown = t.display === undefined ? {} : { display: t.display };
  switch (t.type) {
    case "adaptive":
      return { type: "adaptive", ...shown };
    case "between_tools":
    case "disabled":
      return { type: t.type };
    case "enabled":
      return { type: "enabled", budget_tokens: t.budget_tokens, ...shown };
    default:
      return assertUnreachable(t);
  }
}

export function parseConfig(raw: unknown): HostConfig {
  const checked = check(SENT_CONFIG, raw, "config");
  if (!checked.ok) throw new Error(`tine: ${say(checked.problem)}`);
  const sent = checked.value;
  return {
    ...sent,
    thinking: sent.thinking === null ? null : thinkingParam(sent.thinking),
    // An empty base_url is unset, as an empty ANTHROPIC_BASE_URL is.
    base_url: sent.base_url || null,
    mcp_servers: serversOf(sent.mcp_servers, "setup"),
    prices: { ...PRICES, ...sent.prices },
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
