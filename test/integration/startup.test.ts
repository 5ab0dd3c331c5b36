/**
 * What the host's start-up loads, seen from outside on a copy of the build: not the Anthropic SDK
 * (the first request loads it), and, from the second start of a build on, not a compile of its
 * code either (the first host leaves V8's compiled code beside the build as it exits).
 */
import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { typeAndSend } from "../helpers/chat-driver.ts";
import { ROOT, type Session, withNeovim } from "../helpers/neovim.ts";
import { textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");

/** The build's code copied to a fresh folder, its SDK behind a stand-in that notes when it is loaded. */
function copyOfBuild(): { dir: string; sdkLoaded: () => boolean } {
  const dir = mkdtempSync(join(tmpdir(), "tine-build-"));
  for (const f of readdirSync(join(ROOT, "dist"))) if (f.endsWith(".cjs")) copyFileSync(join(ROOT, "dist", f), join(dir, f));
  const marker = join(dir, "sdk-loaded");
  writeFileSync(
    join(dir, "sdk.cjs"),
    `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "");\nmodule.exports = require(${JSON.stringify(join(ROOT, "dist/sdk.cjs"))});\n`,
  );
  return { dir, sdkLoaded: () => existsSync(marker) };
}

const cacheFiles = (dir: string) => readdirSync(dir).filter((f) => f.includes(".v8cache"));

/** Stops the host and waits until its process is gone (its exit handlers have run). */
async function stopHost(s: Session): Promise<void> {
  const pid = await s.hostPid();
  await s.lua("require('tine.host').stop()");
  await s.until("the host to exit", async () => {
    try {
      process.kill(pid, 0);
      return false;
    } catch {
      return true;
    }
  });
}

describe(`start-up (${nv.version})`, () => {
  it("the host starts without the SDK and loads it with the first request; the next start reads the code the first compiled", async () => {
    const build = copyOfBuild();
    try {
      await withNeovim(nv, async (s) => {
        await s.lua("require('tine.host').script = ...", join(build.dir, "host.cjs"));
        s.mock.reply(textReply("hello from the mock"));
        await s.cmd("Tine");
        const t = (await s.threads())[0]!;
        assert.equal(build.sdkLoaded(), false, "a thread is ready for input, and the SDK is not loaded");
        await typeAndSend(s, "hi");
        await s.waitForDisplay(t.id, "hello from the mock");
        assert.equal(build.sdkLoaded(), true, "the first request loaded the SDK");

        await stopHost(s);
        const [cache] = cacheFiles(build.dir);
        assert.ok(cache, "the first host left its compiled code");
        const written = statSync(join(build.dir, cache)).ino;

        await s.threads(); // a second host
        await stopHost(s);
        assert.deepEqual(cacheFiles(build.dir), [cache], "one cache, no half-written one left");
        assert.equal(statSync(join(build.dir, cache)).ino, written, "the second host used the cache (a rejected one is written again)");
      });
    } finally {
      rmSync(build.dir, { recursive: true, force: true });
    }
  });
});
