// Bundles the Node host into one file (dist/host-main.cjs) that Neovim starts through a loader
// (dist/host.cjs, node/host/boot.ts: V8's code cache), the same code for the classic remote-plugin
// host (dist/rplugin.cjs), the Anthropic SDK they load on first use (dist/sdk.cjs), the MCP SDK
// they load when an MCP server first starts (dist/mcp-sdk.cjs), plus the
// offline demo server used by `npm run try` (dist/mock-demo.cjs).
//
// Start-up time is what shapes the host's bundle: it holds only what start-up runs, minified
// (names kept, so stack traces still read; dist/*.map maps them back to the sources).
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { build } from "esbuild";
import { demoFolder } from "./try-init.mjs";

const common = { bundle: true, platform: "node", target: "node20", format: "cjs", sourcemap: "linked", logLevel: "warning" };
const minified = { minify: true, keepNames: true };

/**
 * The SDK is three quarters of the host's code but needed only once a request is sent. It is
 * bundled alone into dist/sdk.cjs, and in the host's bundle `@anthropic-ai/sdk` is a stand-in
 * that requires that file on first use: `new Anthropic(...)` or any property of the class
 * (`Anthropic.APIError`). Types are erased, so only these value uses reach it.
 */
const sdkOnFirstUse = {
  name: "sdk-on-first-use",
  setup(b) {
    b.onResolve({ filter: /^@anthropic-ai\/sdk$/ }, () => ({ path: "sdk", namespace: "sdk-on-first-use" }));
    b.onResolve({ filter: /^\.\/sdk\.cjs$/ }, () => ({ path: "./sdk.cjs", external: true }));
    b.onLoad({ filter: /.*/, namespace: "sdk-on-first-use" }, () => ({
      loader: "js",
      contents: `let sdk;
const load = () => (sdk ??= require("./sdk.cjs").default);
export default new Proxy(function Anthropic() {}, {
  construct: (_, args) => Reflect.construct(load(), args),
  get: (_, key) => load()[key],
});`,
    }));
  },
};

/**
 * The MCP SDK is needed only when a configured MCP server first starts (node/mcp/sdk.ts imports
 * its parts dynamically from node/mcp/sdk-entry.ts): that module is bundled alone into
 * dist/mcp-sdk.cjs, and in the host's bundle it is a stand-in that requires that file. A
 * `require`, not an `import()`: the host runs as a vm Script (node/host/boot.ts), which has no
 * dynamic import; esbuild makes the `import()` of a bundled module a lazy require of it.
 */
/** The ACP SDK likewise, when the first agent starts (node/acp/acp-sdk.ts): dist/acp-sdk.cjs. */
const acpSdkOnFirstUse = {
  name: "acp-sdk-on-first-use",
  setup(b) {
    b.onResolve({ filter: /^\.\/acp-sdk-entry\.ts$/ }, () => ({ path: "acp-sdk", namespace: "acp-sdk-on-first-use" }));
    b.onResolve({ filter: /^\.\/acp-sdk\.cjs$/ }, () => ({ path: "./acp-sdk.cjs", external: true }));
    b.onLoad({ filter: /.*/, namespace: "acp-sdk-on-first-use" }, () => ({
      loader: "js",
      contents: 'module.exports = require("./acp-sdk.cjs");',
    }));
  },
};

const mcpSdkOnFirstUse = {
  name: "mcp-sdk-on-first-use",
  setup(b) {
    b.onResolve({ filter: /^\.\/sdk-entry\.ts$/ }, () => ({ path: "mcp-sdk", namespace: "mcp-sdk-on-first-use" }));
    b.onResolve({ filter: /^\.\/mcp-sdk\.cjs$/ }, () => ({ path: "./mcp-sdk.cjs", external: true }));
    b.onLoad({ filter: /.*/, namespace: "mcp-sdk-on-first-use" }, () => ({
      loader: "js",
      contents: 'module.exports = require("./mcp-sdk.cjs");',
    }));
  },
};

/**
 * Node's own modules that Node's start-up has not loaded and the host's start-up does not use
 * load when first used (the tools' child_process and fs/promises, long after start-up; node:crypto
 * too: the store's folder name and a first thread's id are made without it, see util/sha256.ts and
 * util/uuid.ts). Each import of one is a stand-in whose exports, named here from the Node that
 * builds, require the module on first access.
 */
const ON_FIRST_USE = ["child_process", "crypto", "fs/promises", "os", "stream", "v8"];
const builtinsOnFirstUse = {
  name: "builtins-on-first-use",
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      ON_FIRST_USE.includes(args.path.replace(/^node:/, "")) && args.namespace !== "builtin-on-first-use"
        ? { path: args.path, namespace: "builtin-on-first-use" }
        : undefined,
    );
    const require = createRequire(import.meta.url);
    b.onLoad({ filter: /.*/, namespace: "builtin-on-first-use" }, ({ path }) => ({
      loader: "js",
      contents: [
        `let m;\nconst load = () => (m ??= require(${JSON.stringify(path)}));`,
        ...Object.keys(require(path)).map(
          (name) =>
            `Object.defineProperty(exports, ${JSON.stringify(name)}, { enumerable: true, get: () => load()[${JSON.stringify(name)}] });`,
        ),
      ].join("\n"),
    }));
  },
};

// A package's ES module build where it has one ("module"): scope-hoisted and cut to what is used,
// rather than CommonJS wrapped in a function per file and copied export by export at start-up.
const host = {
  ...common,
  ...minified,
  mainFields: ["module", "main"],
  plugins: [sdkOnFirstUse, mcpSdkOnFirstUse, acpSdkOnFirstUse, builtinsOnFirstUse],
};
await Promise.all([
  build({ ...host, entryPoints: ["node/host/index.ts"], outfile: "dist/host-main.cjs" }),
  build({ ...host, entryPoints: ["node/host/rplugin.ts"], outfile: "dist/rplugin.cjs" }),
  build({
    ...common,
    ...minified,
    stdin: { contents: 'export { default } from "@anthropic-ai/sdk";', resolveDir: ".", sourcefile: "sdk.ts" },
    outfile: "dist/sdk.cjs",
  }),
  build({ ...common, ...minified, entryPoints: ["node/mcp/sdk-entry.ts"], outfile: "dist/mcp-sdk.cjs" }),
  build({ ...common, ...minified, entryPoints: ["node/acp/acp-sdk-entry.ts"], outfile: "dist/acp-sdk.cjs" }),
  build({ ...common, entryPoints: ["test/mock-anthropic/demo.ts"], outfile: "dist/mock-demo.cjs" }),
]);

// The loader names the code cache after the bundle's content; a cache of an earlier build is dropped.
const hash = createHash("sha256").update(readFileSync("dist/host-main.cjs")).digest("hex").slice(0, 16);
for (const dir of ["dist", demoFolder(".").hostCache].filter((d) => existsSync(d)))
  for (const f of readdirSync(dir)) if (/^host-main\..*\.v8cache/.test(f) && !f.startsWith(`host-main.${hash}.`)) rmSync(join(dir, f));
await build({
  ...common,
  entryPoints: ["node/host/boot.ts"],
  outfile: "dist/host.cjs",
  define: { HOST_BUNDLE_HASH: JSON.stringify(hash) },
});
