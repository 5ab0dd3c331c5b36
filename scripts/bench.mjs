// `npm run bench`: the benchmarks under test/bench, on the newest Neovim under test.
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { testNvims } from "./nvim.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const nvims = testNvims(root);
spawnSync("node", ["scripts/build.mjs"], { cwd: root, stdio: "inherit" });
const env = { ...process.env, TINE_TEST_NVIMS: JSON.stringify(nvims.slice(-1)) };
for (const bench of ["test/bench/stream.bench.ts", "test/bench/fork.bench.ts"]) {
  const r = spawnSync(process.execPath, ["--expose-gc", "--import", "tsx", bench], { cwd: root, stdio: "inherit", env });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
