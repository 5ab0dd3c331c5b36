/**
 * Property: random sequences of user turns, streamed blocks and text, finished and aborted turns,
 * tool results, retries, renames and forks at random points, each written through the recorder,
 * reload to exactly the state each thread had in memory; and a log cut at any byte (a kill -9)
 * reloads without error to a history the Messages API accepts, equal to the state at its last
 * whole record when the cut falls in a record.
 *
 * Property: a fork's end (promote, report, discard) cut after any of its writes, or inside one,
 * reloads with nothing lost: the fork's content in the tree or restorable, the parent's history
 * (or its old tail), the report in the parent unless the fork is still live.
 *
 * Over 300 lines: two properties of the store's crash safety, each with the model it needs.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import fc from "fast-check";
import { expect, it, vi } from "vitest";
import { exchanges, storeWorld } from "../../test/helpers/store-world.ts";
import { checkMessages } from "../../test/mock-anthropic/api-rules.ts";
import { NO_LABELS } from "../chat/labels.ts";
import { History } from "../core/history.ts";
import { type AssistantBlock, assistantMessage, entry, type ToolResultBlock, type ToolUseBlock, userMessage } from "../core/native.ts";
import {
  ABORTED_BEFORE_TOOL_RAN,
  appendUserTurn,
  cleanAssistantBlocks,
  closeTurn,
  FORKED_BEFORE_TOOL_RAN,
  resultsIn,
} from "../providers/turn-cleanup.ts";
import { LogWriter } from "./log-writer.ts";
import { Persistence } from "./persistence.ts";
import { recoverHistory } from "./replay.ts";
import { ThreadStore } from "./store.ts";
import { type Snapshot, ThreadRecorder } from "./sync.ts";

type Report = { from: string; text: string };
type Model = {
  id: string;
  rec: ThreadRecorder;
  history: History;
  open: AssistantBlock[];
  /** Text of the block streaming after `open`. */
  streamed: string;
  results: Map<string, ToolResultBlock>;
  title: string;
  reports: readonly Report[];
  sizes: { bytes: number; snap: Snapshot }[];
};

const snapshot = (m: Model): Snapshot => ({
  history: m.history,
  open: m.open.slice(),
  streamed: m.streamed,
  results: new Map(m.results),
  title: m.title,
  reports: m.reports,
});
const pendingUses = (m: Model): ToolUseBlock[] => {
  const last = m.history.last()?.message;
  return last?.role === "assistant" ? last.content.filter((b): b is ToolUseBlock => b.type === "tool_use") : [];
};

/** What the Messages API would refuse in the request the next send makes from `history`. */
const nextSendProblems = (history: History) => checkMessages(appendUserTurn(history, [{ type: "text", text: "next" }]).messages());

const OPS = [
  "user",
  "block",
  "block",
  "stream",
  "stream",
  "finish",
  "result",
  "answer",
  "abort",
  "retry",
  "fork",
  "rename",
  "report",
] as const;

/** A fixed number of runs, each real file IO: a bound for a machine whose two cores are shared, not a wait. */
const PROPERTY_TIMEOUT_MS = 120_000;

