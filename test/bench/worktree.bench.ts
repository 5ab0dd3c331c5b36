/**
 * Worktree forks of a 10,000-file git repository (issue 19), in real Neovim: the time from
 * `fork(id, "", { worktree = true })` to a fork ready for input (its worktree made, every file
 * written, its buffers open), target < 2 s; the first one with tine's store still empty (its first
 * snapshot reads every file) and later ones, and the time a first snapshot of the new worktree
 * takes (its index comes primed from the checkout).
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SnapshotRepo } from "../../node/snapshot/repo.ts";
import { localGit } from "../../node/tools/local-git.ts";
import { makeWorktree } from "../../node/worktree/worktree.ts";
import { firstThread } from "../helpers/code-session.ts";
import { nvims, withNeovim } from "../helpers/neovim.ts";
import { bigProject as bigProjectIn, FILES, Figures, median } from "./code-kit.ts";

const figures = new Figures();
const row = figures.row.bind(figures);
const bigProject = () => bigProjectIn("tine-bench-wt-");

const root = bigProject();
try {
  const times: number[] = [];
  await withNeovim(
    nvims().at(-1)!,
    async (s) => {
      const id = await firstThread(s);
      for (let i = 0; i < 5; i++) {
        const t0 = performance.now();
        // fork() returns once the fork's buffers are open: ready for input.
        await s.lua(`require("tine").fork(..., "", { worktree = true })`, id);
        times.push(performance.now() - t0);
        await s.cmd("wincmd p");
      }
    },
    { cwd: root, setup: { tools_needing_approval: [] } },
  );
  // Not a target: the store's very first snapshot of the project reads every file once.
  figures.note(`first worktree fork, tine's store empty: ${times[0]!.toFixed(0)} ms`);
  const later = median(times.slice(1));
  row("worktree fork, ready for input", `${later.toFixed(0)} ms (median of ${times.length - 1})`, later < 2000, "< 2 s");

  // The worktree's first snapshot (before its first tool) reads no file: the checkout primed its index.
  const data = mkdtempSync(join(tmpdir(), "tine-bench-wt-data-"));
  try {
    const repo = await SnapshotRepo.open(root, data, 2 * 1024 * 1024, localGit);
    const base = await repo.take("bench");
    const view = await makeWorktree(repo, base.id, join(data, "wt"), "bench");
    const t0 = performance.now();
    await view.take("bench");
    const first = performance.now() - t0;
    row("a new worktree's first snapshot", `${first.toFixed(0)} ms`, first < 300, "< 300 ms");
  } finally {
    rmSync(data, { recursive: true, force: true });
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}

console.log(`worktree benchmark (${FILES.toLocaleString("en-US")}-file git repository)`);
for (const r of figures.rows) console.log(`  ${r}`);
