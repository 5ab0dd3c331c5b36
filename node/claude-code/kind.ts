/**
 * The runner kind of a Claude Code session in a terminal (`claude-code`), as chat/runner.ts's
 * registry lists it. Its conversation is the CLI's: opening a stored thread resumes the session.
 * Its arguments and folder come from a file: only arguments that cannot run anything are replayed
 * (stored-args.ts), in its stored folder only when the host accepts it (`storedFolder`).
 */
import type { RunnerKind } from "../chat/runner.ts";
import type { RunnerSpecOf } from "../core/runner-spec.ts";
import { SessionMessageCounts } from "./message-count.ts";
import { CLAUDE_CODE_TRAITS, CLAUDE_LABEL, ClaudeCodeSession, type ClaudeCodeSetup } from "./session.ts";
import { replayable } from "./stored-args.ts";

export type ClaudeCodeKindSetup = ClaudeCodeSetup & {
  /**
   * The folder a stored session resumes in: its stored one when the project's or a worktree tine
   * made (worktree/stored-folder.ts), else undefined (the project's).
   */
  readonly storedFolder: (spec: RunnerSpecOf<"claude-code">) => string | undefined;
};

export function claudeCodeKind(setup: ClaudeCodeKindSetup): RunnerKind<"claude-code"> {
  const counts = new SessionMessageCounts();
  return {
    kind: "claude-code",
    start: (start, dispatch) =>
      start.resume === undefined
        ? ClaudeCodeSession.start(setup, start.args, dispatch)
        : ClaudeCodeSession.resume(setup, start.args, start.resume, dispatch),
    reopen: (spec, _history, dispatch) =>
      ClaudeCodeSession.resume(setup, replayable(spec.args).replayed, spec.sessionId, dispatch, setup.storedFolder(spec)),
    label: () => CLAUDE_LABEL,
    traits: () => CLAUDE_CODE_TRAITS,
    ownMessages: (spec) => counts.count(spec.sessionId),
  };
}
