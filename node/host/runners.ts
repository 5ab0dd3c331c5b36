/**
 * The one registry of runner kinds (see chat/runner.ts): the only place that turns a `RunnerStart`
 * or a stored `RunnerSpec` into a runner of a given kind. The host builds it once and hands it to
 * the chat.
 */
import { join } from "node:path";
import type { Runner, RunnerStart, Runners, RunnerTraits } from "../chat/runner.ts";
import { SessionMessageCounts } from "../claude-code/message-count.ts";
import { projectSessionsDir } from "../claude-code/project.ts";
import { CLAUDE_CODE_TRAITS, CLAUDE_LABEL, ClaudeCodeSession, type ClaudeCodeSetup } from "../claude-code/session.ts";
import { replayable } from "../claude-code/stored-args.ts";
import { readInstructions } from "../context/instructions.ts";
import type { AgentMsg } from "../core/agent.ts";
import type { History } from "../core/history.ts";
import type { ModelChoice } from "../core/model-choice.ts";
import type { RunnerSpec, ThreadInstructions } from "../core/runner-spec.ts";
import { AnthropicAgent, API_TRAITS } from "../providers/anthropic-agent.ts";
import { type Connection, connect } from "../providers/connection.ts";
import type { ProviderConfig } from "../providers/request.ts";
import { FORK_TOOL_SPECS } from "../tools/fork-specs.ts";
import { type OfferedTools, PinnedTools } from "../tools/source.ts";
import { TOOL_SPECS } from "../tools/specs.ts";
import { assertUnreachable } from "../util/assert-unreachable.ts";
import { projectWorktrees, sessionFolder } from "../worktree/stored-folder.ts";
import { worktreeFolder } from "../worktree/workspaces.ts";
import type { HostConfig } from "./config.ts";

export type RunnerKinds = {
  readonly api: {
    readonly config: ProviderConfig;
    readonly connection: Connection;
    /** The project instructions a thread starting now sends (read each time: a change applies to new threads). */
    readonly instructions: () => ThreadInstructions | null;
    /** Tools a new thread offers beyond `config.tools` (MCP servers'), pinned at its first request; null: none. */
    readonly moreTools?: () => PinnedTools | null;
  };
  /** `worktrees`: this project's worktree folder (a stored session resumes only in the project's folder or one in here). */
  readonly claudeCode: ClaudeCodeSetup & { readonly worktrees: string };
};

/** The host's one connection to the Messages API, as its options configure it. */
export function connectionFor(config: HostConfig): Connection {
  return connect({
    baseURL: config.base_url ?? undefined,
    retryDelayMs: config.retry_delay_ms,
    maxRetryWaitMs: config.max_retry_wait * 1000,
    streamIdleTimeoutMs: config.stream_idle_timeout * 1000,
  });
}

/**
 * The registry as the host's options configure it; `offered`: the tools of sources that start on
 * demand (MCP).
 */
export function runnerRegistryFor(config: HostConfig, connection: Connection = connectionFor(config), offered?: OfferedTools): Runners {
  const api = {
    model: config.model,
    maxTokens: config.max_tokens,
    thinking: config.thinking,
    effort: config.effort,
    webSearch: config.web_search,
    system: config.system_prompt,
    tools: [...TOOL_SPECS, ...FORK_TOOL_SPECS],
    thinkingBudgets: config.thinking_budgets,
  };
  return runnerRegistry({
    // Read from the threads' environment root (services.ts): the project folder.
    api: {
      config: api,
      connection,
      instructions: () => readInstructions(config.instructions, config.cwd),
      moreTools: () => (offered ? new PinnedTools(offered) : null),
    },
    claudeCode: {
      command: config.claude_command,
      cwd: config.cwd,
      worktrees: projectWorktrees(worktreeFolder(config), config.cwd),
      transcriptPath: (cwd, id) => join(projectSessionsDir(cwd), `${id}.jsonl`),
    },
  });
}

export function runnerRegistry(kinds: RunnerKinds): Runners {
  const api = (
    dispatch: (msg: AgentMsg) => void,
    instructions: ThreadInstructions | null,
    history?: History,
    model?: ModelChoice,
    failed?: string,
  ): Runner =>
    new AnthropicAgent(
      kinds.api.config,
      kinds.api.connection,
      dispatch,
      history,
      failed === undefined ? undefined : { type: "error", message: failed },
      instructions,
      kinds.api.moreTools?.() ?? null,
      model ?? null,
    );
  const counts = new SessionMessageCounts();
  const folders = { projectRoot: kinds.claudeCode.cwd, worktrees: kinds.claudeCode.worktrees };
  return {
    start(start: RunnerStart, dispatch): Runner {
      switch (start.kind) {
        case "api":
          return api(dispatch, kinds.api.instructions(), start.history);
        case "claude-code":
          return start.resume === undefined
            ? ClaudeCodeSession.start(kinds.claudeCode, start.args, dispatch)
            : ClaudeCodeSession.resume(kinds.claudeCode, start.args, start.resume, dispatch);
        default:
          return assertUnreachable(start);
      }
    },
    reopen(spec: RunnerSpec, history: History, dispatch, failed?: string): Runner {
      switch (spec.kind) {
        case "api":
          // What it started with, not what the files say now: its requests stay as they were.
          return api(dispatch, spec.instructions ?? null, history, spec.model, failed);
        case "claude-code":
          // Its conversation is the CLI's: opening it resumes the session. Its arguments and folder
          // come from a file: only arguments that cannot run anything are replayed (stored-args.ts),
          // in its stored folder only when that is the project's or a worktree tine made (stored-folder.ts).
          return ClaudeCodeSession.resume(
            kinds.claudeCode,
            replayable(spec.args).replayed,
            spec.sessionId,
            dispatch,
            sessionFolder(spec, folders),
          );
        default:
          return assertUnreachable(spec);
      }
    },
    ownMessages(spec: RunnerSpec): number | null {
      switch (spec.kind) {
        case "api":
          return null;
        case "claude-code":
          return counts.count(spec.sessionId);
        default:
          return assertUnreachable(spec);
      }
    },
    label(spec: RunnerSpec): string {
      switch (spec.kind) {
        case "api":
          return "";
        case "claude-code":
          return CLAUDE_LABEL;
        default:
          return assertUnreachable(spec);
      }
    },
    traits(spec: RunnerSpec): RunnerTraits {
      switch (spec.kind) {
        case "api":
          return API_TRAITS;
        case "claude-code":
          return CLAUDE_CODE_TRAITS;
        default:
          return assertUnreachable(spec);
      }
    },
  };
}
