/**
 * A Chat for unit tests, as the host builds one but with nothing outside it: tine's agent without
 * an API client (unless a connection is given), tools in `/`, snapshots off, and the host's
 * dispatch loop (messages dispatched while one is handled wait their turn). `afterBatch` runs
 * after each batch, as the host writes and draws there.
 */
import { Chat } from "../../node/chat/chat.ts";
import type { ChatClock, ChatEvents, ChatLimits } from "../../node/chat/events.ts";
import type { RootMsg } from "../../node/chat/msgs.ts";
import type { ThreadId } from "../../node/core/ids.ts";
import { runnerRegistry } from "../../node/host/runners.ts";
import type { Connection } from "../../node/providers/connection.ts";
import { snapshotsOff } from "../../node/snapshot/code.ts";
import { builtinTools } from "../../node/tools/builtin.ts";
import { localEnvironment } from "../../node/tools/local-environment.ts";
import { ToolSources } from "../../node/tools/source.ts";
import { codeRecorder } from "../../node/worktree/code-recorder.ts";
import { testConfig } from "./agent-harness.ts";

export type TestChatOptions = {
  readonly events?: Partial<ChatEvents>;
  readonly clock?: ChatClock;
  readonly limits?: ChatLimits;
  /** Whether every built-in tool call waits for approval. */
  readonly needsApproval?: boolean;
  readonly connection?: Connection;
  readonly afterBatch?: (chat: Chat) => void;
  /** Which forks work in a worktree of their own (default: none, every thread works in `/`). */
  readonly worksApart?: (id: ThreadId) => boolean;
};

export function testChat(opts: TestChatOptions = {}): { chat: Chat; dispatch: (msg: RootMsg) => void } {
  const queue: RootMsg[] = [];
  let draining = false;
  const dispatch = (msg: RootMsg) => {
    queue.push(msg);
    if (draining) return;
    draining = true;
    try {
      while (queue.length) chat.update(queue.shift()!);
    } finally {
      draining = false;
    }
    opts.afterBatch?.(chat);
  };
  const tools = builtinTools([]);
  const chat: Chat = new Chat(
    dispatch,
    runnerRegistry({
      api: {
        config: testConfig,
        connection: opts.connection ?? { client: null, streamRetries: 0, retryDelayMs: 0 },
        instructions: () => null,
      },
      claudeCode: { command: ["claude"], cwd: "/", worktrees: "/nonexistent", transcriptPath: () => "/nonexistent" },
    }),
    {
      environmentFor: () => localEnvironment("/"),
      worksApart: opts.worksApart ?? (() => false),
      tools: new ToolSources([opts.needsApproval === undefined ? tools : { ...tools, needsApproval: () => opts.needsApproval! }]),
      fileWritten: () => {},
      code: codeRecorder(
        () => snapshotsOff(),
        (m) => dispatch(m),
        () => {},
      ),
    },
    {
      threadCreated: () => {},
      threadDeleted: () => {},
      forkEnded: () => {},
      reportToStored: () => {},
      forkDue: () => {},
      branched: () => {},
      ...opts.events,
    },
    opts.clock ?? { now: () => 0, forkIdleTimeoutMs: 60_000 },
    opts.limits ?? { agentForkLimit: 3 },
  );
  return { chat, dispatch };
}
