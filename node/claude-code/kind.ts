/**
 * The runner kind of a Claude Code session in a terminal (`claude-code`), as chat/runner.ts's
 * registry lists it. Its conversation is the CLI's: opening a stored thread resumes the session.
 * Its arguments and folder come from a file: only arguments that cannot run anything are replayed
 * (stored-args.ts), in its stored folder only when the host accepts it (`folderRefused`), and the
 * user is told what was left out.
 */
import type { RunnerKind, StoredNotice } from "../chat/runner.ts";
import type { RunnerSpecOf } from "../core/runner-spec.ts";
import { SessionMessageCounts } from "./message-count.ts";
import { CLAUDE_CODE_TRAITS, CLAUDE_LABEL, ClaudeCodeSession, type ClaudeCodeSetup } from "./session.ts";
import { droppedNotice, replayable } from "./stored-args.ts";

export type ClaudeCodeKindSetup = ClaudeCodeSetup & {
  /**
   * Why a stored session may not resume in folder `cwd`, or null: the project's folder or a
   * worktree tine made for it (worktree/stored-folder.ts); refused, it resumes in the project's.
   */
  readonly folderRefused: (cwd: string) => string | null;
};

export function claudeCodeKind(setup: ClaudeCodeKindSetup): RunnerKind<"claude-code"> {
  const counts = new SessionMessageCounts();
  const folderOf = (spec: RunnerSpecOf<"claude-code">) =>
    spec.cwd !== undefined && setup.folderRefused(spec.cwd) === null ? spec.cwd : undefined;
  return {
    kind: "claude-code",
    start: (start, dispatch) =>
      start.resume === undefined
        ? ClaudeCodeSession.start(setup, start.args, dispatch)
        : ClaudeCodeSession.resume(setup, start.args, start.resume, dispatch),
    reopen: (spec, _history, dispatch) =>
      ClaudeCodeSession.resume(setup, replayable(spec.args).replayed, spec.sessionId, dispatch, folderOf(spec)),
    label: () => CLAUDE_LABEL,
    traits: () => CLAUDE_CODE_TRAITS,
    ownMessages: (spec) => counts.count(spec.sessionId),
    storedNotices(spec, title) {
      const notices: StoredNotice[] = [];
      const { dropped } = replayable(spec.args);
      if (dropped.length) notices.push({ key: "args", text: droppedNotice(title, spec.sessionId, dropped) });
      const why = spec.cwd === undefined ? null : setup.folderRefused(spec.cwd);
      if (why)
        notices.push({
          key: "session",
          text: `tine: ${title}: its Claude Code session runs in the project's folder, not in its stored folder ${JSON.stringify(spec.cwd)}: ${why} (:help tine-trust)`,
        });
      return notices;
    },
  };
}
