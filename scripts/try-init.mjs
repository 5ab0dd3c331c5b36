// What `npm run try` runs in Neovim before anything else (scripts/try.mjs): tine from this
// checkout on the runtimepath, its help tagged (a plugin manager does that on install; the
// checkout has no other), and setup() with the demo's options; and where the offline demo keeps
// what it writes.
import { join } from "node:path";

/**
 * The offline demo's folder, inside the checkout (`.cache/try/`, ignored by git): its threads
 * (`data/`), its Neovim's state (`state/`: tine's host log is `state/nvim/tine.log`, and none of
 * the user's history or undo files), and the demo server's own log (`server.log`).
 */
export function demoFolder(root) {
  const dir = join(root, ".cache", "try");
  return { dir, data: join(dir, "data"), state: join(dir, "state"), serverLog: join(dir, "server.log") };
}

/** The environment of the offline demo's Neovim: `env` with its state (tine's log among it) in the demo's folder. */
export function demoEnv(root, env) {
  return { ...env, XDG_STATE_HOME: demoFolder(root).state };
}

/**
 * The `--cmd` line for Neovim. `dataDir`: where the offline demo keeps its threads (null: the
 * user's own data folder, with a real key).
 */
export function tryInit(root, dataDir) {
  const data = dataDir ? `data_dir = ${JSON.stringify(dataDir)}, ` : "";
  // silent!: a checkout that cannot be written still starts (without :help tine).
  return `set rtp^=${root} | silent! helptags ${root}/doc | runtime plugin/tine.lua | lua require("tine").setup({ ${data}retry_delay_ms = 200 })`;
}
