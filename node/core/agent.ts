/**
 * The words of a runner's conversation (chat/runner.ts holds the runner contract): its status,
 * the message being streamed, and the messages every runner dispatches to its thread on each
 * change; the view reads its state.
 */
import type { AssistantBlock, ToolResultBlock, Usage } from "./native.ts";
import type { SideRequest } from "./side-request.ts";

export type StopReason =
  | "end_turn"
  | "tool_use"
  | "max_tokens"
  | "stop_sequence"
  | "pause_turn"
  | "refusal"
  | "model_context_window_exceeded"
  | "aborted";

/** A request that failed for now, to be tried again: when, and what failed (shown with a countdown). */
export type RetryWait = { readonly at: number; readonly why: string };

export type AgentStatus =
  | { readonly type: "idle" }
  /**
   * `retry`: waiting until `at` to try again, after `why` (a transient error, see api-errors.ts).
   * `waitingForTools`: its request waits for the tools it offers to be listed (its MCP servers
   * starting, or one waiting for the user to sign in) before it goes.
   */
  | {
      readonly type: "streaming";
      readonly startedAt: number;
      readonly attempt: number;
      readonly retry?: RetryWait;
      readonly waitingForTools?: true;
    }
  | { readonly type: "stopped"; readonly stopReason: StopReason }
  | { readonly type: "error"; readonly message: string };

/** The block still being streamed; mutable while it streams, never part of a clone. */
export type InProgressBlock =
  | { type: "text"; text: string; citations?: unknown[] }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "tool_use" | "server_tool_use"; id: string; name: string; inputJson: string }
  | { type: "whole"; block: AssistantBlock }
  /** A block type this version does not know: left out of the history. */
  | { type: "unknown"; blockType: string };

/** The assistant message being streamed. */
export type OpenMessage = {
  readonly finalized: readonly AssistantBlock[];
  readonly inProgress: InProgressBlock | null;
  readonly usage: Usage;
};

export type AgentMsg =
  | { type: "stream-updated" }
  | { type: "status-changed"; status: AgentStatus }
  /** A program running the thread (a CLI in a terminal) was given its first prompt there. */
  | { type: "prompted"; text: string }
  /** A request billed that no entry of the history holds (an attempt that failed after the API began to answer). */
  | { type: "side-request"; request: SideRequest };

export type CloneOptions = {
  /** Results of tools that already finished in the source; the clone gets them as they are. */
  readonly knownResults?: ReadonlyMap<string, ToolResultBlock>;
  /** Fork from an earlier point: keep entries 0..atMessage (inclusive) only. */
  readonly atMessage?: number;
  /**
   * The folder the clone works in (its thread's workspace root): another than its source's for a
   * fork in a worktree of its own. A runner whose program keeps its conversation by folder (Claude
   * Code) takes it there; tine's agent needs nothing (its tools get their folder from the thread).
   */
  readonly root?: string;
  /** What the source's `prepareFork` made for this fork (chat/runner.ts `PreparedFork.made`). */
  readonly prepared?: unknown;
};
