/**
 * The thread list after forks end (issue #30): in `:Tine threads!` an ended fork keeps its number
 * and label, a promoted worktree fork is among the ended ones (<CR> brings it back, in its
 * worktree as it left it), and the fork a promote makes of the parent's old tail shows its time at once.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { exchange, resultOf, sentBlocks, typeAndSend } from "../helpers/chat-driver.ts";
import { editingFork, firstThread, withGitProject } from "../helpers/code-session.ts";
import { parentAndFork } from "../helpers/fixtures.ts";
import { tempProjects, withNeovim } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");
const project = tempProjects();

describe(`ended forks in the list (${nv.version})`, () => {
  it(":Tine threads! shows an ended fork with its number and label", async () => {
    await withNeovim(nv, async (s) => {
      const { fork } = await parentAndFork(s);
      await s.lua(`require("tine.host").request("label", ..., vim.NIL, "worth keeping")`, fork);
      await s.lua("require('tine').discard(...)", fork);
      await s.waitForGone(fork);
      await s.openList(true);
      const at = await s.listLine("○ ended (discarded)");
      assert.match((await s.listLines())[at - 1]!, /^ +#2 {2}explore a tangent {2}🏷 worth keeping {2}○ ended \(discarded\) · 4 msgs · /);
    });
  });

  it("a promoted worktree fork is listed among the ended ones; <CR> brings it back in its worktree as it left it", async () => {
    await withGitProject(nv, project(), async (s) => {
      const id = await firstThread(s);
      const a = await editingFork(s, id, "A");
      await s.lua(`require("tine").promote(...)`, a.id);
      await s.notified(/its code is merged: 2 files changed/);
      await s.openList(true);
      const at = await s.listLine("○ ended (promoted)");
      assert.match((await s.listLines())[at - 1]!, new RegExp(`^ +#${a.num} {2}edit as A {2}○ ended \\(promoted\\) · `));
      await s.onListLine(at, "<CR>");
      await s.until("the fork back and open", async () => (await s.lua("return require('tine').current()")) === a.id);
      assert.equal((await s.thread(a.id)).cwd, a.cwd);
      // Its worktree is made again from its last snapshot before its tools run there.
      s.mock.reply(
        response([{ toolUse: { id: "c1", name: "bash_command", input: { command: "cat hello.txt A.txt" } } }]),
        textReply("Back."),
      );
      await typeAndSend(s, "still there?");
      await s.waitForDisplay(a.id, "Back.\n── end_turn");
      assert.equal(resultOf(sentBlocks(s, -1, -1)[0]), "A from a fixture\nA\n");
      assert.equal(readFileSync(join(s.cwd, "hello.txt"), "utf8"), "A from a fixture\n", "the parent's files as the promote left them");
    });
  });

  it("the fork a promote makes of the parent's old tail is listed with its time at once", async () => {
    await withNeovim(nv, async (s) => {
      const { parent, fork } = await parentAndFork(s);
      await s.open(parent);
      await exchange(s, parent, "more here", "More.");
      await s.lua("require('tine').promote(...)", fork);
      await s.waitForGone(fork);
      const tail = (await s.threads()).find((t) => t.parent_id === parent)!;
      assert.equal(typeof tail.updated, "number", "threads() gives its time");
      await s.openList();
      const at = await s.listLine(`#${tail.num}`);
      assert.match((await s.listLines())[at - 1]!, / · \d\d:\d\d/);
    });
  });
});
