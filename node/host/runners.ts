/**
 * The host's list of runner kinds (see chat/runner.ts), each a module of its own folder set up
 * from the host's options: the one place kinds are named. The host builds the registry once and
 * hands it to the chat.
 */
import { join } from "node:path";
import { AcpAgents } from "../acp/agent-pool.ts";
import { environmentFiles } from "../acp/files.ts";
import { acpKind } from "../acp/kind.ts";
import type { Runners } from "../chat/runner.ts";
import { registryOf } from "../chat/runner-registry.ts";
import { claudeCodeKind } from "../claude-code/kind.ts";
import { projectSessionsDir } from "../claude-code/project.ts";
import type { ClaudeCodeSetup } from "../claude-code/session.ts";
import { readInstructions } from "../context/instructions.ts";
import { type ApiSetup, apiKind } from "../providers/api-kind.ts";
import { type Connection, connect } from "../providers/connection.ts";
import { FORK_TOOL_SPECS } from "../tools/fork-specs.ts";
import { localEnvironment } from "../tools/local-environment.ts";
import { type OfferedTools, PinnedTools } from "../tools/source.ts";
import { TOOL_SPECS } from "../tools/specs.ts";
import { projectWorktrees, sessionFolderRefused } from "../worktree/stored-folder.ts";
import { worktreeFolder } from "../worktree/workspaces.ts";
import type { HostConfig } from "./config.ts";

/** What each kind of runner on this host is set up with. */
export type RunnerKinds = {
  readonly api: ApiSetup;
  /** `worktrees`: this project's worktree folder (a stored session resumes only in the project's folder or one in here). */
  readonly claudeCode: ClaudeCodeSetup & { readonly worktrees: string };
  /** The ACP agents' processes (acp_agents); absent: none configured. */
  readonly acp?: AcpAgents;
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
export function runnerRegistryFor(
  config: HostConfig,
  connection: Connection = connectionFor(config),
  offered?: OfferedTools,
  acp?: AcpAgents,
): Runners {
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
    ...(acp ? { acp } : {}),
  });
}

/** The registry: every kind of runner, each one line. */
export function runnerRegistry(kinds: RunnerKinds): Runners {
  const folders = { projectRoot: kinds.claudeCode.cwd, worktrees: kinds.claudeCode.worktrees };
  return registryOf({
    api: apiKind(kinds.api),
    "claude-code": claudeCodeKind({ ...kinds.claudeCode, folderRefused: (cwd) => sessionFolderRefused(cwd, folders) }),
    acp: acpKind({
      pool: kinds.acp ?? new AcpAgents({}, kinds.claudeCode.cwd),
      cwd: kinds.claudeCode.cwd,
      files: (cwd) => environmentFiles(localEnvironment(cwd)),
      folderRefused: (cwd) => sessionFolderRefused(cwd, folders),
    }),
  });
}
