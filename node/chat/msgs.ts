/** The typed messages that drive every change, dispatched through the one loop in `App`. */
import type { AgentMsg } from "../providers/agent.ts";
import type { History } from "../providers/history.ts";
import type { ToolOutcome } from "../tools/run.ts";

export type ThreadId = number;

export type ThreadMsg =
  | { type: "send"; text: string }
  | { type: "agent"; msg: AgentMsg }
  | { type: "tool-decision"; toolUseId: string; approved: boolean }
  | { type: "tool-done"; toolUseId: string; outcome: ToolOutcome }
  | { type: "abort" }
  | { type: "toggle-detail"; key: string };

export type ForkRequest = {
  sourceId: ThreadId;
  newId: ThreadId;
  /** Sent as the clone's next user turn; empty: the clone opens ready for input. */
  prompt: string;
  /** Fork the history up to and including this message. */
  atMessage?: number;
  /** Text put in the clone's input buffer (a quoted selection). */
  prefill?: string;
};

export type ChatMsg =
  /** `history`: a conversation to start from (benchmarks now; threads loaded from disk later). */
  | { type: "new-thread"; newId: ThreadId; history?: History }
  | ({ type: "fork-thread" } & ForkRequest)
  | { type: "select-thread"; id: ThreadId };

export type RootMsg = { type: "chat-msg"; msg: ChatMsg } | { type: "thread-msg"; id: ThreadId; msg: ThreadMsg };

export type Dispatch = (msg: RootMsg) => void;
