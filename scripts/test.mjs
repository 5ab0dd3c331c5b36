// `npm test`: everything, on a fresh machine. Installs the npm packages if missing, fetches
// Neovim 0.10 and 0.12 (scripts/fetch-nvim.sh), checks the format and lint (Biome, StyLua), builds the host, type-checks, then runs the unit
// tests (beside the code) and the integration tests (real Neovim, HTTP mock) on both versions,
// all on vitest (vitest.config.ts), ending with the line `N passed, M failed`; then fails if the
// run left files in the checkout.
import { spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
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

// Install when node_modules is missing or older than the lock file (a pull that changed packages).
const installed = join(root, "node_modules/.package-lock.json");
if (!existsSync(installed) || statSync(installed).mtimeMs < statSync(join(root, "package-lock.json")).mtimeMs) {
  step("install npm packages", "npm", ["ci"]);
}
// The sandbox's tests (node/sandbox/) run the real bubblewrap: install it where missing when we
// may (CI runs as root on Debian with a fresh clone), else say which package the tests need.
const onPath = (cmd) => spawnSync("sh", ["-c", `command -v ${cmd}`], { stdio: "ignore" }).status === 0;
if (!onPath("bwrap")) {
  if (process.getuid?.() === 0 && onPath("apt-get")) {
    console.log("== bubblewrap (bwrap) is missing: installing the bubblewrap package with apt-get for the sandbox's tests");
    spawnSync("apt-get", ["update", "-qq"], { stdio: "inherit" });
    step("install bubblewrap", "apt-get", ["install", "-y", "-qq", "bubblewrap"]);
  } else {
    console.error("The sandbox's tests need bubblewrap (bwrap): install the bubblewrap package (apt install bubblewrap) and run again.");
    process.exit(1);
  }
}
console.log("== Neovim under test");
const nvims = testNvims(root);
for (const n of nvims) console.log(`   ${n.version}  (${n.bin})`);
// Format and lint before anything runs: a difference fails with the command that fixes it.
step("format and lint (npm run lint; `npm run format` fixes the format)", "npm", ["run", "-s", "lint"]);
step("build", "node", ["scripts/build.mjs"]);
step("type-check", "npx", ["tsc", "--noEmit", "-p", "."]);

// Tests write only under temporary folders: a file a run leaves in the checkout (untracked and not
// ignored) fails the run, named, so it is never committed by accident (a stray transcript was).
const untracked = () => {
  const r = spawnSync("git", ["status", "--porcelain", "-z", "--untracked-files=all"], { cwd: root, encoding: "utf8" });
  if (r.status !== 0) return null; // not a git checkout: nothing to compare
  return new Set(
    r.stdout
      .split("\0")
      .filter((e) => e.startsWith("?? "))
      .map((e) => e.slice(3)),
  );
};
const untrackedBefore = untracked();

// Extra arguments pass through to vitest: `npm test -- fork` runs the files matching "fork",
// `npm test -- -t "@fork while"` the tests whose names match.
step(
  "unit and integration tests (vitest)",
  process.execPath,
  [join(root, "node_modules/vitest/vitest.mjs"), "run", ...process.argv.slice(2)],
  {
    ...process.env,
    TINE_TEST_NVIMS: JSON.stringify(nvims),
  },
);

const left = untrackedBefore && [...(untracked() ?? [])].filter((f) => !untrackedBefore.has(f));
if (left?.length) {
  console.error(`\nThe tests left ${left.length} file(s) in the checkout (write them under a temporary folder):`);
  for (const f of left.slice(0, 20)) console.error(`  ${f}`);
  process.exit(1);
}
