/**
 * `F` on a message whose files differ from now (issue #30): restoring them for a fork that shares
 * its source's folder rewrites the files the source works on, and the question says so; it offers
 * a worktree fork instead, which restores them there and leaves the source's files alone.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { editingTurn, forkCodeChoices, HELLO, withGitProject } from "../helpers/code-session.ts";
import { tempProjects } from "../helpers/neovim.ts";

const nv = inject("nvim");
const project = tempProjects();

const EDITED = "goodbye from a fixture\n";

describe(`the fork's code at a message (${nv.version})`, () => {
  it("the question says a restore rewrites the source's files, and a worktree fork restores them there instead", async () => {
    await withGitProject(nv, project(), async (s) => {
      const id = await editingTurn(s);
      await s.pick(3);
      await s.answerInput("");
      await s.lua("_G.tine_confirms = 0; vim.fn.confirm = function() _G.tine_confirms = _G.tine_confirms + 1; return 1 end");
      await s.onDisplayLine(id, "## You", "F");
      assert.deepEqual((await s.asked()).items, forkCodeChoices(s.cwd));
      await s.waitForThreadCount(2);
      const fork = (await s.threads()).find((t) => t.parent_id === id)!;
      assert.notEqual(fork.cwd, s.cwd);
      assert.equal(readFileSync(join(fork.cwd!, "hello.txt"), "utf8"), HELLO);
      assert.equal(existsSync(join(fork.cwd!, "new.txt")), false);
      // The source's files as its turn left them; nothing asked about them.
      assert.equal(readFileSync(join(s.cwd, "hello.txt"), "utf8"), EDITED);
      assert.equal(existsSync(join(s.cwd, "new.txt")), true);
      assert.equal(await s.lua("return _G.tine_confirms"), 0);
    });
  });

  it("a fork asked for in a worktree (:ForkThread! --worktree) says its restore is there", async () => {
    await withGitProject(nv, project(), async (s) => {
      const id = await editingTurn(s);
      await s.pick(2);
      await s.answerInput("");
      await s.onDisplayLine(id, "## You");
      await s.cmd("ForkThread! --worktree");
      assert.deepEqual((await s.asked()).items, [
        "Keep the code as it is now",
        "Restore the files to this message, in the fork's worktree",
      ]);
      await s.waitForThreadCount(2);
      const fork = (await s.threads()).find((t) => t.parent_id === id)!;
      assert.equal(readFileSync(join(fork.cwd!, "hello.txt"), "utf8"), HELLO);
      assert.equal(readFileSync(join(s.cwd, "hello.txt"), "utf8"), EDITED);
    });
  });
});
