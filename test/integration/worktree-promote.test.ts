/**
 * What a promote of a worktree fork leaves the parent knowing (issue #30): the fork's tool results
 * named its files relative to its folder, so they hold after the worktree goes; the parent's next
 * request tells the model where the files now live, its earlier messages unchanged (the prompt
 * cache holds). A conflicted merge stays in sight until it is accepted: a line in the parent's
 * display, the quickfix list open, and a key on the line that asks the agent to resolve it.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { readsCacheOf } from "../helpers/cache-prefix.ts";
import { body, exchange, resultOf, sentBlocks, textOf } from "../helpers/chat-driver.ts";
import { editingFork, firstThread, withGitProject } from "../helpers/code-session.ts";
import { tempProjects } from "../helpers/neovim.ts";
import { windowRows } from "../helpers/screen.ts";
import { textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");
const project = tempProjects();

const MERGE_LINE = '⚠ merge of "edit as A": 1 conflict in hello.txt · :copen · :Tine merge done · <CR> asks the agent to resolve it';

describe(`promoting a worktree fork (${nv.version})`, () => {
  it("the fork's results name files relative to its folder; after the promote the parent's next request says where they live, its earlier messages unchanged", async () => {
    await withGitProject(nv, project(), async (s) => {
      // As a user's config does (Neovim 0.12's markdown ftplugin does it too): tree-sitter
      // highlights markdown, and conceals what it takes for markup.
      await s.lua(
        `vim.api.nvim_create_autocmd("FileType", { pattern = "markdown", callback = function(a) pcall(vim.treesitter.start, a.buf) end })`,
      );
      const id = await firstThread(s);
      const a = await editingFork(s, id, "A");
      // The fork's second request carried its tool results: the file as the model named it, not the worktree's path.
      const results = sentBlocks(s, -1, -1).map(resultOf);
      assert.equal(results[0], "Edited hello.txt");
      assert.ok(!JSON.stringify(body(s, -1)).includes(a.cwd), "no request names the worktree");
      const forkLast = body(s, -1);
      // hello.txt with unsaved edits in a buffer: the promote is refused before anything is written (as a graft is).
      await s.cmd(`edit ${join(s.cwd, "hello.txt")}`);
      await s.lua(`vim.api.nvim_buf_set_lines(0, 0, -1, false, { "my unsaved edit" })`);
      assert.match(
        await s.lua<string>(`local ok, e = pcall(require("tine").promote, ...); return ok and "promoted" or tostring(e)`, a.id),
        /^tine: edit as A is not promoted: save or undo your edits to hello\.txt first: its buffer has unsaved changes, and the merge would be written under them \(nothing was written\)\. It stays as it was$/,
      );
      assert.equal(readFileSync(join(s.cwd, "hello.txt"), "utf8"), "hello from a fixture\n");
      assert.ok(
        (await s.threads()).some((t) => t.id === a.id),
        "the fork stays",
      );
      await s.cmd("edit!");
      await s.lua(`require("tine").promote(...)`, a.id);
      await s.notified(/its code is merged: 2 files changed/);
      // Labelled as what it is: a promote's note, not a report.
      const waiting = await s.waitForDisplay(
        id,
        '🔀 Promoted "edit as A" into this thread goes with your next message: [tine] Its code is merged into',
      );
      assert.doesNotMatch(waiting, /📨 Report/);
      await s.open(id);
      await exchange(s, id, "and now?", "Noted.");
      assert.match(await s.display(id), /## You\n🔀 Promoted "edit as A" into this thread:\n\[tine\] Its code is merged into/);
      // The note is shown as written: its `[tine]` is no link whose brackets markdown hides.
      const display = (await s.thread(id)).bufnr!;
      await s.lua(
        "local win = vim.fn.win_findbuf(...)[1]; vim.api.nvim_win_call(win, function() vim.fn.search('Its code is merged'); vim.cmd('normal! zt') end)",
        display,
      );
      const shown = (await windowRows(s, display)).join("\n");
      assert.match(shown, /^\[tine\] Its code is merged into/m, `the display shows:\n${shown}`);
      const sent = sentBlocks(s, -1, -1).map(textOf);
      assert.equal(sent.length, 2, "the note, then the message");
      assert.equal(
        sent[0],
        `<fork-report from="edit as A" kind="promote">\n[tine] Its code is merged into ${s.cwd}, where this thread works, and its worktree ${a.cwd} is removed: what the messages above say of files there now holds of the same paths in ${s.cwd}.\n</fork-report>`,
      );
      assert.equal(sent[1], "and now?");
      assert.ok(readsCacheOf(body(s, -1), forkLast), "the messages before the note are the fork's, as sent");
    });
  });

  it("a conflicted merge shows a line in the parent's display until :Tine merge done, opens the quickfix list, and <CR> on the line asks the agent to resolve it", async () => {
    await withGitProject(nv, project(), async (s) => {
      // As a user's config does (Neovim 0.12's markdown ftplugin does it too): tree-sitter
      // highlights markdown, and conceals what it takes for markup.
      await s.lua(
        `vim.api.nvim_create_autocmd("FileType", { pattern = "markdown", callback = function(a) pcall(vim.treesitter.start, a.buf) end })`,
      );
      const id = await firstThread(s);
      const a = await editingFork(s, id, "A");
      writeFileSync(join(s.cwd, "hello.txt"), "mine from a fixture\n");
      await s.lua(`require("tine").promote(...)`, a.id);
      await s.waitForDisplay(id, MERGE_LINE);
      await s.until("the quickfix window open", () => s.lua<boolean>("return vim.fn.getqflist({ winid = 0 }).winid ~= 0"));
      // The note to the model says so too.
      await s.waitForDisplay(id, "Its code is merged into");
      // <CR> on the line: the agent is asked, the conflicted file as context.
      s.mock.reply(textReply("Resolved."));
      await s.onDisplayLine(id, MERGE_LINE, "<CR>");
      await s.waitForDisplay(id, "Resolved.\n── end_turn");
      const sent = sentBlocks(s, -1, -1).map(textOf);
      assert.match(sent[0]!, /with conflicts in hello\.txt \(marked in the files\); its worktree .* goes once the user accepts the merge/);
      const ask = sent.at(-1)!;
      assert.match(ask, /^Resolve the merge conflicts in @file:hello\.txt: the merge of the fork "edit as A"/);
      const file = sent.find((t) => t?.includes('path="hello.txt"'));
      assert.ok(file, `the file goes with it: ${sent.join("\n---\n")}`);
      assert.match(file, /<<<<<<< .*\nmine from a fixture\n=======\nA from a fixture\n>>>>>>> /);
      // Still pending after a restart, until accepted; the quickfix list names the conflict again.
      await s.lua("vim.fn.setqflist({}, 'f')");
      await s.cmd("Tine restart");
      await s.open(id);
      await s.waitForDisplay(id, MERGE_LINE);
      await s.until("the quickfix list filled again", async () => {
        const qf = await s.lua<{ name: string; lnum: number }[]>(
          "return vim.tbl_map(function(i) return { name = vim.api.nvim_buf_get_name(i.bufnr), lnum = i.lnum } end, vim.fn.getqflist())",
        );
        return qf.length === 1 && qf[0]!.name === join(s.cwd, "hello.txt") && qf[0]!.lnum === 1;
      });
      writeFileSync(join(s.cwd, "hello.txt"), "A and mine\n");
      await s.cmd("Tine merge done");
      await s.until("the line gone", async () => !(await s.display(id)).includes("⚠ merge of"));
      assert.equal(readFileSync(join(s.cwd, "hello.txt"), "utf8"), "A and mine\n");
    });
  });

  it("a promote into a file still holding an earlier merge's conflict markers is refused, naming it; nothing written, the fork stays", async () => {
    await withGitProject(nv, project(), async (s) => {
      const id = await firstThread(s);
      const a = await editingFork(s, id, "A");
      const b = await editingFork(s, id, "B");
      writeFileSync(join(s.cwd, "hello.txt"), "mine from a fixture\n");
      await s.lua(`require("tine").promote(...)`, a.id);
      await s.waitForDisplay(id, MERGE_LINE);
      const marked = readFileSync(join(s.cwd, "hello.txt"), "utf8");
      assert.match(marked, /^<<<<<<< /m);
      const refused = await s.lua<string>(`return select(2, pcall(require("tine").promote, ...))`, b.id);
      assert.match(
        refused,
        /edit as B is not promoted: hello\.txt here still holds conflict markers \(2 lines\) from an earlier graft or promote: resolve them first .*then promote again\. It stays as it was/,
      );
      assert.equal(readFileSync(join(s.cwd, "hello.txt"), "utf8"), marked, "no markers nested in new ones");
      assert.ok(
        (await s.threads()).some((t) => t.id === b.id),
        "the fork stays",
      );
      // Resolved, the promote goes.
      writeFileSync(join(s.cwd, "hello.txt"), "A and mine\n");
      await s.cmd("Tine merge done");
      await s.lua(`require("tine").promote(...)`, b.id);
      await s.waitForGone(b.id);
    });
  });
});
