/**
 * What the screen shows of tine's threads where Neovim draws it (issue #30): tab labels, status
 * lines, a refused quit. Read from Neovim's own screen (screenstring), as a user would see it.
 */
import assert from "node:assert/strict";
import { describe, inject, it } from "vitest";
import { oneExchange } from "../helpers/fixtures.ts";
import { type Session, withNeovim } from "../helpers/neovim.ts";

const nv = inject("nvim");

/** Row `row` (1-based) of the screen as Neovim draws it now. */
const screenRow = (s: Session, row: number) =>
  s.lua<string>(
    `local row = ...
    vim.cmd("redraw!")
    local out = {}
    for col = 1, vim.o.columns do out[#out + 1] = vim.fn.screenstring(row, col) end
    return (table.concat(out):gsub("%s+$", ""))`,
    row,
  );

describe(`screens (${nv.version})`, () => {
  it("Neovim's default tab line labels a thread's tab with its number and title, from its input or its display", async () => {
    await withNeovim(nv, async (s) => {
      await s.lua("vim.o.columns = 120; vim.o.lines = 35; vim.o.showtabline = 2");
      await oneExchange(s, "main question", "Parent answer.");
      const t = await s.thread(1);
      assert.equal(await s.lua("return vim.o.tabline"), "", "the user's tab line: Neovim's default");
      await s.focus(t.input_bufnr!);
      const fromInput = await screenRow(s, 1);
      assert.match(fromInput, /tine #1 main question \[input\]/, fromInput);
      assert.doesNotMatch(fromInput, /t\/\//, fromInput);
      await s.focus(t.bufnr!);
      assert.match(await screenRow(s, 1), /tine #1 main question(?! \[input\])/);
      // A title with a slash stays one name, not folders to shorten.
      await s.cmd("Tine rename fix a/b parsing");
      await s.focus(t.input_bufnr!);
      await s.until("the tab renamed", async () => (await screenRow(s, 1)).includes("tine #1 fix a∕b parsing [input]"));
    });
  });
});
