// `node scripts/option-rules.mjs`: writes lua/tine/option_rules.lua, setup()'s copy of the options'
// rules, from node/core/options.ts (node/core/rules-lua.ts says how). Run it after changing a rule;
// node/core/rules-lua.test.ts fails until it is run. Node 20 reads no TypeScript: esbuild bundles
// the writer into one module first, in memory.
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const bundled = await build({
  entryPoints: [join(root, "node/core/rules-lua.ts")],
  bundle: true,
  platform: "node",
  format: "esm",
  write: false,
  logLevel: "warning",
});
const { LUA_RULES_PATH, luaRulesFile } = await import(
  `data:text/javascript;base64,${Buffer.from(bundled.outputFiles[0].text).toString("base64")}`
);
writeFileSync(join(root, LUA_RULES_PATH), luaRulesFile());
console.log(`tine: wrote ${LUA_RULES_PATH}`);
