/**
 * Daily use, round 2: what the display shows and the model is told when a call is malformed.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { resultOf, sentBlocks, typeAndSend } from "../helpers/chat-driver.ts";
import { withNeovim } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");

describe(`daily display (${nv.version})`, () => {
  it("an edit_file call with the wrong field names is answered as invalid at once: no approval asked, no empty diff", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(
        response([{ toolUse: { id: "t1", name: "edit_file", input: { path: "hello.txt", old_str: "hello", new_str: "bye" } } }]),
        textReply("I will use find and replace."),
      );
      await s.cmd("Tine");
      await typeAndSend(s, "edit it");
      const shown = await s.waitForDisplay(1, "I will use find and replace.");
      assert.doesNotMatch(shown, /awaiting approval/);
      assert.doesNotMatch(shown, /```diff/, "no diff of fields it does not have");
      assert.match(shown, /🔧 edit_file: \{"path":"hello.txt","old_str":"hello","new_str":"bye"\}/);
      const result = sentBlocks(s, 1, -1)[0];
      assert.ok(result?.type === "tool_result" && result.is_error, "an error result");
      assert.equal(
        resultOf(result),
        "Invalid input for edit_file: missing find, replace; unknown old_str, new_str (its fields: path, find, replace). Nothing was done.",
      );
      assert.equal(readFileSync(join(s.cwd, "hello.txt"), "utf8"), "hello from a fixture\n");
    });
  });

  it("markdown markup in a reply is hidden in the display: **bold** shows as bold, without its stars", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(textReply("Press **a** on it to approve, or **d** to deny."));
      // Neovim's defaults, which the tests' `-u NONE` turns off.
      await s.cmd("filetype plugin indent on | syntax on");
      await s.cmd("Tine");
      await typeAndSend(s, "how?");
      await s.waitForDisplay(1, "── end_turn");
      const display = (await s.thread(1)).bufnr!;
      // What the screen shows in the display's window (its cursor is on the last line, not this one).
      const rows = await s.lua<string[]>(
        `local win = vim.fn.win_findbuf(...)[1]
        vim.cmd("redraw!")
        local top, left = unpack(vim.fn.win_screenpos(win))
        -- win_screenpos counts the winbar's row; the text starts under it.
        if vim.wo[win].winbar ~= "" then top = top + 1 end
        local rows = {}
        for r = top, top + vim.api.nvim_win_get_height(win) - 1 do
          local chars = {}
          for c = left, left + vim.api.nvim_win_get_width(win) - 1 do table.insert(chars, vim.fn.screenstring(r, c)) end
          table.insert(rows, table.concat(chars))
        end
        return rows`,
        display,
      );
      const screen = rows.join("\n");
      assert.match(screen, /Press a on it to approve, or d to deny\./, screen);
      assert.doesNotMatch(screen, /\*\*/);
    });
  });

  it("an imported conversation whose turns were merged into one message shows them as paragraphs, a blank line between", async () => {
    await withNeovim(nv, async (s) => {
      const line = (r: object) => `${JSON.stringify(r)}\n`;
      const path = join(s.cwd, "session.jsonl");
      // Two prompts in a row (the first one's turn was interrupted): one user message for the API.
      writeFileSync(
        path,
        line({ type: "user", uuid: "u1", parentUuid: null, message: { role: "user", content: "first prompt" } }) +
          line({ type: "user", uuid: "u2", parentUuid: "u1", message: { role: "user", content: "second prompt" } }) +
          line({
            type: "assistant",
            uuid: "a1",
            parentUuid: "u2",
            message: { id: "m1", role: "assistant", content: [{ type: "text", text: "Answer." }] },
          }),
      );
      await s.cmd(`Tine import ${path}`);
      const t = (await s.threads()).at(-1)!;
      await s.waitForDisplay(t.id, "## You\nfirst prompt\n\nsecond prompt\n\n## Claude\nAnswer.\n");
    });
  });
});
