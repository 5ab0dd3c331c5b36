/**
 * The runner kind of tine's own agent on the Messages API (`api`), as chat/runner.ts's registry
 * lists it: its threads start with the project instructions read now, and reopen with what they
 * started with.
 */
import type { RunnerKind } from "../chat/runner.ts";
import type { AgentMsg } from "../core/agent.ts";
import type { History } from "../core/history.ts";
import type { ModelChoice } from "../core/model-choice.ts";
import type { ThreadInstructions } from "../core/runner-spec.ts";
import type { PinnedTools } from "../tools/source.ts";
import { AnthropicAgent, API_TRAITS } from "./anthropic-agent.ts";
import type { Connection } from "./connection.ts";
import type { ProviderConfig } from "./request.ts";

/** What every thread of tine's agent on this host shares. */
export type ApiSetup = {
  readonly config: ProviderConfig;
  readonly connection: Connection;
  /** The project instructions a thread starting now sends (read each time: a change applies to new threads). */
  readonly instructions: () => ThreadInstructions | null;
  /** Tools a new thread offers beyond `config.tools` (MCP servers'), pinned at its first request; null: none. */
  readonly moreTools?: () => PinnedTools | null;
};

export function apiKind(setup: ApiSetup): RunnerKind<"api"> {
  const agent = (
    dispatch: (msg: AgentMsg) => void,
    instructions: ThreadInstructions | null,
    history?: History,
    model?: ModelChoice,
    failed?: string,
  ) =>
    new AnthropicAgent(
      setup.config,
      setup.connection,
      dispatch,
      history,
      failed === undefined ? undefined : { type: "error", message: failed },
      instructions,
      setup.moreTools?.() ?? null,
      model ?? null,
    );
  return {
    kind: "api",
    start: (start, dispatch) => agent(dispatch, setup.instructions(), start.history),
    // What it started with, not what the files say now: its requests stay as they were.
    reopen: (spec, history, dispatch, failed) => agent(dispatch, spec.instructions ?? null, history, spec.model, failed),
    label: () => "",
    traits: () => API_TRAITS,
    ownMessages: () => null,
    // It names nothing that runs: all of it is used.
    storedNotices: () => [],
  };
}
