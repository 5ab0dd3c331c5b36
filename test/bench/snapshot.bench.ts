/**
 * Code snapshots of a 10,000-file git repository (issue 19), each figure with its target and
 * PASS/FAIL: a snapshot when nothing changed (< 100 ms) and after a 100-file change (< 300 ms),
 * the disk a snapshot that changes one file adds (about that file's size), the first tools'
 * snapshot in a store primed at a thread's first send (< 100 ms: it only checks), and a turn's
 * time-to-first-delta in real Neovim with snapshots on and off, sent while the previous turn's
 * end snapshot is being taken (as a ratio: ≈ 1, the snapshot is never on the stream's path).
 */

import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SnapshotRepo } from "../../node/snapshot/repo.ts";
import { localGit } from "../../node/tools/local-git.ts";
import { typeAndSend } from "../helpers/chat-driver.ts";
import { gitIn } from "../helpers/git-project.ts";
import { nvims, withNeovim } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";
import { bigProject as bigProjectIn, FILES, Figures, median } from "./code-kit.ts";

const figures = new Figures();
const row = figures.row.bind(figures);
const bigProject = () => bigProjectIn("tine-bench-snap-");

async function timed(f: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await f();
  return performance.now() - t0;
}

const root = bigProject();
const data = mkdtempSync(join(tmpdir(), "tine-bench-data-"));
try {
  const repo = await SnapshotRepo.open(root, data, 2 * 1024 * 1024, localGit);
  const cold = await timed(() => repo.take("bench"));
  figures.note(`first snapshot of ${FILES.toLocaleString("en-US")} files: ${cold.toFixed(0)} ms`);

  const unchanged: number[] = [];
  for (let i = 0; i < 7; i++) unchanged.push(await timed(() => repo.take("bench")));
  row("snapshot, nothing changed", `${median(unchanged).toFixed(1)} ms (median of 7)`, median(unchanged) < 100, "< 100 ms");

  const changed: number[] = [];
  for (let round = 0; round < 5; round++) {
    for (let i = 0; i < 100; i++) writeFileSync(join(root, `d${i}/f${i + 100 * round}.txt`), `changed in round ${round}\n`);
    changed.push(await timed(() => repo.take("bench")));
  }
  row("snapshot after a 100-file change", `${median(changed).toFixed(1)} ms (median of 5)`, median(changed) < 300, "< 300 ms");

  // Incompressible bytes, so the figure is the file's and not zlib's.
  const size = 64 * 1024;
  const before = repo.size();
  writeFileSync(join(root, "d1/f1.txt"), randomBytes(size));
  await repo.take("bench");
  const added = repo.size() - before;
  row(
    "disk added by a snapshot changing one file",
    `${(added / 1024).toFixed(1)} KiB for a ${size / 1024} KiB file`,
    added < size * 1.5 + 16 * 1024,
    "≈ the file's size (< 1.5× + a 16 KiB tree)",
  );
  gitIn(root, "checkout", "--", ".");

  // A new store, primed as a thread's first send does: the first tools' snapshot only checks.
  const fresh = mkdtempSync(join(tmpdir(), "tine-bench-data-"));
  try {
    const primed = await SnapshotRepo.open(root, fresh, 2 * 1024 * 1024, localGit);
    await primed.prime();
    const firstTools = await timed(() => primed.take("bench"));
    row("first tools' snapshot once primed at the first send", `${firstTools.toFixed(1)} ms`, firstTools < 100, "< 100 ms");
  } finally {
    rmSync(fresh, { recursive: true, force: true });
  }
} finally {
  rmSync(data, { recursive: true, force: true });
}

/** Median time from send to the turn's first delta on screen, each turn sent as the last one ends (its end snapshot under way). */
async function firstDelta(snapshots: boolean): Promise<number> {
  const nv = nvims().at(-1)!;
  const times: number[] = [];
  const project = bigProject();
  try {
    await withNeovim(
      nv,
      async (s) => {
        await s.cmd("Tine");
        const id = (await s.threads())[0]!.id;
        for (let turn = 0; turn < 6; turn++) {
          s.mock.reply(
            response([
              { text: `first-delta-${turn} and more`, chunk: 14 },
              { toolUse: { id: `b${turn}`, name: "bash_command", input: { command: `echo ${turn} > d${turn}/f${turn}.txt` } } },
            ]),
            textReply(`turn ${turn} done`),
          );
          const t0 = performance.now();
          await typeAndSend(s, `turn ${turn}`);
          await s.waitForDisplay(id, `first-delta-${turn}`);
          times.push(performance.now() - t0);
          // The first turn's snapshot reads every file (the index is new): waited for longer.
          await s.until("the turn's end", async () => (await s.display(id)).includes(`turn ${turn} done`), 60_000);
          await s.until("idle", async () => (await s.thread(id)).status === "idle", 60_000);
        }
      },
      { cwd: project, setup: { snapshots, tools_needing_approval: [] } },
    );
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
  return median(times.slice(1));
}

const on = await firstDelta(true);
const off = await firstDelta(false);
row(
  "time to a turn's first delta, snapshots on / off",
  `${(on / off).toFixed(2)} (${on.toFixed(0)} ms / ${off.toFixed(0)} ms)`,
  on / off < 1.5,
  "< 1.5: not on the stream's path",
);
rmSync(root, { recursive: true, force: true });

console.log(`snapshot benchmark (${FILES.toLocaleString("en-US")}-file git repository)`);
for (const r of figures.rows) console.log(`  ${r}`);
