// `node scripts/install.mjs`: the one command that installs tine for use, what a plugin manager's
// build step runs (README, Install) on install and on every update. Neovim runs only the bundles
// in dist/ (scripts/build.mjs puts every package they use inside them), so this installs only what
// building needs (the runtime packages and esbuild: `npm ci --omit=dev`, no test tools), builds,
// then removes node_modules again: the plugin folder keeps the sources and dist/ (about 15 MB,
// checked by test/integration/install.test.ts). `npm ci` (everything) is for working on tine.
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const run = (cmd, args) => {
  const r = spawnSync(cmd, args, { cwd: root, stdio: "inherit" });
  if (r.error) console.error(`tine: could not run ${cmd}: ${r.error.message}`);
  if (r.status !== 0) process.exit(r.status ?? 1);
};

run("npm", ["ci", "--omit=dev", "--no-audit", "--no-fund"]);
run(process.execPath, [join(root, "scripts/build.mjs")]);
rmSync(join(root, "node_modules"), { recursive: true, force: true });
console.log(`tine: built ${join(root, "dist")}`);
