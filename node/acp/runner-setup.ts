/** What an ACP thread's runner (runner.ts) is like and starts from: its traits, label, what all its threads share. */
import type { RunnerTraits } from "../chat/runner.ts";
import type { AgentChoices } from "../core/agent-choices.ts";
import type { AcpAgents } from "./agent-pool.ts";
import type { AcpFiles } from "./files.ts";
import type { SessionOffer } from "./settings.ts";

/** What a thread of an ACP agent is like. */
export const acpTraits = (): RunnerTraits => ACP_TRAITS;

const ACP_TRAITS: RunnerTraits = {
  // Its forks end as tine's do: a report asks the fork for a summary (a prompt in its session), idle clocks prompt it.
  forkLifecycle: true,
  ownConversation: null,
  storedAtOnce: false,
  // The agent runs its own tools (its file reads and writes come through the thread's folder).
  toolsThroughTine: false,
};

/** What every ACP thread on this host shares. */
export type AcpRunnerSetup = {
  readonly pool: AcpAgents;
  /** The project's folder: a session's folder unless its spec names another. */
  readonly cwd: string;
  /** The files served to a session working in `cwd`. */
  readonly files: (cwd: string) => AcpFiles;
};

/** The label before its title in the list; `≈`: an approximate fork (fork-way.ts). */
export const acpLabel = (agent: string, approximate = false) => `[${agent}${approximate ? " ≈" : ""}] `;

/** What a runner starts from besides its session: the user's choices of its settings, what the session offered, and whether to set them on it first. */
export type AcpRunnerStart = { readonly choices?: AgentChoices; readonly offer?: SessionOffer; readonly settingsDue?: boolean };
