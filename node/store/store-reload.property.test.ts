/**
 * Property: random sequences of user turns, streamed blocks and text, finished and aborted turns,
 * tool results, retries, renames and forks at random points, each written through the recorder,
 * reload to exactly the state each thread had in memory; and a log cut at any byte (a kill -9)
 * reloads without error to a history the Messages API accepts, equal to the state at its last
 * whole record when the cut falls in a record.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { expect, it } from "vitest";
import { PROPERTY_TIMEOUT_MS } from "../../test/helpers/store-world.ts";
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
