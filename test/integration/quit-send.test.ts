/**
 * A quit typed right behind a send, in real Neovim against the HTTP mock: the send's <CR> and
 * `:qa<CR>` arrive together (as a fast typist's, or pasted keys), before the host has said that
 * the thread works. The quit still asks, and cancelled, the turn goes on.
 */
import assert from "node:assert/strict";
import { describe, inject, it } from "vitest";
import { withNeovim } from "../helpers/neovim.ts";
import { response } from "../mock-anthropic/script.ts";

const nv = inject("nvim");

describe(`quit right after a send (${nv.version})`, () => {
  it("<CR> and :qa<CR> typed in one go: the quit asks (the send counts as working at once); cancelled, the reply streams on", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(response([{ text: "Streaming on", holdInside: { hold: "h", afterDeltas: 1 } }]));
      await s.cmd("Tine");
      const t = (await s.threads())[0]!;
      await s.lua("_G.tine_confirmed = {}; vim.fn.confirm = function(q) table.insert(_G.tine_confirmed, q); return 2 end");
      await s.setLines(await s.currentBuf(), ["go"]);
      // Both keys in one go: Neovim reads `:qa<CR>` right after the send's mapping returns.
      await s.nvim.input("<CR>:qa<CR>");
      const quit = s.waitForExit(10_000).then(
        () => "Neovim quit without asking",
        () => "still running",
      );
      const asked = s.until("asked", async () => (await s.lua<number>("return #_G.tine_confirmed")) === 1).then(() => "asked");
      assert.equal(await Promise.race([asked, quit]), "asked");
      assert.match(
        await s.lua<string>("return _G.tine_confirmed[1]"),
        /^tine: (a message you just sent starts its turn|#1 "go" streams)\./,
      );
      assert.ok(s.running(), "Neovim still runs");
      await s.mock.reached("h");
      s.mock.release("h");
      await s.waitForDisplay(t.id, "Streaming on");
      await s.waitForStatus(t.id, "idle");
      await s.until("nothing works once the turn is over", async () => s.lua<boolean>("return #require('tine.quit').working() == 0"));
    });
  });

  it("a send the host refuses leaves nothing counted as working (a quit would not ask)", async () => {
    await withNeovim(nv, async (s) => {
      await s.cmd("Tine");
      await s.lua("_G.tine_confirmed = {}; vim.fn.confirm = function(q) table.insert(_G.tine_confirmed, q); return 2 end");
      // Nothing typed, nothing held: the host refuses the send, saying so.
      await s.keys("<CR>");
      await s.notified(/nothing to send/);
      assert.equal(await s.lua<number>("return #require('tine.quit').working()"), 0);
    });
  });
});
