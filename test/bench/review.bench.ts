/**
 * Reviewing a turn hunk by hunk (issue #34), on a real git project and the real snapshot store,
 * each figure with its target and PASS/FAIL: the hunks of a turn that changed 200 files listed
 * (< 100 ms), and one hunk of a 10,000-line file undone in the working file (< 50 ms), the undo
 * whole: the reads, the file kept for `:Tine restore undo` (which then puts the last one back),
 * the write and the review's record.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Thread } from "../../node/chat/thread.ts";
import { History } from "../../node/core/history.ts";
import type { Entry } from "../../node/core/native.ts";
import { ReviewRecords } from "../../node/review/review-record.ts";
import { Reviews } from "../../node/review/reviews.ts";
import { gitSnapshots } from "../../node/snapshot/code.ts";
import { localGit } from "../../node/tools/local-git.ts";
import { CodeActions } from "../../node/worktree/code-actions.ts";
import { gitProject } from "../helpers/git-project.ts";
import { Figures, median } from "./code-kit.ts";

const figures = new Figures();
const CHANGED = 200;
const BIG = 10_000;
/** Lines of the big file the turn changed, far enough apart to be hunks of their own. */
const BIG_EDITS = Array.from({ length: 20 }, (_, i) => 250 + i * 480);

async function timed(f: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await f();
  return performance.now() - t0;
}

const root = mkdtempSync(join(tmpdir(), "tine-bench-review-"));
const data = mkdtempSync(join(tmpdir(), "tine-bench-data-"));
const lines = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag} line ${i + 1}\n`).join("");
try {
  const files: Record<string, string> = { "big.txt": lines(BIG, "big") };
  for (let i = 0; i < CHANGED; i++) files[`d${i % 20}/f${i}.txt`] = lines(40, `f${i}`);
  gitProject(root, files);
  const snapshots = gitSnapshots({ enabled: true, cwd: root, dataDir: data, maxFileBytes: 2 * 1024 * 1024, keepDays: 30, git: localGit });
  const from = (await snapshots.take("bench"))!;
  // The turn: two hunks in each of 199 small files, and 20 in the big one.
  for (let i = 0; i < CHANGED - 1; i++) {
    const path = join(root, `d${i % 20}/f${i}.txt`);
    writeFileSync(path, readFileSync(path, "utf8").replace(`f${i} line 3\n`, "changed\n").replace(`f${i} line 35\n`, "changed too\n"));
  }
  const big = readFileSync(join(root, "big.txt"), "utf8").split("\n");
  for (const n of BIG_EDITS) big[n - 1] = `edited ${n}`;
  writeFileSync(join(root, "big.txt"), big.join("\n"));
  const to = (await snapshots.take("bench"))!;
  const turnFiles = await snapshots.changes(from.id, to.id);
  const history = History.of([
    { role: "user", content: "edit" } as unknown as Entry,
    { role: "assistant", content: "done" } as unknown as Entry,
  ]);
  const code = [{ at: 2, id: to.id, skipped: [], entry: history.at(1)!, turn: { from: from.id, files: turnFiles } }];
  const id = "bench-thread";
  const thread = { title: "bench", runner: { traits: { ownConversation: null } } } as unknown as Thread;
  const actions = new CodeActions(
    snapshots,
    () => thread,
    () => ({ title: "bench", code, history }),
    () => {},
    () => {},
  );
  const reviews = new Reviews(new ReviewRecords(join(data, "review")), {
    codeOf: async () => ({ title: "bench", code, history }),
    snapshotsOf: () => snapshots,
    gitOf: () => localGit,
    keepUndo: (s, r, files) => actions.keepFilesUndo(s, r, files),
    written: () => {},
    unsaved: async () => [],
    dispatch: () => {},
    live: () => [id],
    thread: () => thread,
    load: () => {},
    tell: () => {},
    quickfix: () => {},
  });

  let listed = 0;
  const listing: number[] = [];
  for (let i = 0; i < 7; i++)
    listing.push(
      await timed(async () => {
        listed = (await reviews.hunks(id, null)).length;
      }),
    );
  figures.row(
    `hunks of a turn that changed ${CHANGED} files listed (${listed} hunks)`,
    `${median(listing).toFixed(1)} ms (median of 7)`,
    median(listing) < 100,
    "< 100 ms",
  );

  const undoing: number[] = [];
  for (let index = 1; index <= 9; index++) undoing.push(await timed(() => reviews.reject(id, "big.txt", index, null)));
  const back = readFileSync(join(root, "big.txt"), "utf8").split("\n");
  const undone =
    BIG_EDITS.slice(0, 9).every((n) => back[n - 1] === `big line ${n}`) && back[BIG_EDITS[9]! - 1] === `edited ${BIG_EDITS[9]}`;
  if (!undone) throw new Error("the undos did not leave big.txt as expected");
  figures.row(
    `one hunk of a ${BIG.toLocaleString("en-US")}-line file undone`,
    `${median(undoing).toFixed(1)} ms (median of 9)`,
    median(undoing) < 50,
    "< 50 ms",
  );
  figures.note(`of which the first, which reads the turn's diff and its two snapshots of the file: ${undoing[0]!.toFixed(1)} ms`);
  // The undo of the last undo puts hunk 9 back as the turn left it.
  await actions.undoRestore();
  if (readFileSync(join(root, "big.txt"), "utf8").split("\n")[BIG_EDITS[8]! - 1] !== `edited ${BIG_EDITS[8]}`)
    throw new Error(":Tine restore undo did not put the last undo back");
  // What no undo that ran git could go under here.
  const spawning: number[] = [];
  for (let i = 0; i < 5; i++) spawning.push(await timed(() => localGit(["--version"], { cwd: root })));
  figures.note(`one git process here: ${median(spawning).toFixed(1)} ms`);
} finally {
  rmSync(root, { recursive: true, force: true });
  rmSync(data, { recursive: true, force: true });
}

console.log("review (issue #34):");
for (const r of figures.rows) console.log(`  ${r}`);
if (figures.rows.some((r) => r.startsWith("FAIL"))) process.exitCode = 1;
