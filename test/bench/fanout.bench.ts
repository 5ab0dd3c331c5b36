/**
 * Fork ×N (issue 32) on a 10,000-file git repository, in real Neovim: the time from
 * `require("tine").fanout(id, prompt, { n = 8 })` to all 8 forks made (the call returned) and
 * each fork's first request received by the mock, target ≤ 2 s. The first fan-out of a session
 * and later ones (each a new snapshot of the source's files, and 8 worktrees made at once) are
 * timed apart; the forks of one fan-out stay (they wait for the choice), so later fan-outs run
 * beside them. The forks ask the model while their worktrees are written; each next fan-out starts
 * once the last one's are (the time that took is printed too).
 *
 * Then `:Tine compare` of a fan-out of 8 forks, each done with files changed: the time from the
 * command to the view's 8 fork lines drawn (and the screen redrawn), measured inside Neovim,
 * target ≤ 100 ms; and of that, compare()'s answer from the host alone.
 */

import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SnapshotRepo } from "../../node/snapshot/repo.ts";
import type { RunGit } from "../../node/tools/git.ts";
import { localGit } from "../../node/tools/local-git.ts";
import { MARKER, makeWorktree } from "../../node/worktree/worktree.ts";
import { firstThread } from "../helpers/code-session.ts";
import { nvims, type Session, withNeovim } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";
import type { RecordedRequest } from "../mock-anthropic/server.ts";
import { bigProject, FILES, Figures, median } from "./code-kit.ts";

const N = 8;
const ROUNDS = 3;
const figures = new Figures();

type Round = { returned: number; requests: number; unattended: boolean; worktrees: number };
/** One `:Tine compare`: ms to the view drawn, its fork lines; ms of compare() alone. */
type Shown = { drawn: number; forkLines: number; host: number; one: number };
const VIEWS = 5;
/** Each fan-out fork of the compared fan-out changes 2 files and makes one. */
const CHANGE = "sed -i '1s/.*/changed/' d0/f0.txt d1/f1.txt && printf 'new\\n' > new.txt";

const root = bigProject("tine-bench-fanout-");
try {
  const rounds: Round[] = [];
  const shown: Shown[] = [];
  await withNeovim(
    nvims().at(-1)!,
    async (s) => {
      const id = await firstThread(s);
      // When each fork's first request arrived (the fallback runs as it arrives).
      const arrivals: number[] = [];
      s.mock.otherwise(() => {
        arrivals.push(performance.now());
        return textReply("ok");
      });
      for (let r = 0; r < ROUNDS; r++) {
        arrivals.length = 0;
        const t0 = performance.now();
        const ids = await s.lua<string[]>(`local id, p = ...; return require("tine").fanout(id, p, { n = ${N} })`, id, `round ${r}`);
        const returned = performance.now() - t0;
        if (ids.length !== N) throw new Error(`${ids.length} of ${N} forks made: ${JSON.stringify(await s.notifications())}`);
        await s
          .until(`${N} first requests`, async () => arrivals.length >= N, 60_000)
          .catch(async (e: Error) => {
            throw new Error(`${e.message} (${arrivals.length} came): ${JSON.stringify(await s.notifications())}`);
          });
        const requests = Math.max(...arrivals) - t0;
        const forks = await Promise.all(ids.map((f) => s.thread(f)));
        const unattended = forks.every((f) => f.unattended);
        // The forks ask the model while their worktrees are written (one after another): the next
        // fan-out starts once they are, as a user's next one would from a quiet machine.
        const written = () => forks.every((f) => existsSync(join(String(f.cwd), ".git", MARKER)));
        await s.until("the worktrees written", async () => written(), 120_000);
        const worktrees = performance.now() - t0;
        rounds.push({ returned, requests, unattended, worktrees });
        process.stderr.write(
          `fanout: round ${r}: made ${returned.toFixed(0)} ms, requests ${requests.toFixed(0)} ms, worktrees ${worktrees.toFixed(0)} ms\n`,
        );
        await s.until("all forks idle", async () => (await s.threads()).every((t) => t.status === "idle"), 60_000);
      }
      shown.push(...(await compareView(s, id)));
    },
    { cwd: root, setup: { tools_needing_approval: [] } },
  );
  const first = rounds[0]!;
  figures.note(
    `first fan-out of the session (after the store's first snapshot of the project, which it may wait for): ${N} forks made in ${first.returned.toFixed(0)} ms, their first requests in ${first.requests.toFixed(0)} ms (${(first.requests / median(rounds.slice(1).map((r) => r.requests))).toFixed(1)}× the later ones' median)`,
  );
  for (const [i, r] of rounds.entries())
    figures.row(
      `fan-out ${i + 1}: ${N} forks made (${r.returned.toFixed(0)} ms), all ${N} first requests received`,
      `${r.requests.toFixed(0)} ms${r.unattended ? ", unattended" : ", attended (no sandbox)"}`,
      r.requests <= 2000,
      "≤ 2 s",
    );
  const later = median(rounds.map((r) => r.requests));
  figures.note(`median of ${rounds.length}: ${later.toFixed(0)} ms`);
  figures.note(
    `all ${N} worktrees written meanwhile (a fork's tools wait for its own): ${rounds.map((r) => `${r.worktrees.toFixed(0)} ms`).join(", ")}`,
  );
  for (const [i, v] of shown.entries())
    figures.row(
      `:Tine compare ${i + 1}: ${N} forks drawn (${v.forkLines} fork lines; compare() alone ${v.host.toFixed(1)} ms)`,
      `${v.drawn.toFixed(1)} ms`,
      v.forkLines === N && v.drawn <= 100,
      "≤ 100 ms",
    );
  figures.note(`:Tine compare median of ${shown.length}: ${median(shown.map((v) => v.drawn)).toFixed(1)} ms`);
  // Each fork's snapshot goes through its own index (lanes.ts), side by side; a done fork's is kept while its worktree is quiet.
  figures.note(
    `compare() of ${N} forks, median ${median(shown.map((v) => v.host)).toFixed(1)} ms; of one fork, median ${median(shown.map((v) => v.one)).toFixed(1)} ms` +
      ` (8 forks / one: ${(median(shown.map((v) => v.host)) / median(shown.map((v) => v.one))).toFixed(1)}×)`,
  );
  await breakdown();
} finally {
  rmSync(root, { recursive: true, force: true });
}

