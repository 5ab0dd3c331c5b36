/**
 * Daily use, round 2: the keys of a thread's buffers where a user reaches for them (`R` in the
 * input after an error, `i`/`o` in the display, `D` with a reason, `g?` near the input), the
 * prompts of `:Tine rename` and `:Tine resume`, what an empty send says.
 */
import assert from "node:assert/strict";
import { describe, inject, it } from "vitest";
import { bodies, typeAndSend } from "../helpers/chat-driver.ts";
import { type Session, withNeovim } from "../helpers/neovim.ts";
import { textReply } from "../mock-anthropic/script.ts";
import { errorReply } from "../mock-anthropic/server.ts";

const nv = inject("nvim");

const curBufName = (s: Session) => s.lua<string>("return vim.api.nvim_buf_get_name(0)");

describe(`daily keys (${nv.version})`, () => {
  it("R in the empty input after an error sends the failed turn again; with text there it is Replace mode", async () => {
    await withNeovim(nv, async (s) => {
      const lasting = errorReply(500, "api_error", "internal", { "x-should-retry": "false" });
      s.mock.reply(lasting, textReply("Second time lucky."));
      await s.cmd("Tine");
      await s.keys("Rno error<Esc>");
      assert.deepEqual(await s.lines(0), ["no error"], "no error: R is Replace mode");
      await typeAndSend(s, "hello");
      await s.waitForDisplay(1, "⚠ Error:");
      assert.match(await curBufName(s), /input$/);
      await s.until("the input to know", () => s.lua<boolean>("return vim.b.tine_failed == true"));
      await s.keys("R");
      await s.waitForDisplay(1, "Second time lucky.");
      assert.equal(bodies(s).length, 2);
      assert.deepEqual(await s.lines(0), [""], "the key typed nothing");
      // With text in the input, R is Replace mode, error or not: that text is the next message.
      s.mock.reply(lasting);
      await typeAndSend(s, "again");
      await s.until("the second failure", async () => (await s.thread(1)).status === "error");
      await s.setLines(0, ["draft"]);
      await s.keys("0RD<Esc>");
      assert.deepEqual(await s.lines(0), ["Draft"]);
      assert.equal(bodies(s).length, 3);
    });
  });
});
