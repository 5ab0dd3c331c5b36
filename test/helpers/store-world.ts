/**
 * A chat wired to the store as the host wires them (every event to `Persistence`, a sync after
 * each batch of messages), without Neovim: for the store's unit tests. Agents have no API client;
 * a thread's history grows by `say`, as finished exchanges would grow it.
 */
import { randomUUID } from "node:crypto";
import type { AgentMsg, OpenMessage } from "../../node/core/agent.ts";
import { History } from "../../node/core/history.ts";
import type { ThreadId } from "../../node/core/ids.ts";
import { assistantMessage, type Entry, entry, userMessage } from "../../node/core/native.ts";
import { AnthropicAgent } from "../../node/providers/anthropic-agent.ts";
import { zeroUsage } from "../../node/providers/stream.ts";
import { Persistence } from "../../node/store/persistence.ts";
import { ThreadStore } from "../../node/store/store.ts";
import { testConfig } from "./agent-harness.ts";
import { testChat } from "./test-chat.ts";

const connection = { client: null, streamRetries: 0, retryDelayMs: 0 };

/** A fixed number of runs, each real file IO: a bound for a machine whose two cores are shared, not a wait. */
export const PROPERTY_TIMEOUT_MS = 120_000;

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
  const { chat, dispatch } = testChat({
    connection,
    events: {
      threadCreated: (thread, how) => persistence.created(thread, chat, how),
      forkEnded: (fork, how, into) => persistence.ended(chat, fork, how, into),
      reportToStored: (parentId, report) => persistence.reportToStored(parentId, report),
      branched: (parentId, siblingId, atMessage) => persistence.branched(parentId, siblingId, atMessage),
    },
    clock: { now: () => clock.now(), forkIdleTimeoutMs: 10 * 60_000 },
    afterBatch: (c) => persistence.sync(c),
  });
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
      dispatch({
        type: "chat-msg",
        msg: { type: "fork-thread", sourceId, newId: id, num: n, prompt: "", atMessage, opener: { by: "user", background: false } },
      });
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