/**
 * A fan-out of N forks that each change files, once all are done: `:Tine compare` opened VIEWS
 * times from the source, each timed inside Neovim from the command to its lines set and the
 * screen redrawn; then compare() alone, as the view asks for it.
 */
async function compareView(s: Session, id: string): Promise<Shown[]> {
  s.mock.otherwise((req: RecordedRequest) => {
    const last = req.body.messages.at(-1)!;
    const answered = Array.isArray(last.content) && last.content.some((b) => b.type === "tool_result");
    return answered ? textReply("Done.") : response([{ toolUse: { id: "b-change", name: "bash_command", input: { command: CHANGE } } }]);
  });
  const ids = await s.lua<string[]>(`local id = ...; return require("tine").fanout(id, "change files", { n = ${N} })`, id);
  await s.until(
    `all ${N} forks done with their files`,
    async () => {
      const forks = await s.lua<{ state: string; files: string[] }[]>(`return require("tine").compare(...)`, id);
      return forks.length === N && forks.every((f) => f.state === "done" && f.files.length === 3);
    },
    120_000,
  );
  const views: Shown[] = [];
  for (let i = 0; i < VIEWS; i++) {
    const [drawn, forkLines, host, one] = await s.lua<[number, number, number, number]>(
      `
      local t0 = vim.uv.hrtime()
      vim.cmd("Tine compare")
      vim.cmd("redraw")
      local drawn = (vim.uv.hrtime() - t0) / 1e6
      local forks = 0
      for _, l in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do
        if l:find("^ [^ ]+ #%d+ ") then forks = forks + 1 end
      end
      vim.cmd("close")
      local id, fork = ...
      t0 = vim.uv.hrtime()
      require("tine").compare(id)
      local host = (vim.uv.hrtime() - t0) / 1e6
      t0 = vim.uv.hrtime()
      require("tine").compare({ fork })
      return { drawn, forks, host, (vim.uv.hrtime() - t0) / 1e6 }`,
      id,
      ids[0]!,
    );
    views.push({ drawn, forkLines, host, one });
    process.stderr.write(
      `fanout: :Tine compare ${i}: ${drawn.toFixed(1)} ms (${forkLines} fork lines), compare() ${host.toFixed(1)} ms, of one fork ${one.toFixed(1)} ms\n`,
    );
  }
  return views;
}

/**
 * Where the time goes, outside Neovim: the source's snapshot, then one worktree made alone and
 * N made at once (as a fan-out makes them: their checkouts share the store's lane), with the
 * time each git command took, summed by command.
 */
async function breakdown(): Promise<void> {
  const data = mkdtempSync(join(tmpdir(), "tine-bench-fanout-data-"));
  const spent = new Map<string, { ms: number; runs: number }>();
  const timedGit: RunGit = async (args, run) => {
    const t0 = performance.now();
    try {
      return await localGit(args, run);
    } finally {
      const name = args.find((a, i) => !a.startsWith("-") && args[i - 1] !== "-c") ?? "?";
      const was = spent.get(name) ?? { ms: 0, runs: 0 };
      spent.set(name, { ms: was.ms + performance.now() - t0, runs: was.runs + 1 });
    }
  };
  const byCommand = () =>
    [...spent.entries()]
      .sort((a, b) => b[1].ms - a[1].ms)
      .map(([name, { ms, runs }]) => `${name} ${ms.toFixed(0)} ms/${runs}`)
      .join(", ");
  try {
    let t0 = performance.now();
    const repo = await SnapshotRepo.open(root, data, 2 * 1024 * 1024, timedGit);
    await repo.take("bench");
    figures.note(
      `where the time goes: the store's first snapshot of the project (it reads every file) ${(performance.now() - t0).toFixed(0)} ms`,
    );
    spent.clear();
    t0 = performance.now();
    const base = await repo.take("bench");
    figures.note(`  the source's snapshot a fan-out takes (store primed) ${(performance.now() - t0).toFixed(0)} ms`);
    spent.clear();
    t0 = performance.now();
    await makeWorktree(repo, base.id, join(data, "one"), "bench", timedGit);
    figures.note(`  one worktree alone: ${(performance.now() - t0).toFixed(0)} ms (git: ${byCommand()})`);
    spent.clear();
    t0 = performance.now();
    await Promise.all(Array.from({ length: N }, (_, i) => makeWorktree(repo, base.id, join(data, `wt${i}`), "bench", timedGit)));
    figures.note(`  ${N} worktrees at once: ${(performance.now() - t0).toFixed(0)} ms (git, summed: ${byCommand()})`);
  } finally {
    rmSync(data, { recursive: true, force: true });
  }
}

console.log(`fan-out benchmark (${FILES.toLocaleString("en-US")}-file git repository, n = ${N})`);
for (const r of figures.rows) console.log(`  ${r}`);
