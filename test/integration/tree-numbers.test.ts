/**
 * The numbers the user knows threads by: never given twice (after a delete, a restart, the highest
 * deleted), and no thread id shown instead (a fork whose parent is gone). Each test stands alone in
 * its own Neovim.
 */
import assert from "node:assert/strict";
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { exchange } from "../helpers/chat-driver.ts";
import { oneExchange, parentAndFork } from "../helpers/fixtures.ts";
import { tempProjects, withNeovim } from "../helpers/neovim.ts";

const nv = inject("nvim");

const project = tempProjects();

describe(`thread numbers (${nv.version})`, () => {
  it("are never given again after a delete, in memory too (persist = false)", async () => {
    await withNeovim(
      nv,
      async (s) => {
        await oneExchange(s, "alpha", "Alpha answer.");
        await s.cmd("Tine new");
        const second = await s.thread(2);
        await s.lua("require('tine').delete(...)", second.id);
        await s.waitForGone(second.id);
        await s.cmd("Tine new");
        assert.deepEqual(
          (await s.threads()).map((t) => t.num),
          [1, 3],
        );
      },
      { setup: { persist: false } },
    );
  });

  it("are never given again after a restart, an ended fork's included, even from before numbers were claimed", async () => {
    const cwd = project();
    await withNeovim(
      nv,
      async (s) => {
        const { fork } = await parentAndFork(s);
        await s.lua("require('tine').discard(...)", fork);
        await s.waitForGone(fork);
      },
      { cwd },
    );
    // Transcripts written before nums/ was kept: only the files say which numbers were given.
    const projects = join(cwd, ".data/nvim/tine/projects");
    for (const name of readdirSync(projects)) rmSync(join(projects, name, "nums"), { recursive: true, force: true });
    await withNeovim(
      nv,
      async (s) => {
        await s.cmd("Tine new");
        const nums = (await s.threads()).map((t) => t.num).sort();
        assert.deepEqual(nums, [1, 3], "the discarded fork's 2 is not given again");
      },
      { cwd },
    );
  });

  it("are never given again after a restart when the thread that had the highest was deleted", async () => {
    const cwd = project();
    await withNeovim(
      nv,
      async (s) => {
        await oneExchange(s, "alpha", "Alpha answer.");
        await s.cmd("Tine new");
        await exchange(s, 2, "beta", "Beta answer.");
        const beta = await s.thread(2);
        await s.lua("require('tine').delete(...)", beta.id);
        await s.waitForGone(beta.id);
      },
      { cwd },
    );
    await withNeovim(
      nv,
      async (s) => {
        await s.cmd("Tine new");
        assert.deepEqual((await s.threads()).map((t) => t.num).sort(), [1, 3], "the deleted thread's 2 is not given again");
      },
      { cwd },
    );
  });
});

describe(`no thread id reaches the user (${nv.version})`, () => {
  it("gp in a fork whose parent was deleted says so", async () => {
    await withNeovim(nv, async (s) => {
      const { parent, fork } = await parentAndFork(s);
      await s.lua("require('tine').delete(...)", parent);
      await s.waitForGone(parent);
      await s.focus((await s.thread(fork)).bufnr!);
      await s.keys("gp");
      assert.match(await s.lastNotification(), /the thread this fork came from was deleted/);
      const said = (await s.notifications()).map((n) => n.msg).join("\n");
      assert.doesNotMatch(said, /[0-9a-f]{8}-[0-9a-f]{4}-/, said);
    });
  });
});
