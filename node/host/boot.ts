/**
 * What Neovim starts (dist/host.cjs): runs the host's bundle (dist/host-main.cjs, built from
 * index.ts) compiled from V8's code cache when there is one, so a start skips parsing and
 * compiling it (Node 20 has no compile cache of its own). A host that found no usable cache writes
 * one as it exits: by then the cache holds every function the host ran, start-up's included.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Script } from "node:vm";

/** The bundle's content hash (scripts/build.mjs): V8 checks only a cached source's length. */
declare const HOST_BUNDLE_HASH: string;

const bundle = join(__dirname, "host-main.cjs");
// Beside the bundle, unless told where (the offline demo keeps it in its own folder, scripts/try-init.mjs).
const cacheDir = process.env["TINE_HOST_CODE_CACHE_DIR"] || __dirname;
const cacheFile = join(cacheDir, `host-main.${HOST_BUNDLE_HASH}.v8cache`);

let cached: Buffer | undefined;
try {
  cached = readFileSync(cacheFile);
} catch {
  cached = undefined; // the first start of this build
}
// CommonJS's wrapper, on a line of its own: the bundle keeps its lines and columns in stack
// traces, and so its source map (dist/host-main.cjs.map) still maps them.
const script = new Script(`(function (exports, require, module, __filename, __dirname) {\n${readFileSync(bundle, "utf8")}\n})`, {
  filename: bundle,
  lineOffset: -1,
  cachedData: cached,
});
const hostModule = { exports: {} };
// This file's own require: the bundle lies beside it, so its relative requires (./sdk.cjs) resolve alike.
script.runInThisContext().call(hostModule.exports, hostModule.exports, require, hostModule, bundle, __dirname);

if (cached === undefined || script.cachedDataRejected) {
  // Registered after the host's own exit handlers: they run first.
  process.on("exit", () => {
    const written = `${cacheFile}.${process.pid}`;
    try {
      mkdirSync(cacheDir, { recursive: true });
      writeFileSync(written, script.createCachedData());
      renameSync(written, cacheFile); // whole or not at all, with other hosts exiting at once
    } catch {
      rmSync(written, { force: true }); // a read-only install goes without
    }
  });
}