it(
  "stored threads and forks reload to their in-memory state, and any crash cut reloads to a valid history",
  () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(OPS.length - 1), fc.nat(), fc.nat()), { minLength: 1, maxLength: 50 }),
        fc.nat(),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (ops, crashPick, crashAt) => {
          const dataDir = mkdtempSync(join(tmpdir(), "tine-prop-"));
          try {
            const store = new ThreadStore(dataDir, "/p");
            let ids = 0;
            let toolIds = 0;
            const newId = () => `00000000-0000-4000-8000-${String(++ids).padStart(12, "0")}`;
            const threads: Model[] = [];
            const add = (
              history: History,
              base: History,
              parent: { id: string; records: number; atMessage: number; messages: number } | null,
            ): Model => {
              const id = newId();
              const log = store.create({
                id,
                num: ids,
                title: "T",
                model: "m",
                runner: { kind: "api" },
                parent: parent && { relation: "fork", ...parent },
              });
              const m: Model = {
                id,
                rec: new ThreadRecorder(log, { history: base, open: [], streamed: "", results: new Map(), title: "T", reports: [] }),
                history,
                open: [],
                streamed: "",
                results: new Map(),
                title: "T",
                reports: [],
                sizes: [],
              };
              threads.push(m);
              return m;
            };
            const sync = (m: Model) => {
              // Streamed text is written at every sync here, as if always due: each reload then sees all of it.
              m.rec.sync(snapshot(m), true);
              m.sizes.push({ bytes: statSync(join(store.dir, `${m.id}.jsonl`)).size, snap: snapshot(m) });
            };
            sync(add(History.empty, History.empty, null));
            for (const [op, which, param] of ops) {
              const m = threads[which % threads.length]!;
              const last = m.history.last()?.message;
              switch (OPS[op]) {
                case "user":
                  if (m.open.length || m.streamed || pendingUses(m).length) continue;
                  // A user turn takes the queued reports with it.
                  m.history = appendUserTurn(m.history, [
                    ...m.reports.map((r) => ({ type: "text" as const, text: `${r.from}: ${r.text}` })),
                    { type: "text", text: `u${param}` },
                  ]);
                  m.reports = [];
                  break;
                case "block": {
                  if (last?.role !== "user") continue;
                  const kinds: AssistantBlock[] = [
                    { type: "text", text: param % 5 ? `t${param}` : " " },
                    { type: "thinking", thinking: `th${param}`, signature: param % 3 ? "sig" : "" },
                    { type: "tool_use", id: `tool${++toolIds}`, name: "get_file", input: { path: `f${param}` } },
                  ];
                  m.open.push(Object.freeze(kinds[param % kinds.length]!));
                  m.streamed = "";
                  break;
                }
                case "stream":
                  // Text arriving in a block still open (a restarted stream starts it again).
                  if (last?.role !== "user") continue;
                  m.streamed = param % 7 ? `${m.streamed}s${param} ` : `again${param}`;
                  break;
                case "finish": {
                  // A complete response never ends in thinking.
                  const lastBlock = m.open.at(-1)?.type;
                  if (!lastBlock || lastBlock === "thinking") continue;
                  const content = cleanAssistantBlocks(m.open);
                  if (content.length)
                    m.history = m.history.push(
                      entry(assistantMessage(content), {
                        stopReason: "tool_use",
                        usage: { input_tokens: 1, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
                      }),
                    );
                  m.open = [];
                  m.streamed = "";
                  break;
                }
                case "result": {
                  const waiting = pendingUses(m).filter((u) => !m.results.has(u.id));
                  const use = waiting[param % Math.max(1, waiting.length)];
                  if (!use) continue;
                  m.results.set(use.id, { type: "tool_result", tool_use_id: use.id, content: `r${param}` });
                  break;
                }
                case "answer": {
                  const uses = pendingUses(m);
                  if (!uses.length) continue;
                  const results = uses.map(
                    (u) => m.results.get(u.id) ?? { type: "tool_result" as const, tool_use_id: u.id, content: "done" },
                  );
                  m.history = m.history.push(entry(userMessage(results)));
                  m.results = new Map();
                  break;
                }
                case "abort":
                  m.history = closeTurn(m.history, m.open.length || m.streamed ? { finalized: m.open, partialText: m.streamed } : null, {
                    knownResults: m.results,
                    missingResultText: ABORTED_BEFORE_TOOL_RAN,
                  });
                  m.open = [];
                  m.streamed = "";
                  m.results = new Map();
                  break;
                case "retry":
                  m.open = [];
                  m.streamed = "";
                  break;
                case "fork": {
                  // As a clone does: at a random message, or whole with the open turn closed.
                  let history = m.history.share();
                  let open: { finalized: readonly AssistantBlock[] } | null = m.open.length ? { finalized: m.open.slice() } : null;
                  let known: ReadonlyMap<string, ToolResultBlock> = m.results;
                  const at = m.history.length ? param % m.history.length : 0;
                  if (param % 2 && at < m.history.length - 1) {
                    known = resultsIn(history.at(at + 1));
                    history = history.prefix(at + 1);
                    open = null;
                  }
                  const forked = closeTurn(history, open, { knownResults: known, missingResultText: FORKED_BEFORE_TOOL_RAN });
                  sync(
                    add(forked, m.rec.writtenHistory, {
                      id: m.id,
                      records: m.rec.records,
                      atMessage: at,
                      messages: m.rec.writtenHistory.length,
                    }),
                  );
                  continue;
                }
                case "rename":
                  m.title = `title ${param}`;
                  break;
                case "report":
                  m.reports = [...m.reports, { from: `fork ${param}`, text: `found ${param}` }];
                  break;
              }
              sync(m);
            }

            const reread = new ThreadStore(dataDir, "/p");
            for (const m of threads) {
              const loaded = reread.load(m.id);
              expect(loaded.problems).toEqual([]);
              expect(loaded.raw.history.messages()).toEqual(m.history.messages());
              expect(loaded.raw.open).toEqual(m.open);
              expect(loaded.raw.streamed).toBe(m.streamed);
              expect(new Map(loaded.raw.results)).toEqual(m.results);
              expect(loaded.raw.title).toBe(m.title);
              expect(loaded.raw.reports).toEqual(m.reports);
              expect(nextSendProblems(loaded.history)).toEqual([]);
            }

            // A kill -9: one thread's log cut at a random byte, in a copy of the data dir.
            const victim = threads[crashPick % threads.length]!;
            const crashDir = mkdtempSync(join(tmpdir(), "tine-crash-"));
            try {
              cpSync(dataDir, crashDir, { recursive: true });
              const crashed = new ThreadStore(crashDir, "/p");
              const path = join(crashed.dir, `${victim.id}.jsonl`);
              const text = readFileSync(path);
              const headerEnd = text.indexOf(0x0a) + 1;
              const cut = headerEnd + Math.floor(crashAt * (text.length - headerEnd));
              truncateSync(path, cut);
              const loaded = crashed.load(victim.id);
              expect(loaded.problems).toEqual([]);
              expect(nextSendProblems(loaded.history)).toEqual([]);
              // Cut inside the first record of a sync: the state is the one that sync started from.
              const after = victim.sizes.filter((s) => s.bytes <= cut).at(-1);
              const nextLine = text.indexOf(0x0a, after?.bytes ?? headerEnd);
              if (after && cut <= nextLine) {
                expect(loaded.raw.history.messages()).toEqual(after.snap.history.messages());
                expect(loaded.history.messages()).toEqual(
                  recoverHistory({
                    ...after.snap,
                    side: [],
                    grafts: [],
                    started: after.snap.started ?? new Set(),
                    failed: after.snap.failed ?? null,
                    queue: [],
                    labels: NO_LABELS,
                    deleted: false,
                    ended: null,
                    code: [],
                    model: null,
                    settings: null,
                  }).messages(),
                );
              }
            } finally {
              rmSync(crashDir, { recursive: true, force: true });
            }
          } finally {
            rmSync(dataDir, { recursive: true, force: true });
          }
        },
      ),
      { numRuns: 150 },
    );
  },
  PROPERTY_TIMEOUT_MS,
);

