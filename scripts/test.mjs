// `npm test`: everything, on a fresh machine. Installs the npm packages if missing, fetches
// Neovim 0.10 and 0.12 (scripts/fetch-nvim.sh), builds the host, type-checks, then runs the unit
// tests (beside the code) and the integration tests (real Neovim, HTTP mock) on both versions.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { testNvims } from "./nvim.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const step = (title, cmd, args, env = process.env) => {
  console.log(`\n== ${title}`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: "inherit", env });
  if (r.status !== 0) {
    console.error(`\n${title} failed`);
    process.exit(r.status ?? 1);
  }
};

if (!existsSync(join(root, "node_modules/.package-lock.json"))) step("install npm packages", "npm", ["ci"]);
console.log("== Neovim under test");
const nvims = testNvims(root);
for (const n of nvims) console.log(`   ${n.version}  (${n.bin})`);
step("build", "node", ["scripts/build.mjs"]);
step("type-check", "npx", ["tsc", "--noEmit", "-p", "."]);

const files = [];
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (name.endsWith(".test.ts")) files.push(relative(root, path));
  }
};
walk(join(root, "node"));
walk(join(root, "test"));
const only = process.argv.slice(2);
step(
  "unit and integration tests",
  process.execPath,
  ["--import", "tsx", "--test", "--test-concurrency=2", "--test-timeout=120000", "--test-reporter=spec", ...(only.length ? only : files.sort())],
  { ...process.env, TINE_TEST_NVIMS: JSON.stringify(nvims) },
);
