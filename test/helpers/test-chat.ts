/**
 * A Chat for unit tests, as the host builds one but with nothing outside it: tine's agent without
 * an API client (unless a connection is given), tools in `/`, snapshots off, the host's fork flow
 * with every thread in `/` (no worktrees), and the host's
 * dispatch loop (node/host/dispatch-loop.ts: messages dispatched while one is handled wait their
 * turn). `afterBatch` runs after each batch, as the host writes and draws there; a message the
 * chat cannot apply throws to the test (the host tells the user and goes on).
 */
import { Chat } from "../../node/chat/chat.ts";
import type { ChatClock, ChatEvents, ChatLimits } from "../../node/chat/events.ts";
import type { RootMsg } from "../../node/chat/msgs.ts";
import type { ThreadId } from "../../node/core/ids.ts";
import { ForkFlow } from "../../node/fork/flow.ts";
import { type Batch, DispatchLoop } from "../../node/host/dispatch-loop.ts";
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
  readonly afterBatch?: (chat: Chat, batch: Batch) => void;
  /** Which forks work in a worktree of their own (default: none, every thread works in `/`). */
  readonly worksApart?: (id: ThreadId) => boolean;
  /** `fork_unattended` (default "never"); no fork can be unattended here (no worktrees, no sandbox). */
  readonly forkUnattended?: "always" | "background" | "never";
};

export function testChat(opts: TestChatOptions = {}): { chat: Chat; dispatch: (msg: RootMsg) => void; forks: ForkFlow } {
  const loop = new DispatchLoop({ update: (msg) => chat.update(msg), takeChanges: () => chat.takeChanges() }, (error) => {
    throw error;
  });
  const { afterBatch } = opts;
  if (afterBatch) loop.afterEachBatch((batch) => afterBatch(chat, batch));
  const dispatch = loop.dispatch;
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
      agentFork: (sourceId, ask) => forks.agentFork(sourceId, ask),
      forkDueAtRest: (sourceId) => forks.dueAtRest(sourceId),
      branch: (sourceId) => forks.branch(sourceId),
      branched: () => {},
      ...opts.events,
    },
    opts.clock ?? { now: () => 0, forkIdleTimeoutMs: 60_000 },
    opts.limits ?? { agentForkLimit: 3 },
  );
  const noWorktrees = () => {
    throw new Error("no worktrees in a test chat");
  };
  const forks = new ForkFlow({
    chat,
    dispatch,
    folders: {
      share: () => {},
      fork: noWorktrees,
      forkMeanwhile: noWorktrees,
      remove: noWorktrees,
      available: async () => false,
      inWorktree: () => false,
      unattendedRefusal: async () => "no worktrees in a test chat",
    },
    code: { restore: noWorktrees, settledCode: noWorktrees },
    forkWorktree: "never",
    forkUnattended: opts.forkUnattended ?? "never",
    storedSource: () => {
      throw new Error("no store in a test chat");
    },
    storedRunnerUsed: () => {},
    live: (id) => {
      const thread = chat.threads.get(id);
      if (!thread) throw new Error(`no thread ${id}`);
      return thread;
    },
    show: async () => {},
    tell: (text, error) => opts.events?.tell?.(text, error),
  });
  return { chat, dispatch, forks };
}

/**
 * Resolves once `pred` holds, checked after each turn of the event loop (tool runs finish there,
 * after real file reads). Bounded by time, not turns: a loaded machine's reads take many turns.
 */
export async function settled(pred: () => boolean, what = "the chat to settle"): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (let turn = 0; !pred(); turn++) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    // Each turn at first; then every 5 ms, so as not to spin a core the reads it waits for need.
    await new Promise((r) => (turn < 200 ? setImmediate(r) : setTimeout(r, 5)));
  }
}
