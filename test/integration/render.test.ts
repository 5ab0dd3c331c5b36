/** Replies of any length render, to their last line, in real Neovim. */
import assert from "node:assert/strict";
import { describe, inject, it } from "vitest";
import { typeAndSend } from "../helpers/chat-driver.ts";
import { withNeovim } from "../helpers/neovim.ts";
import { response } from "../mock-anthropic/script.ts";

const nv = inject("nvim");

/** `n` numbered lines, so the last one shown proves nothing before it was lost. */
const numbered = (n: number, width = 0) =>
  Array.from({ length: n }, (_, i) => `line ${i + 1}${width ? ` ${"x".repeat(width)}` : ""}`).join("\n");

describe(`long replies (${nv.version})`, () => {
  it("a 200,000-line text block shows whole, streamed and after it finished; the thread goes on", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(response([{ text: numbered(200_000), chunk: 64 * 1024 }]), response([{ text: "Still fine." }]));
      await s.cmd("Tine");
      await typeAndSend(s, "a long one");
      await s.until("the reply to finish", async () => (await s.thread(1)).status === "idle", 60_000);
      const t = await s.thread(1);
      const lines = await s.lines(t.bufnr!);
      const first = lines.indexOf("line 1");
      assert.ok(first > 0, "the reply's first line is shown");
      assert.equal(lines[first + 199_999], "line 200000", "the reply's last line is shown, none lost");
      await typeAndSend(s, "and now?");
      await s.waitForDisplay(1, "Still fine.");
    });
  }, 120_000);

  it("a 10 MB reply of a million short lines shows whole", async () => {
    await withNeovim(nv, async (s) => {
      // 1,000,000 lines of about 10 characters: 10 MB.
      const text = Array.from({ length: 1_000_000 }, (_, i) => `l${i + 1} xxxx`).join("\n");
      s.mock.reply(response([{ text, chunk: 512 * 1024 }]));
      await s.cmd("Tine");
      await typeAndSend(s, "a big one");
      // A million lines take seconds to stream and draw on this machine; what is checked is that they all arrive.
      await s.until("the reply to finish", async () => (await s.thread(1)).status === "idle", 60_000);
      const buf = (await s.thread(1)).bufnr!;
      const found = await s.lua<number[]>(
        `local lines = vim.api.nvim_buf_get_lines(..., 0, -1, false)
         return { #lines, vim.fn.index(lines, "l1 xxxx"), vim.fn.index(lines, "l1000000 xxxx") }`,
        buf,
      );
      const [count, first, last] = found as [number, number, number];
      assert.ok(count > 1_000_000, `every line is in the buffer (${count})`);
      assert.ok(first > 0 && last === first + 999_999, "the first and the last of the million lines are shown, none lost between");
    });
  }, 120_000);
});