/** Every write to the store's files, in order: the file and its size after the write. */
function journalWrites(dir: string): { writes: { file: string; size: number }[]; stop: () => void } {
  const writes: { file: string; size: number }[] = [];
  const note = (id: string) => {
    const file = `${id}.jsonl`;
    writes.push({ file, size: statSync(join(dir, file)).size });
  };
  const append = LogWriter.prototype.append;
  const create = ThreadStore.prototype.create;
  const spies = [
    vi.spyOn(LogWriter.prototype, "append").mockImplementation(function (this: LogWriter, records) {
      append.call(this, records);
      note(this.id);
    }),
    vi.spyOn(ThreadStore.prototype, "create").mockImplementation(function (this: ThreadStore, thread) {
      const writer = create.call(this, thread);
      note(thread.id);
      return writer;
    }),
  ];
  return {
    writes,
    stop: () => {
      for (const s of spies) s.mockRestore();
    },
  };
}

/**
 * A copy of `dataDir` as a kill -9 would leave it after the first `count` writes, and `within`
 * (a fraction) of the next one.
 */
function crashCopy(dataDir: string, projectDir: string, writes: readonly { file: string; size: number }[], count: number, within: number) {
  const size = new Map<string, number>();
  for (const w of writes.slice(0, count)) size.set(w.file, w.size);
  const next = writes[count];
  if (next && within > 0) {
    const from = size.get(next.file) ?? 0;
    size.set(next.file, from + Math.floor(within * (next.size - from)));
  }
  const crashDir = mkdtempSync(join(tmpdir(), "tine-crash-"));
  cpSync(dataDir, crashDir, { recursive: true });
  const dir = join(crashDir, relative(dataDir, projectDir));
  for (const name of readdirSync(dir).filter((n) => n.endsWith(".jsonl"))) {
    const keep = size.get(name);
    if (keep === undefined) unlinkSync(join(dir, name));
    else truncateSync(join(dir, name), keep);
  }
  return crashDir;
}

