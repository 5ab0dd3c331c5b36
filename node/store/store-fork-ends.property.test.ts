/**
 * Property: a fork's end (promote, report, discard) cut after any of its writes, or inside one,
 * reloads with nothing lost: the fork's content in the tree or restorable, the parent's history
 * (or its old tail), the report in the parent unless the fork is still live.
 */
import { cpSync, mkdtempSync, readdirSync, rmSync, statSync, truncateSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import fc from "fast-check";
import { expect, it, vi } from "vitest";
import { exchanges, PROPERTY_TIMEOUT_MS, storeWorld } from "../../test/helpers/store-world.ts";
import { LogWriter } from "./log-writer.ts";
import { Persistence } from "./persistence.ts";
import { ThreadStore } from "./store.ts";

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
