/**
 * `:Tine diff` with code: below the two branches' messages, the files their latest snapshots
 * differ in (with +/−), each opened by <CR> as both snapshots hold it, in diff mode; for live
 * threads and for stored ones not opened. Two forks edit the same files through edit_file.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { editingTurn, withGitProject } from "../helpers/code-session.ts";
import { type Session, tempProjects } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");
const project = tempProjects();

const edit = (id: string, path: string, find: string, replace: string) => ({
  toolUse: { id, name: "edit_file", input: { path, find, replace } },
});

/** A fork of `source` whose turn makes `edits`; its number once the turn's change list (`changed`) shows under its reply. */
async function editingFork(s: Session, source: string, prompt: string, edits: ReturnType<typeof edit>[], changed: string): Promise<number> {
  s.mock.reply(response(edits), textReply(`${prompt}: done.`));
  const id = await s.lua<string>(`local id, prompt = ...; return require("tine").fork(id, prompt)`, source, prompt);
  const esc = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  await s.waitForDisplay(id, new RegExp(`${esc(`${prompt}: done.`)}\n── end_turn.*\n${esc(changed)}`));
  return (await s.thread(id)).num;
}

/** The lines of the window whose buffer's name starts with `prefix`, in the current tab. */
async function windowLines(s: Session, prefix: string): Promise<string[]> {
  return s.lua<string[]>(
    `for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
       local b = vim.api.nvim_win_get_buf(w)
       if vim.startswith(vim.api.nvim_buf_get_name(b), ...) then return vim.api.nvim_buf_get_lines(b, 0, -1, false) end
     end
     return {}`,
    prefix,
  );
}

const FILES = /^Files: 2 differ between .+ \(\+\) and .+ \(−\) · <CR> opens one$/;

describe(`:Tine diff with code (${nv.version})`, () => {
  it("lists the files two forks' latest snapshots differ in; <CR> opens one as each holds it, in diff mode; stored threads too", async () => {
    const cwd = project();
    let nums: [number, number] = [0, 0];
    await withGitProject(nv, cwd, async (s) => {
      const root = await editingTurn(s);
      const a = await editingFork(s, root, "way A", [edit("ea", "hello.txt", "goodbye", "goodbye A")], "▸ 1 file changed (+1 −1)");
      const b = await editingFork(
        s,
        root,
        "way B",
        [edit("eb", "hello.txt", "goodbye A", "goodbye B"), edit("eb2", "b.txt", "", "only in B\n")],
        "▸ 2 files changed (+2 −1)",
      );
      nums = [a, b];
      await s.cmd(`Tine diff ${a} ${b}`);
      const files = await windowLines(s, "tine-diff://files/");
      assert.match(files[0]!, FILES);
      assert.deepEqual(files.slice(1), ["  D b.txt  +0 −1", "  M hello.txt  +1 −1"]);
      // The messages are still compared side by side, in diff mode, as before.
      assert.equal(
        await s.lua<number>(`return #vim.tbl_filter(function(w) return vim.wo[w].diff end, vim.api.nvim_tabpage_list_wins(0))`),
        2,
      );
      await s.lua(
        `for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
           if vim.startswith(vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(w)), "tine-diff://files/") then
             vim.api.nvim_set_current_win(w); vim.api.nvim_win_set_cursor(w, { 3, 0 })
           end
         end`,
      );
      await s.keys("<CR>");
      await s.until("the file opened in both snapshots", async () => (await windowLines(s, "tine-snapshot://")).length > 0);
      const sides = await s.lua<{ name: string; diff: boolean; lines: string[] }[]>(`
        return vim.tbl_map(function(w)
          local b = vim.api.nvim_win_get_buf(w)
          return { name = vim.api.nvim_buf_get_name(b), diff = vim.wo[w].diff, lines = vim.api.nvim_buf_get_lines(b, 0, -1, false) }
        end, vim.api.nvim_tabpage_list_wins(0))`);
      assert.deepEqual(
        sides.map((w) => [w.diff, w.lines]),
        [
          [true, ["goodbye A from a fixture"]],
          [true, ["goodbye B from a fixture"]],
        ],
      );
      assert.match(sides[0]!.name, /^tine-snapshot:\/\/.*way A.*\/hello\.txt$/);
    });
    // A new Neovim: the forks are stored, not opened; their code marks come from their transcripts.
    await withGitProject(nv, cwd, async (s) => {
      await s.cmd(`Tine diff ${nums[0]} ${nums[1]}`);
      assert.deepEqual([(await s.thread(nums[0])).status, (await s.thread(nums[1])).status], ["stored", "stored"]);
      const files = await windowLines(s, "tine-diff://files/");
      assert.match(files[0]!, FILES);
      assert.deepEqual(files.slice(1), ["  D b.txt  +0 −1", "  M hello.txt  +1 −1"]);
    });
  });

  it("in a worktree fork, compares with the parent's files as they are now: an edit of the user's there since its last snapshot is no difference", async () => {
    await withGitProject(nv, project(), async (s) => {
      const root = await editingTurn(s);
      // The user edits the parent's tree by hand (no tool): its last snapshot predates this.
      writeFileSync(join(s.cwd, "mine.txt"), "mine\n");
      s.mock.reply(
        response([{ toolUse: { id: "bw", name: "bash_command", input: { command: "printf 'A\\n' > A.txt" } } }]),
        textReply("A done."),
      );
      const fork = await s.lua<string>(`return require("tine").fork(..., "make A", { worktree = true })`, root);
      await s.waitForDisplay(fork, "A done.\n── end_turn");
      await s.waitForStatus(fork, "idle");
      await s.cmd(`Tine diff ${(await s.thread(fork)).num}`);
      const files = await windowLines(s, "tine-diff://files/");
      assert.match(files[0]!, /^Files: 1 differ between make A \(\+\) and .+ \(−\)/);
      assert.deepEqual(files.slice(1), ["  A A.txt  +1 −0"]);
      // Now the parent's tree changes again: the next :Tine diff sees it.
      writeFileSync(join(s.cwd, "new.txt"), "changed\n");
      await s.cmd("tabclose");
      await s.cmd(`Tine diff ${(await s.thread(fork)).num}`);
      assert.deepEqual((await windowLines(s, "tine-diff://files/")).slice(1), ["  A A.txt  +1 −0", "  M new.txt  +2 −1"]);
    });
  });
});
