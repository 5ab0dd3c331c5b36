/**
 * `gD` (issue #30): a fork with messages of its own asks before it is discarded, one without goes at
 * once, and the message after a discard says how to bring the fork back.
 */
import assert from "node:assert/strict";
import { describe, inject, it } from "vitest";
import { parentAndFork } from "../helpers/fixtures.ts";
import { withNeovim } from "../helpers/neovim.ts";

const nv = inject("nvim");

/** From now on vim.fn.confirm answers `n` and keeps each question in _G.tine_confirmed. */
const confirmAnswering = (n: number) =>
  `_G.tine_confirmed = {}; vim.fn.confirm = function(q) table.insert(_G.tine_confirmed, q); return ${n} end`;

describe(`discarding a fork (${nv.version})`, () => {
  it("gD on a fork with messages of its own asks; Cancel keeps it; Discard says how to bring it back", async () => {
    await withNeovim(nv, async (s) => {
      const { fork } = await parentAndFork(s);
      await s.lua(confirmAnswering(2));
      await s.focus((await s.thread(fork)).bufnr!);
      await s.keys("gD");
      await s.until("gD to ask", async () => (await s.lua("return #_G.tine_confirmed")) === 1);
      assert.match(
        await s.lua("return _G.tine_confirmed[1]"),
        /^tine: discard fork #2 "explore a tangent"\? It has 2 messages of its own \(`:Tine threads!` brings it back\)\.$/,
      );
      const kept = await s.thread(fork);
      assert.ok(kept.bufnr !== null && kept.status !== "stored", "Cancel keeps the fork open");

      await s.lua(confirmAnswering(1));
      await s.keys("gD");
      await s.waitForGone(fork, "the fork to go");
      await s.notified(/explore a tangent was discarded \(`:Tine threads!` brings it back\)/);
    });
  });

  it("a fork with no messages of its own is discarded without a question", async () => {
    await withNeovim(nv, async (s) => {
      const { parent } = await parentAndFork(s);
      const empty: string = await s.lua("return require('tine').fork(...)", parent, "");
      await s.lua(confirmAnswering(2));
      await s.focus((await s.thread(empty)).bufnr!);
      await s.keys("gD");
      await s.waitForGone(empty, "the empty fork to go");
      assert.equal(await s.lua("return #_G.tine_confirmed"), 0, "nothing was asked");
    });
  });
});
