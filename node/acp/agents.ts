/**
 * The agents setup names (`acp_agents`, checked with the other options: node/core/options.ts) and
 * how one is started. `${VAR}` in `env` stays as written in the config, and is read from the
 * host's environment only here, when the agent starts: the value lives in the child's environment
 * and nowhere else (never stored, never logged).
 */

import type { ACP_AGENTS } from "../core/options.ts";
import type { Value } from "../core/rules.ts";
import { expandVars, UnsetVariable } from "../mcp/config.ts";
import { HOST_CREDENTIALS } from "../tools/environment.ts";

/** `acp_agents` as setup gave it, checked. */
export type AcpAgentsConfig = Value<typeof ACP_AGENTS>;

/** What starts an agent: its program and arguments (no shell), its whole environment, its folder. */
export type AcpLaunch = {
  /** The configured name: what messages and the log call it. */
  readonly name: string;
  readonly program: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
};

/** Why an agent cannot be started from the config; the message is for the user. */
export class AcpConfigError extends Error {}

type Values = Readonly<Record<string, string | undefined>>;

/**
 * How to start agent `name` in `cwd` now: `env` set over `host` (the host's environment, less the
 * host's own credentials: an agent has ANTHROPIC_API_KEY only when its `env` names it, e.g.
 * `ANTHROPIC_API_KEY = "${ANTHROPIC_API_KEY}"`), each `${VAR}` (or `${VAR:-default}`) read from
 * `host`. An unknown name, or a variable not set, is an AcpConfigError saying which.
 */
export function launchOf(agents: AcpAgentsConfig, name: string, cwd: string, host: Values = process.env): AcpLaunch {
  const agent = Object.hasOwn(agents, name) ? agents[name] : undefined;
  if (!agent) {
    const known = Object.keys(agents).sort();
    throw new AcpConfigError(
      known.length
        ? `tine: no ACP agent named "${name}" (acp_agents has ${known.join(", ")})`
        : `tine: no ACP agent named "${name}": acp_agents in setup() names none`,
    );
  }
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(host)) if (value !== undefined) env[key] = value;
  for (const key of HOST_CREDENTIALS) delete env[key];
  for (const [key, value] of Object.entries(agent.env ?? {})) {
    try {
      env[key] = expandVars(value, host);
    } catch (error) {
      if (!(error instanceof UnsetVariable)) throw error;
      throw new AcpConfigError(`tine: acp_agents.${name}.env.${key}: ${error.message}`);
    }
  }
  const [program, ...args] = agent.command;
  return { name, program: program!, args, env, cwd };
}

/** The names setup configured, sorted (what `:Tine agent` completes). */
export const agentNames = (agents: AcpAgentsConfig): string[] => Object.keys(agents).sort();
