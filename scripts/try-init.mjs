// What `npm run try` runs in Neovim before anything else (scripts/try.mjs): tine from this
// checkout on the runtimepath, its help tagged (a plugin manager does that on install; the
// checkout has no other), and setup() with the demo's options.

/**
 * The `--cmd` line for Neovim. `dataDir`: where the offline demo keeps its threads (null: the
 * user's own data folder, with a real key).
 */
export function tryInit(root, dataDir) {
  const data = dataDir ? `data_dir = ${JSON.stringify(dataDir)}, ` : "";
  // silent!: a checkout that cannot be written still starts (without :help tine).
  return `set rtp^=${root} | silent! helptags ${root}/doc | runtime plugin/tine.lua | lua require("tine").setup({ ${data}retry_delay_ms = 200 })`;
}
