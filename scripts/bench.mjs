// `npm run bench`: the benchmarks under test/bench, on the newest Neovim under test. They stay
// scripts rather than vitest `bench` files: they print figures of their own (CPU per delta, render
// latency, heap per fork, bytes written) that vitest's ops/s table cannot show. esbuild turns
// each into one ES module beside the host build, so no TypeScript loader is needed at run time.
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { testNvims } from "./nvim.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const nvims = testNvims(root);
spawnSync("node", ["scripts/build.mjs"], { cwd: root, stdio: "inherit" });
const env = { ...process.env, TINE_TEST_NVIMS: JSON.stringify(nvims.slice(-1)) };
const only = process.argv.slice(2);
for (const name of [
  "stream",
  "fork",
  "store",
  "scale",
  "context",
  "complete",
  "snapshot",
  "worktree",
  "sandbox",
  "unattended",
  "fanout",
  "acp-updates",
  "review",
  "acp-fork",
].filter((n) => !only.length || only.includes(n))) {
  // dist/bench/ is two levels below the root, like test/bench/, so paths made from
  // import.meta.dirname in the helpers still point at the checkout.
  const outfile = join(root, "dist/bench", `${name}.bench.mjs`);
  await build({
    entryPoints: [join(root, "test/bench", `${name}.bench.ts`)],
    outfile,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    packages: "external",
    logLevel: "warning",
  });
  const r = spawnSync(process.execPath, ["--expose-gc", outfile], { cwd: root, stdio: "inherit", env });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
