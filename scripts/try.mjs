// `npm run try`: opens Neovim with tine loaded from this checkout. With ANTHROPIC_API_KEY set it
// talks to Anthropic; without, it starts the bundled local mock so anyone can try it offline.
// Installs what is missing first (npm packages, the host build, Neovim when none >= 0.10 exists).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, openSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { findNvim } from "./nvim.mjs";
import { demoEnv, demoFolder, tryInit } from "./try-init.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const run = (cmd, args) => {
  const r = spawnSync(cmd, args, { cwd: root, stdio: "inherit" });
  if (r.status !== 0) process.exit(r.status ?? 1);
};

// A plugin manager's install (scripts/install.mjs) keeps dist/ and no node_modules: it runs as
// built. A checkout without either installs everything first.
const lightInstall = !existsSync(join(root, "node_modules")) && existsSync(join(root, "dist/host.cjs"));
if (!lightInstall) {
  if (!existsSync(join(root, "node_modules"))) {
    console.log("First run: installing dependencies (npm ci, a few minutes)…");
    run("npm", ["ci"]);
  }
  run("node", ["scripts/build.mjs"]);
}
const nvim = findNvim(root);

let env = { ...process.env };
let demo = null;
// The offline demo writes only in its folder in the checkout (try-init.mjs demoFolder says what).
const folder = demoFolder(root);
if (!env.ANTHROPIC_API_KEY) {
  // Its errors go to a file, not the terminal: a process holding the terminal puts the terminal's
  // saved settings back when it exits, which left a running Neovim in line mode (keys echoed,
  // <C-c> killing it) when the demo server stopped.
  mkdirSync(folder.dir, { recursive: true });
  const log = openSync(folder.serverLog, "a");
  demo = spawn(process.execPath, [join(root, "dist/mock-demo.cjs")], { stdio: ["ignore", "pipe", log] });
  const url = await new Promise((resolve) => demo.stdout.once("data", (d) => resolve(String(d).trim())));
  env.ANTHROPIC_BASE_URL = url;
  // Not a key: the local mock accepts anything. Lives only in this Neovim's environment.
  env.ANTHROPIC_API_KEY = "offline-demo";
  env = demoEnv(root, env);
  console.log(`No ANTHROPIC_API_KEY: using the offline demo server at ${url}`);
}
const init = tryInit(root, demo ? folder.data : null);
const child = spawn(nvim, ["--cmd", init, "+Tine"], { stdio: "inherit", env });
child.on("exit", (code) => {
  demo?.kill();
  process.exit(code ?? 0);
});
