/**
 * Calls that would hold Neovim while the host is busy: threads() (a statusline calls it on every
 * redraw) follows the host without calling it, and :Tine threads opens the list without waiting.
 */
import assert from "node:assert/strict";
import { describe, inject, it } from "vitest";
import { typeAndSend } from "../helpers/chat-driver.ts";
import { withNeovim } from "../helpers/neovim.ts";
import { response } from "../mock-anthropic/script.ts";

const nv = inject("nvim");

/** Counts the calls Lua makes to the host from now on (`_G.tine_asked`). */
const countCalls = `
local host = require('tine.host')
local request = host.request
_G.tine_asked = 0
host.request = function(...)
  _G.tine_asked = _G.tine_asked + 1
  return request(...)
end`;
const asked = "return _G.tine_asked";

describe(`calls to the host (${nv.version})`, () => {
  it("threads() follows a thread from sending to its reply without a call to the host, and is current after any call", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(response([{ text: "Half of it", holdInside: { hold: "h", afterDeltas: 1 } }]));
      await s.cmd("Tine");
      assert.equal((await s.thread(1)).status, "idle");
      await s.lua(countCalls);
      await typeAndSend(s, "hello");
      await s.mock.reached("h");
      await s.until("threads() to say it streams", async () => (await s.thread(1)).status === "streaming");
      assert.equal(await s.lua<number>(asked), 1, "the send, nothing else");

      s.mock.release("h");
      await s.until("threads() to say the reply came", async () => (await s.thread(1)).status === "idle");
      const t = await s.thread(1);
      assert.equal(t.messages, 2);
      assert.equal(t.stop_reason, "end_turn");
      assert.match(await s.display(1), /Half of it/, "the display shows what threads() says came");
      assert.equal(await s.lua<number>(asked), 1, "no call to the host since the send");

      // A list sent before the last one, arriving late, is dropped.
      await s.lua("require('tine.threads_mirror').pushed({ seq = 0, set = {}, order = {} })");
      assert.equal((await s.threads()).length, 1);

      // A call that changes the list brings it back with its answer.
      await s.lua("require('tine').rename(require('tine').threads()[1].id, 'renamed')");
      assert.equal((await s.thread(1)).title, "renamed");
      assert.equal(await s.lua<number>(asked), 2, "the rename, nothing else");
    });
  });

  it(":Tine threads returns before the host answers; the list opens when it does", async () => {
    await withNeovim(nv, async (s) => {
      await s.cmd("Tine");
      // Both in one go: nothing runs in between that could let the host's answer in.
      const [listShownAtOnce, shown] = await s.lua<[boolean, number]>(
        "local before = require('tine.list').shown; vim.cmd('Tine threads'); return { vim.api.nvim_buf_get_name(0):match('tine://threads') ~= nil, before }",
      );
      assert.equal(listShownAtOnce, false);
      await s.until("the list to open", async () => (await s.lua<number>("return require('tine.list').shown")) > shown);
      assert.match(await s.lua<string>("return vim.api.nvim_buf_get_name(0)"), /tine:\/\/threads/);
    });
  });
});
