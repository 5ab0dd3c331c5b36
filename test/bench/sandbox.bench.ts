/**
 * A bash_command in the sandbox (issue 31): the median overhead of running `true` and `echo`
 * through bubblewrap over the same command run by the local environment, in the same git
 * worktree, with PASS/FAIL against ≤ 15 ms. Runs alternate sandboxed and unsandboxed, so load
 * on the machine weighs on both alike.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openSandbox } from "../../node/sandbox/sandbox-environment.ts";
import type { Environment } from "../../node/tools/environment.ts";
import { localEnvironment } from "../../node/tools/local-environment.ts";
import { Figures, median } from "./code-kit.ts";

const RUNS = 41;
const figures = new Figures();
const base = mkdtempSync("/var/tmp/tine-bench-sandbox-");
try {
  const repo = join(base, "repo");
  const wt = join(base, "wt");
  mkdirSync(repo);
  const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { cwd: repo });
  git("init", "-q", "-b", "main");
  writeFileSync(join(repo, "a.txt"), "a\n");
  git("add", "a.txt");
  git("commit", "-qm", "first");
  git("worktree", "add", "-q", "-b", "fork", wt);
  const opened = openSandbox({ root: wt, dataDir: join(base, "data") });
  if (!opened.ok) throw new Error(`no sandbox here: ${opened.reason} (${opened.fix})`);
  const plain = localEnvironment(wt);
  const timed = async (env: Environment, command: string) => {
    const t0 = performance.now();
    const r = await env.runCommand(command, new AbortController().signal);
    if (r.end.type !== "exited" || r.end.code !== 0) throw new Error(`${command} failed: ${r.output}`);
    return performance.now() - t0;
  };
  for (const command of ["true", "echo hello"]) {
    const inside: number[] = [];
    const outside: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      outside.push(await timed(plain, command));
      inside.push(await timed(opened.environment, command));
    }
    const overhead = median(inside) - median(outside);
    figures.note(
      `\`${command}\`: ${median(inside).toFixed(1)} ms sandboxed, ${median(outside).toFixed(1)} ms unsandboxed (medians of ${RUNS})`,
    );
    figures.row(`sandbox overhead of a bash_command \`${command}\``, `${overhead.toFixed(1)} ms`, overhead <= 15, "≤ 15 ms");
  }
} finally {
  rmSync(base, { recursive: true, force: true });
}
console.log("sandbox benchmark (bubblewrap, a git worktree)");
for (const r of figures.rows) console.log(`  ${r}`);
