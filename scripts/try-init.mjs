// What `npm run try` runs in Neovim before anything else (scripts/try.mjs): tine from this
// checkout on the runtimepath, its help tagged in a copy in the demo's folder (a plugin manager
// tags on install; the checkout has no tags, and the demo writes nothing in it), and setup() with the demo's options; and where the offline demo keeps
// what it writes.
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";

/**
 * The offline demo's folder, inside the checkout (`.cache/try/`, ignored by git): its threads
 * (`data/`), its Neovim's state (`state/`: tine's host log is `state/nvim/tine.log`, and none of
 * the user's history or undo files), the demo server's own log (`server.log`), the tagged copy of
 * the help (`help/doc/`) and the host's code cache (`host-cache/`, node/host/boot.ts).
 */
export function demoFolder(root) {
  const dir = join(root, ".cache", "try");
  return {
    dir,
    data: join(dir, "data"),
    state: join(dir, "state"),
    serverLog: join(dir, "server.log"),
    help: join(dir, "help"),
    hostCache: join(dir, "host-cache"),
  };
}

/** The environment of the offline demo's Neovim: `env` with its state (tine's log among it) and the host's code cache in the demo's folder. */
export function demoEnv(root, env) {
  const folder = demoFolder(root);
  return { ...env, XDG_STATE_HOME: folder.state, TINE_HOST_CODE_CACHE_DIR: folder.hostCache };
}

/** A copy of the checkout's help in the demo's folder, to be tagged there (not in the checkout); null when it cannot be made. */
function helpCopy(root) {
  const { help } = demoFolder(root);
  try {
    mkdirSync(join(help, "doc"), { recursive: true });
    copyFileSync(join(root, "doc", "tine.txt"), join(help, "doc", "tine.txt"));
    return help;
  } catch {
    return null;
  }
}

/**
 * The `--cmd` line for Neovim. `dataDir`: where the offline demo keeps its threads (null: the
 * user's own data folder, with a real key).
 */
export function tryInit(root, dataDir) {
  const data = dataDir ? `data_dir = ${JSON.stringify(dataDir)}, ` : "";
  // silent!: a checkout that cannot be written still starts (without :help tine).
  const help = helpCopy(root);
  const tagged = help ? ` | set rtp+=${help} | silent! helptags ${help}/doc` : "";
  return `set rtp^=${root}${tagged} | runtime plugin/tine.lua | lua require("tine").setup({ ${data}retry_delay_ms = 200 })`;
}
