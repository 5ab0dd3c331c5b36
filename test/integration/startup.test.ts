/**
 * What the host's start-up costs, seen from outside: `:Tine` waits on the host once; start-up
 * loads neither the Anthropic SDK (the first request loads it) nor Node's modules that the first
 * screen does not need, and, from the second start of a build on, compiles none of its code (the
 * first host leaves V8's compiled code beside the build as it exits). The host talks through
 * descriptors that do not block too (it reads and writes its stdio as descriptors, see
 * node/nvim/stdio.ts).
 */
import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { typeAndSend } from "../helpers/chat-driver.ts";
import { alive, ROOT, type Session, withNeovim } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

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

/** Node's modules the first screen has no use for: each costs start-up time to load. */
const NOT_FOR_THE_FIRST_SCREEN = ["crypto", "perf_hooks", "net", "stream", "child_process", "fs/promises", "http", "https"];

describe(`start-up (${nv.version})`, () => {
  it(":Tine never waits on the host, and the host's start-up loads none of Node's modules the first screen does not need", async () => {
    await withNeovim(
      nv,
      async (s) => {
        // Each call Neovim waits on (its main loop held until the host answers).
        await s.lua(`
          _G.tine_waits = {}
          local rpcrequest = vim.rpcrequest
          vim.rpcrequest = function(chan, name, method, ...)
            table.insert(_G.tine_waits, method)
            return rpcrequest(chan, name, method, ...)
          end`);
        await s.cmd("Tine");
        assert.ok(await s.lua("return vim.b.tine_display"), "the cursor is in a thread's input");
        assert.deepEqual(await s.lua("return _G.tine_waits"), [], "the host is asked without waiting");
        const loaded = await s.lua<string[]>("return require('tine.host').request('test_node_modules')");
        assert.deepEqual(
          NOT_FOR_THE_FIRST_SCREEN.filter((m) => loaded.includes(m)),
          [],
        );
      },
      { env: { TINE_TEST_HOOKS: "1" } },
    );
  });

  it(":Tine is ready for input before the host has started: what is typed and sent meanwhile goes once it has", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tine-slow-host-"));
    try {
      // A host that starts only once the test lets it.
      const go = join(dir, "go");
      const wrapper = join(dir, "host.cjs");
      writeFileSync(
        wrapper,
        `const t = setInterval(() => { if (require("node:fs").existsSync(${JSON.stringify(go)})) { clearInterval(t); require(${JSON.stringify(join(ROOT, "dist/host.cjs"))}); } }, 5);\n`,
      );
      await withNeovim(nv, async (s) => {
        await s.lua("require('tine.host').script = ...", wrapper);
        s.mock.reply(textReply("answered after the start"));
        await s.lua("vim.cmd('Tine')"); // not s.cmd, which waits for the host

        const ready = await s.lua<{ input: boolean; modifiable: boolean; sidebar: boolean; host_answered: boolean }>(`
          local win = vim.api.nvim_get_current_win()
          return { input = vim.b.tine_display ~= nil, modifiable = vim.bo.modifiable,
                   sidebar = require('tine.ui').sidebar().input == win,
                   host_answered = vim.b[vim.b.tine_display].tine_thread ~= nil }`);
        assert.deepEqual(ready, { input: true, modifiable: true, sidebar: true, host_answered: false });
        await typeAndSend(s, "typed while the host started");
        writeFileSync(go, "");
        await s.waitForThreadCount(1);
        const t = (await s.threads())[0]!;
        await s.waitForDisplay(t.id, "answered after the start");
        assert.equal(s.mock.requests.length, 1);
        assert.match(JSON.stringify(s.mock.requests[0]!.body.messages), /typed while the host started/);
        // The buffers shown while it started are the thread's own now.
        assert.equal(await s.lua("return vim.b[vim.b.tine_display].tine_thread"), t.id);
        assert.deepEqual(await s.lua("return vim.api.nvim_buf_get_lines(0, 0, -1, false)"), [""], "the input was sent");
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a host whose options fail its own checks says so on every call, and :Tine restart starts afresh", async () => {
    await withNeovim(nv, async (s) => {
      // Past setup()'s checks, as a host built from an older checkout would see a newer option.
      await s.lua("require('tine.config').options.fork_open = 'sideways'");
      await s.cmd("Tine");
      await s.notified(/tine: the host failed to start: .*fork_open/);
      await assert.rejects(s.lua("return require('tine').threads()"), /the host failed to start: .*fork_open/);
      await s.lua("require('tine.config').options.fork_open = 'vsplit'");
      await s.cmd("Tine restart");
      assert.ok(await s.lua("return vim.b.tine_display"), "the cursor is in a new thread's input");
      assert.equal((await s.threads()).length, 1);
    });
  });

  it("a SIGTERM from outside Neovim ends the host: its locks are released and Neovim says the host is gone", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(textReply("stored"));
      await s.cmd("Tine");
      const t = (await s.threads())[0]!;
      await typeAndSend(s, "hi");
      await s.waitForDisplay(t.id, "stored");
      const locks = () => readdirSync(s.cwd, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(`${t.id}.lock`));
      assert.equal(locks().length, 1, "the open thread is locked");
      const pid = await s.hostPid();
      process.kill(pid, "SIGTERM");
      await s.until("the host to exit", async () => !alive(pid));
      assert.deepEqual(locks(), [], "the exit handlers ran");
      await s.notified(/tine: the host exited/);
    });
  });

  it("talks through stdio descriptors that do not block: a large answer arrives whole", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tine-nonblocking-"));
    try {
      // Node's own stdio streams, made first, turn both descriptors non-blocking.
      const wrapper = join(dir, "host.cjs");
      writeFileSync(wrapper, `process.stdin;\nprocess.stdout;\nrequire(${JSON.stringify(join(ROOT, "dist/host.cjs"))});\n`);
      await withNeovim(nv, async (s) => {
        await s.lua("require('tine.host').script = ...", wrapper);
        const lines = Array.from({ length: 50_000 }, (_, i) => `line ${i} of a long reply`);
        s.mock.reply(response([{ text: lines.join("\n"), chunk: 64 * 1024 }]));
        await s.cmd("Tine");
        const t = (await s.threads())[0]!;
        await typeAndSend(s, "hi");
        await s.waitForDisplay(t.id, "line 49999 of a long reply");
        // One answer of several megabytes: more than a pipe holds at once.
        const text = await s.lua<string[]>("return require('tine.host').request('display_text', ...)", t.id);
        assert.ok(text.includes("line 49999 of a long reply"));
        assert.equal(text.filter((l) => l.startsWith("line ")).length, 50_000);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

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
