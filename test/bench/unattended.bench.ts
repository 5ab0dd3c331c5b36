/**
 * Unattended forks at work (issue 31): ten background forks made with
 * require('tine').fork(id, prompt, { unattended = true, background = true }), each in a git
 * worktree of its own of a real repository of a few hundred files, whose mock replies call
 * bash_command CALLS times with real work (ls -R and git status over the worktree, about a second
 * each), run by bubblewrap with no approval. Meanwhile, as scale.bench.ts's item 4 does, the
 * longest hold of Neovim by require('tine').threads() or :Tine threads (≤ 20 ms, the scale target).
 * Also printed: how many bash_commands ran in the sandbox (each says its pid, 1 only as the
 * sandbox's init), that none waited for approval, and the total time.
 * TINE_BENCH_PROFILE=<dir> writes the host's CPU profile of the forks' work there and prints its top functions.
 */
import { rmSync } from "node:fs";
import { nvims } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";
import type { RecordedRequest } from "../mock-anthropic/server.ts";
import { bigProject, median } from "./code-kit.ts";
import { ms, note, owe, printFigures, profiled, record, seed, session, until } from "./scale-kit.ts";
import { CALLS_PROBE, type CallsProbeResult } from "./scale-probes.ts";

const FORKS = 10;
const CALLS = 3;
const FILES = 300;
/** What each bash_command runs (about a second of work here), then its time and whether it ran as the sandbox's init. */
const WORK = "for i in $(seq 150); do ls -R . >/dev/null; git status >/dev/null; done";
const COMMAND = `t0=$(date +%s%N); ${WORK}; echo "exit $? took $(( ($(date +%s%N) - t0) / 1000000 )) ms pid $$"`;
/** In each fork's prompt: a request holding it is a fork's (its parent's never does). */
const PROMPT = "unattended bench: run the commands";

const nv = nvims().at(-1)!;
const started = performance.now();
const progress = (what: string) => process.stderr.write(`unattended: ${what} (${((performance.now() - started) / 1000).toFixed(0)} s)\n`);

const toolResults = (req: RecordedRequest) =>
  req.body.messages.flatMap((m) =>
    typeof m.content === "string" || !m.content ? [] : m.content.flatMap((b) => (b.type === "tool_result" ? [b] : [])),
  );
const resultText = (content: unknown): string =>
  typeof content === "string" ? content : Array.isArray(content) ? content.map((c: { text?: string }) => c.text ?? "").join("") : "";

