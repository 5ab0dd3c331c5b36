/**
 * A chat wired to the store as the host wires them (every event to `Persistence`, a sync after
 * each batch of messages), without Neovim: for the store's unit tests. Agents have no API client;
 * a thread's history grows by `say`, as finished exchanges would grow it.
 */
import { randomUUID } from "node:crypto";
import { Chat } from "../../node/chat/chat.ts";
import type { RootMsg, ThreadId } from "../../node/chat/msgs.ts";
import type { AgentMsg, OpenMessage } from "../../node/providers/agent.ts";
import { AnthropicAgent } from "../../node/providers/anthropic-agent.ts";
import { History } from "../../node/providers/history.ts";
import { assistantMessage, type Entry, entry, userMessage } from "../../node/providers/native.ts";
import { zeroUsage } from "../../node/providers/stream.ts";
import { runnerRegistry } from "../../node/runners.ts";
import { snapshotsOff } from "../../node/snapshot/code.ts";
import { codeRecorder } from "../../node/snapshot/recorder.ts";
import { Persistence } from "../../node/store/persistence.ts";
import { ThreadStore } from "../../node/store/store.ts";
import { builtinTools } from "../../node/tools/builtin.ts";
import { localEnvironment } from "../../node/tools/local-environment.ts";
import { ToolSources } from "../../node/tools/source.ts";
import { testConfig } from "./agent-harness.ts";

const connection = { client: null, streamRetries: 0, retryDelayMs: 0 };

/** An agent caught mid-reply: its open message holds the text streamed so far. */
class StreamingAgent extends AnthropicAgent {
  constructor(
    dispatch: (msg: AgentMsg) => void,
    history: History,
    private readonly streamed: OpenMessage,
  ) {
    super(testConfig, connection, dispatch, history, { type: "streaming", startedAt: 0, attempt: 0 });
  }

  override get open(): OpenMessage {
    return this.streamed;
  }
}

export const userTurn = (text: string): Entry => entry(userMessage([{ type: "text", text }]));
export const replyTurn = (text: string): Entry =>
  entry(assistantMessage([{ type: "text", text }]), {
    stopReason: "end_turn",
    usage: { input_tokens: 1, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
  });
/** `n` finished exchanges, their texts tagged. */
export const exchanges = (tag: string, n: number): Entry[] =>
  Array.from({ length: n }, (_, i) => [userTurn(`${tag} q${i}`), replyTurn(`${tag} a${i}`)]).flat();

export type StoreWorld = ReturnType<typeof storeWorld>;

export function storeWorld(dataDir: string, clock: { now(): number } = Date) {
  const store = new ThreadStore(dataDir, "/project");
  const persistence = new Persistence(store, "m", clock);
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
    persistence.sync(chat);
  };
  const chat: Chat = new Chat(
    dispatch,
    runnerRegistry({
      api: { config: testConfig, connection, instructions: () => null },
      claudeCode: { command: ["claude"], transcriptPath: () => "/nonexistent" },
    }),
    {
      environmentFor: () => localEnvironment("/"),
      tools: new ToolSources([builtinTools([])]),
      fileWritten: () => {},
      code: codeRecorder(
        () => snapshotsOff(),
        (m) => dispatch(m),
        () => {},
      ),
    },
    {
      threadCreated: (thread, how) => persistence.created(thread, chat, how),
      threadDeleted: () => {},
      forkEnded: (fork, how, into) => persistence.ended(chat, fork, how, into),
      reportToStored: (parentId, report) => persistence.reportToStored(parentId, report),
      branched: (parentId, siblingId, atMessage) => persistence.branched(parentId, siblingId, atMessage),
    },
    { now: () => clock.now(), forkIdleTimeoutMs: 10 * 60_000 },
    { agentForkLimit: 3 },
  );
  let n = 0;
  const newId = () => {
    n++;
    return randomUUID();
  };
  return {
    store,
    persistence,
    chat,
    dispatch,
    newId,
    /** A root thread holding `history`; returns its id. */
    root(history: Entry[], title?: string): ThreadId {
      const id = newId();
      const runner = { kind: "api" as const, history: History.of(history) };
      dispatch({ type: "chat-msg", msg: { type: "new-thread", newId: id, num: n, runner, ...(title ? { title } : {}) } });
      return id;
    },
    fork(sourceId: ThreadId, atMessage?: number): ThreadId {
      const id = newId();
      dispatch({ type: "chat-msg", msg: { type: "fork-thread", sourceId, newId: id, num: n, prompt: "", atMessage } });
      return id;
    },
    /** The thread's history grows by `entries` (at rest after), and the store syncs. */
    say(id: ThreadId, entries: Entry[]): void {
      const thread = chat.threads.get(id)!;
      thread.runner = new AnthropicAgent(testConfig, connection, chat.agentDispatch(id), thread.runner.history.push(...entries));
      thread.version++;
      persistence.sync(chat);
    },
    /** The thread is mid-reply: `text` has arrived of a text block (a delta, as the agent reports one), and the store syncs. */
    streaming(id: ThreadId, text: string): void {
      const thread = chat.threads.get(id)!;
      const open = { finalized: [], inProgress: { type: "text" as const, text }, usage: zeroUsage() };
      thread.runner = new StreamingAgent(chat.agentDispatch(id), thread.runner.history, open);
      thread.version++;
      persistence.sync(chat);
    },
    messages: (id: ThreadId) => chat.threads.get(id)!.runner.history.messages(),
    /** Reads what the store holds into the chat, as the host does when it starts. */
    rescan(): void {
      dispatch({ type: "chat-msg", msg: { type: "stored-found", threads: persistence.scan().threads } });
    },
    /** Loads a stored thread, as the host does when it is opened. */
    open(id: ThreadId): void {
      const { loaded, readOnlyBy } = persistence.open(id);
      dispatch({
        type: "chat-msg",
        msg: {
          type: "load-thread",
          id,
          title: loaded.raw.title,
          history: loaded.history,
          runner: loaded.runner,
          readOnlyBy,
          reports: loaded.raw.reports,
          queue: loaded.raw.queue,
          labels: loaded.raw.labels,
        },
      });
    },
  };
}
