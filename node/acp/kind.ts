/**
 * The runner kind of a thread run by an ACP agent (`acp`), as chat/runner.ts's registry lists it.
 * Its spec names the agent by its configured name (the configured command runs it) and its
 * session; a stored thread opened again takes its session up (runner.ts), in its stored folder
 * only when the host accepts it (`folderRefused`).
 */
import type { RunnerKind, StoredNotice } from "../chat/runner.ts";
import { History } from "../core/history.ts";
import { APPROXIMATE } from "./fork-way.ts";
import { AcpRunner } from "./runner.ts";
import { type AcpRunnerSetup, acpLabel, acpTraits } from "./runner-setup.ts";
import { offerOf } from "./settings.ts";

export type AcpKindSetup = AcpRunnerSetup & {
  /** Why a stored session may not run in folder `cwd`, or null (worktree/stored-folder.ts). */
  readonly folderRefused: (cwd: string) => string | null;
};

export function acpKind(setup: AcpKindSetup): RunnerKind<"acp"> {
  return {
    kind: "acp",
    start: (start, dispatch) =>
      new AcpRunner(setup, start.agent, start.sessionId, dispatch, History.empty, setup.pool.current(start.agent), undefined, null, {
        offer: offerOf(start.offer),
      }),
    reopen: (spec, history, dispatch) => {
      const cwd = spec.cwd !== undefined && setup.folderRefused(spec.cwd) === null ? spec.cwd : undefined;
      // A seeded fork reopened keeps saying so; the conversation it was told went with its first prompt.
      const seeded = spec.approximate ? { note: APPROXIMATE, seed: null } : null;
      // The user's choices of its settings are set again once its session is taken up.
      return new AcpRunner(setup, spec.agent, spec.sessionId, dispatch, history, null, cwd, seeded, {
        ...(spec.settings ? { choices: spec.settings } : {}),
      });
    },
    label: (spec) => acpLabel(spec.agent, spec.approximate === true),
    traits: () => acpTraits(),
    ownMessages: () => null,
    storedNotices(spec, title) {
      const notices: StoredNotice[] = [];
      if (!Object.hasOwn(setup.pool.config, spec.agent))
        notices.push({
          key: "agent",
          text: `tine: ${title}: its ACP agent "${spec.agent}" is no longer in acp_agents: it opens, and sends once acp_agents names it again`,
        });
      const why = spec.cwd === undefined ? null : setup.folderRefused(spec.cwd);
      if (why)
        notices.push({
          key: "folder",
          text: `tine: ${title}: its ACP session runs in the project's folder, not in its stored folder ${JSON.stringify(spec.cwd)}: ${why}`,
        });
      return notices;
    },
  };
}
