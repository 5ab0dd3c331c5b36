/**
 * The one registry of runner kinds (see chat/runner.ts): the only place that turns a `RunnerStart`
 * or a stored `RunnerSpec` into a runner of a given kind. The host builds it once and hands it to
 * the chat.
 */
import type { Runner, RunnerSpec, RunnerStart, Runners } from "./chat/runner.ts";
import { CLAUDE_LABEL, ClaudeCodeSession, type ClaudeCodeSetup } from "./claude-code/session.ts";
import type { AgentMsg } from "./providers/agent.ts";
import { AnthropicAgent } from "./providers/anthropic-agent.ts";
import type { Connection } from "./providers/connection.ts";
import type { History } from "./providers/history.ts";
import type { ProviderConfig } from "./providers/request.ts";
import { assertUnreachable } from "./util/assert-unreachable.ts";

export type RunnerKinds = {
  readonly api: { readonly config: ProviderConfig; readonly connection: Connection };
  readonly claudeCode: ClaudeCodeSetup;
};

export function runnerRegistry(kinds: RunnerKinds): Runners {
  const api = (dispatch: (msg: AgentMsg) => void, history?: History): Runner =>
    new AnthropicAgent(kinds.api.config, kinds.api.connection, dispatch, history);
  return {
    start(start: RunnerStart, dispatch): Runner {
      switch (start.kind) {
        case "api":
          return api(dispatch, start.history);
        case "claude-code":
          return start.resume === undefined
            ? ClaudeCodeSession.start(kinds.claudeCode, start.args, dispatch)
            : ClaudeCodeSession.resume(kinds.claudeCode, start.args, start.resume, dispatch);
        default:
          return assertUnreachable(start);
      }
    },
    reopen(spec: RunnerSpec, history: History, dispatch): Runner {
      switch (spec.kind) {
        case "api":
          return api(dispatch, history);
        case "claude-code":
          // Its conversation is the CLI's: opening it resumes the session.
          return ClaudeCodeSession.resume(kinds.claudeCode, spec.args, spec.sessionId, dispatch);
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
  };
}
