/**
 * A fork made later than it was asked for (`:ForkThread --wait`, made once its source comes to
 * rest) opens beside its source without taking the cursor: the user has moved on meanwhile, and
 * keeps typing where they are; the message area says the fork opened.
 */
import assert from "node:assert/strict";
import { describe, inject, it } from "vitest";
import { waitingForkOfStreamingReply } from "../helpers/chat-driver.ts";
import { type Session, withNeovim } from "../helpers/neovim.ts";

const nv = inject("nvim");

/** Goes to a window of the editor's (no thread's), as the user moving on to their code; its id. */
const toEditorWindow = (s: Session) =>
  s.lua<number>(`for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
      local buf = vim.api.nvim_win_get_buf(w)
      if vim.api.nvim_win_get_config(w).relative == "" and not vim.b[buf].tine_thread and vim.bo[buf].buftype == "" then
        vim.api.nvim_set_current_win(w)
        return w
      end
    end
    error("no editor window")`);

describe(`a fork made later (${nv.version})`, () => {
  it("a --wait fork made when its source comes to rest opens beside it; the user typing in another window keeps the cursor, in Insert mode, and is told", async () => {
    await withNeovim(nv, async (s) => {
      await waitingForkOfStreamingReply(s);
      const win = await toEditorWindow(s);
      await s.nvim.input("iwriting ");
      await s.until("Insert mode", async () => (await s.lua<string>("return vim.api.nvim_get_mode().mode")) === "i");
      s.mock.release("h");
      await s.waitForDisplay(2, "Forked after.");
      const fork = await s.thread(2);
      await s.until("the fork's display in a window", async () => s.lua<boolean>("return #vim.fn.win_findbuf(...) > 0", fork.bufnr!));
      assert.ok(await s.lua<boolean>("return #vim.fn.win_findbuf(...) > 0", (await s.thread(1)).bufnr!), "its source still shows");
      assert.equal(await s.lua<number>("return vim.api.nvim_get_current_win()"), win, "the cursor stays in the user's window");
      assert.equal(await s.lua<string>("return vim.api.nvim_get_mode().mode"), "i", "still typing");
      assert.equal(
        await s.lua<string>("return require('tine').current()"),
        (await s.thread(1)).id,
        "the active thread is still the source",
      );
      await s.notified(/^tine: the fork #2 "look again" opened beside #1 "go" \(the cursor stays where it is\)/);
      await s.nvim.input("on<Esc>");
      await s.until("Normal mode", async () => (await s.lua<string>("return vim.api.nvim_get_mode().mode")) === "n");
      assert.deepEqual(await s.lua<string[]>("return vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(...), 0, -1, false)", win), [
        "writing on",
      ]);
    });
  });
});