const ENDS = ["promote", "report", "discard"] as const;

it(
  "a promote, a report or a discard cut at any of its writes (a kill -9 between them) reloads with nothing lost",
  () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3 }),
        fc.nat(),
        fc.integer({ min: 0, max: 2 }),
        fc.integer({ min: 0, max: 2 }),
        fc.constantFrom(...ENDS),
        fc.boolean(),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (before, pick, forkTurns, parentTurns, end, grandchild, within) => {
          const dataDir = mkdtempSync(join(tmpdir(), "tine-prop-"));
          const w = storeWorld(dataDir);
          const journal = journalWrites(w.store.dir);
          try {
            const root = w.root(exchanges("root", before), "root");
            const at = pick % (2 * before);
            const fork = w.fork(root, at);
            w.say(fork, exchanges("fork", forkTurns));
            w.say(root, exchanges("tail", parentTurns));
            const child = grandchild ? w.fork(fork) : null;
            const forkHistory = w.messages(fork);
            const parentHistory = w.messages(root);
            const childHistory = child ? w.messages(child) : null;
            const forkTitle = w.chat.threads.get(fork)!.title;
            const start = journal.writes.length;
            switch (end) {
              case "promote":
                w.dispatch({ type: "chat-msg", msg: { type: "fork-promote", id: fork, siblingId: w.newId(), siblingNum: 99 } });
                break;
              case "report":
                w.dispatch({ type: "chat-msg", msg: { type: "fork-report", id: fork, text: "the finding" } });
                break;
              case "discard":
                w.dispatch({ type: "chat-msg", msg: { type: "fork-discard", id: fork } });
                break;
            }
            expect(w.chat.threads.has(fork)).toBe(false);
            const writes = journal.writes.slice();
            for (let count = start; count <= writes.length; count++) {
              for (const cut of count < writes.length ? [0, within] : [0]) {
                const crashDir = crashCopy(dataDir, w.store.dir, writes, count, cut);
                try {
                  const reread = new Persistence(new ThreadStore(crashDir, "/project"), "m");
                  const { threads, ended } = reread.scan();
                  const load = (id: string) => reread.store.load(id).history.messages();
                  const inTree = threads.map((t) => load(t.id));
                  const endedOnes = ended.map((t) => load(t.id));
                  const where = `${end}, cut after write ${count - start} of ${writes.length - start} (+${cut.toFixed(2)} of the next)`;
                  // The fork's content: in the tree (the fork, or the parent that took it), or restorable.
                  expect([...inTree, ...(end === "promote" ? [] : endedOnes)], where).toContainEqual(forkHistory);
                  // The parent's history: the parent's own, or its old tail moved to a sibling.
                  if (end !== "promote" || parentHistory.length > at + 1) expect(inTree, where).toContainEqual(parentHistory);
                  if (childHistory) expect(inTree, where).toContainEqual(childHistory);
                  if (end === "report") {
                    const reported = reread.store.load(root).raw.reports.some((r) => r.from === forkTitle && r.text === "the finding");
                    expect(
                      reported || threads.some((t) => t.id === fork),
                      `${where}: the report is in the parent, or the fork is live`,
                    ).toBe(true);
                  }
                } finally {
                  rmSync(crashDir, { recursive: true, force: true });
                }
              }
            }
          } finally {
            journal.stop();
            w.persistence.close();
            rmSync(dataDir, { recursive: true, force: true });
          }
        },
      ),
      { numRuns: 40 },
    );
  },
  PROPERTY_TIMEOUT_MS,
);
