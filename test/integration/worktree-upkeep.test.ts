/**
 * Keeping track of the worktrees tine made: `:checkhealth tine` lists each with the threads that
 * work in it, its changed files and its size, and names a folder no thread refers to (left over)
 * with how to remove it; a reported fork's worktree stays, and `:Tine threads!` says so beside it.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { relative } from "node:path";
import { describe, inject, it } from "vitest";
import { typeAndSend } from "../helpers/chat-driver.ts";
import { editingFork, withGitProject } from "../helpers/code-session.ts";
import { tempProjects } from "../helpers/neovim.ts";
import { textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");
const project = tempProjects();

describe(`worktree upkeep (${nv.version})`, () => {
  it(":checkhealth lists the worktrees with their threads, changed files and size, and names a left-over one with how to remove it; a reported fork's worktree stays and the list says so", async () => {
    await withGitProject(nv, project(), async (s) => {
      s.mock.reply(textReply("Hi."));
      await s.cmd("Tine");
      const root = (await s.threads())[0]!.id;
      await typeAndSend(s, "hi");
      await s.waitForDisplay(root, "Hi.\n── end_turn");
      const a = await editingFork(s, root, "A");
      const b = await editingFork(s, root, "B");
      const c = await editingFork(s, root, "C");
      await s.lua(`require("tine").report(..., "all done")`, b.id);
      await s.waitForDisplay(root, '📨 Report from "edit as B" goes with your next message: all done');
      // Deleting a thread leaves its worktree behind: nothing refers to it any more.
      await s.lua(`require("tine").delete(...)`, c.id);
      await s.waitForGone(c.id);
      assert.ok(existsSync(b.cwd) && existsSync(c.cwd));
      const health = await s.health();
      const line = (path: string) => health.split("\n").find((l) => l.includes(path)) ?? "";
      assert.match(line(a.cwd), new RegExp(`#${a.num} .*edit as A.* · 2 changed files · \\d+\\.\\d MiB`));
      assert.match(line(b.cwd), new RegExp(`#${b.num} .*edit as B.* \\(ended: reported\\) · 2 changed files`));
      assert.match(line(c.cwd), /left over: no thread works in it .* remove it with :!rm -rf /);
      // The reported fork is among the ended ones, its worktree beside it.
      await s.openList(true);
      const ended = await s.listLine("ended (reported)");
      const data = await s.lua<string>("return require('tine.config').options.data_dir");
      assert.match((await s.listLines())[ended - 1]!, new RegExp(`⎇ ${relative(data, b.cwd)}`));
    });
  });
});