owe(
  "u",
  `longest hold of Neovim by require('tine').threads() or :Tine threads while ${FORKS} unattended background forks run ${CALLS} bash_commands each in the sandbox`,
  "≤ 20 ms",
);
owe("n", `bash_commands run in the sandbox, none waiting for approval`, `${FORKS * CALLS}, 0 waiting`);
// Not under /tmp: the sandbox has a private /tmp, which would hide the repository a worktree's git needs.
const project = bigProject("tine-bench-unattended-", FILES, "/var/tmp");
try {
  progress(`${FORKS} unattended forks, ${FILES} files`);
  await session(nv, ["u", "n"], 240_000, { env: { TINE_BENCH: "1" }, cwd: project }, async (s, ctx) => {
    await ctx.startHost();
    const source = await seed(s, 10);
    // A fork's request: its first is held until all are streaming; then bash_command until it has
    // CALLS results; then it ends its turn. Anything else (its parent told of it) gets a short reply.
    let firsts = 0;
    let calls = 0;
    s.mock.otherwise((req) => {
      if (!JSON.stringify(req.body.messages).includes(PROMPT)) return textReply("ok");
      const done = toolResults(req).length;
      if (done >= CALLS) return textReply("done");
      const call = { toolUse: { id: `toolu_bench_${calls++}`, name: "bash_command", input: { command: COMMAND } } };
      return response(done === 0 ? [{ hold: `first${firsts++}` }, call] : [call]);
    });
    const ids: string[] = [];
    for (let i = 0; i < FORKS; i++)
      ids.push(
        await s.lua<string>(
          "local id, prompt = ...; return require('tine').fork(id, prompt, { unattended = true, background = true })",
          source.id,
          `${PROMPT} ${i}`,
        ),
      );
    await Promise.all(Array.from({ length: FORKS }, (_, i) => s.mock.reached(`first${i}`)));
    const forks = (await s.threads()).filter((t) => ids.includes(t.id));
    const attended = forks.filter((t) => !t.unattended).length;
    // Tools running are "waiting" too: the probe goes on while any thread streams or runs its tools.
    await s.lua(CALLS_PROBE, 20, 180_000, ["streaming", "waiting"]);
    const t0 = performance.now();
    await profiled(s, "unattended-forks", async () => {
      for (let i = 0; i < FORKS; i++) s.mock.release(`first${i}`);
      await until("the forks to finish", async () => s.lua<boolean>("return _G.tine_bench_calls.done ~= nil"), 190_000);
    });
    const total = performance.now() - t0;
    const p = await s.lua<CallsProbeResult>("return _G.tine_bench_calls");
    const statuses = await s.lua<string[]>(
      "local ids = ...; local out = {}; for _, t in ipairs(require('tine').threads()) do if vim.tbl_contains(ids, t.id) then out[#out + 1] = t.status end end; return out",
      ids,
    );
    // Every command's result, from the requests that carried it back (the forks' last requests hold them all).
    const results = new Map<string, string>();
    for (const req of s.mock.requests) for (const r of toolResults(req)) results.set(r.tool_use_id, resultText(r.content));
    const sandboxed = [...results.values()].filter((t) => /exit 0 took \d+ ms pid 1$/m.test(t));
    const took = sandboxed.map((t) => Number(/took (\d+) ms/.exec(t)![1]));
    const asked = (await s.notifications()).filter((n) => /approval/.test(n.msg)).length;
    note(
      `statuses threads() gave during the run: ${JSON.stringify(p.seen)}; the forks still listed at the end: ${statuses.join(", ") || "none"}`,
    );
    note(`forks threads() marked unattended: ${forks.length - attended} of ${FORKS}`);
    for (const t of results.values())
      if (!sandboxed.includes(t)) note(`a command not run as the sandbox's init, or failed: ${t.slice(0, 300)}`);
    if (p.done !== "drained") {
      record("u", p.done === "timeout" ? "did not finish in 180 s" : `failed: ${p.error}`, false);
    } else {
      record(
        "u",
        `threads() ${ms(p.max_call)}, :Tine threads ${ms(p.max_list)} (${p.calls} threads() and ${p.lists} :Tine threads in ` +
          `${(p.ms / 1000).toFixed(1)} s; threads() mean ${ms(p.sum / p.calls)}; longest other hold of the main loop ${ms(p.max_late)}; ` +
          `current(), which waits for the host's answer, up to ${ms(p.max_wait)})`,
        Math.max(p.max_call, p.max_list) <= 20,
      );
    }
    // A fork's last request carries all its results back (its turn then ends, and a background fork reports and goes).
    const finished = s.mock.requests.filter(
      (r) => toolResults(r).length === CALLS && JSON.stringify(r.body.messages).includes(PROMPT),
    ).length;
    const stillWorking = statuses.filter((st) => st === "streaming" || st === "waiting").length;
    record(
      "n",
      `${sandboxed.length} of ${results.size} commands ran in the sandbox (pid 1, exit 0; each took ${took.length ? `median ${ms(median(took))}, ${Math.min(...took)}–${Math.max(...took)} ms` : "-"}); ` +
        `${asked} approval notices; ${finished} of ${FORKS} forks ended their turn; total ${(total / 1000).toFixed(1)} s from the first replies' release`,
      sandboxed.length === FORKS * CALLS &&
        results.size === FORKS * CALLS &&
        asked === 0 &&
        attended === 0 &&
        finished === FORKS &&
        stillWorking === 0,
    );
  });
} finally {
  rmSync(project, { recursive: true, force: true });
}
printFigures(`unattended forks benchmark (${nv.version}; ${((performance.now() - started) / 1000).toFixed(0)} s)`);
