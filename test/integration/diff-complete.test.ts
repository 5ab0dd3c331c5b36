/**
 * `:Tine diff <Tab>` as a user meets it in real Neovim: each thread completed as `N  title`, and
 * the command taking what was completed (or bare numbers).
 */
import assert from "node:assert/strict";
import { describe, inject, it } from "vitest";
import { parentAndFork } from "../helpers/fixtures.ts";
import { type Session, withNeovim } from "../helpers/neovim.ts";

const nv = inject("nvim");

const completed = (s: Session, line: string) => s.lua<string[]>("return vim.fn.getcompletion(..., 'cmdline')", line);

/** The headers of the panes in the current tab (each side's title first). */
const paneHeads = (s: Session) =>
  s.lua<string[]>(
    "return vim.tbl_map(function(w) return vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(w), 0, 1, false)[1] end, vim.api.nvim_tabpage_list_wins(0))",
  );

describe(`:Tine diff <Tab> (${nv.version})`, () => {
  it("completes `N  title`, and the command takes what was completed, or bare numbers", async () => {
    await withNeovim(nv, async (s) => {
      const { parent, fork } = await parentAndFork(s);
      // A title that starts with a number is not mistaken for the next thread.
      await s.lua("require('tine').rename(...)", parent, "2 ways to go");
      await s.lua("require('tine').rename(...)", fork, "try a  hash map");
      assert.deepEqual(await completed(s, "Tine diff "), ["1  2 ways to go", "2  try a hash map"]);
      assert.deepEqual(await completed(s, "Tine diff 1"), ["1  2 ways to go"], "by the number's start");
      assert.deepEqual(await completed(s, "Tine diff HASH"), ["2  try a hash map"], "or by a word of the title");
      assert.deepEqual(await completed(s, "Tine diff 2  try a hash map "), ["1  2 ways to go", "2  try a hash map"]);
      assert.deepEqual(await completed(s, "Tine diff 2  try a hash map 1  2 ways to go "), [], "two threads at most");
      assert.deepEqual(await completed(s, "Tine diff 1 2 "), []);

      await s.cmd("Tine diff 2  try a hash map 1  2 ways to go");
      assert.deepEqual(await paneHeads(s), ["try a hash map · after 2 shared messages", "2 ways to go · after 2 shared messages"]);
      await s.cmd("tabclose");
      await s.cmd("Tine diff 1 2");
      assert.deepEqual(await paneHeads(s), ["2 ways to go · after 2 shared messages", "try a hash map · after 2 shared messages"]);
      await s.cmd("tabclose");
      // <Tab> itself, typed (a key fed as typed: a mapped <Tab> is no 'wildchar'): the fork by a word of its title, against its parent.
      await s.lua(`vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(":Tine diff hash<Tab><CR>", true, false, true), "tx", false)`);
      assert.deepEqual(await paneHeads(s), ["try a hash map · after 2 shared messages", "2 ways to go · after 2 shared messages"]);
      await s.cmd("tabclose");
      await s.cmd("Tine diff 1 2 3");
      assert.match(await s.lastNotification(), /^tine: :Tine diff takes two threads at most \(their numbers\), not 1, 2, 3$/);
    });
  });
});
