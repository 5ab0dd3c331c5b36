/**
 * Forks in git worktrees of their own, as a user meets them in real Neovim and real git
 * repositories: each fork's tools work in its own tree (the user's and the other forks' files
 * untouched), a promote merges the fork's work back (conflicts marked and in the quickfix list,
 * nothing lost), a report sums up its changes, a discard removes its worktree, and a project
 * without git says why it cannot. The user's repository (index, refs, config, HEAD) is compared
 * before and after every test.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, inject, it } from "vitest";
import { exchange, sentBlocks, textOf, typeAndSend } from "../helpers/chat-driver.ts";
import { editingFork, firstThread } from "../helpers/code-session.ts";
import { gitProject, type UserGitState, userGitState } from "../helpers/git-project.ts";
import { type Session, tempProjects, withNeovim } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");
const project = tempProjects();

const HELLO = "hello from a fixture\n";
const SETUP = { tools_needing_approval: [] };

/** The parts of the user's repository tine never writes. */
const untouched = (st: UserGitState) => ({ index: st.index, refs: st.refs, config: st.config, head: st.head });

async function withGitProject(fn: (s: Session, before: UserGitState) => Promise<void>, setup = {}): Promise<void> {
  const cwd = project();
  gitProject(cwd, { "hello.txt": HELLO });
  const before = userGitState(cwd);
  await withNeovim(nv, (s) => fn(s, before), { cwd, setup: { ...SETUP, ...setup } });
  assert.deepEqual(untouched(userGitState(cwd)), untouched(before));
}

describe(`worktree forks (${nv.version})`, () => {
  it("two worktree forks editing the same file leave each other's files and the user's tree untouched", async () => {
    await withGitProject(async (s, before) => {
      const id = await firstThread(s);
      const a = await editingFork(s, id, "A");
      const b = await editingFork(s, id, "B");
      assert.notEqual(a.cwd, s.cwd);
      assert.notEqual(a.cwd, b.cwd);
      assert.equal(readFileSync(join(a.cwd, "hello.txt"), "utf8"), "A from a fixture\n");
      assert.equal(readFileSync(join(b.cwd, "hello.txt"), "utf8"), "B from a fixture\n");
      assert.equal(existsSync(join(a.cwd, "B.txt")), false);
      assert.equal(existsSync(join(b.cwd, "A.txt")), false);
      // The user's tree, and what git says of it, as before.
      assert.equal(readFileSync(join(s.cwd, "hello.txt"), "utf8"), HELLO);
      assert.equal(existsSync(join(s.cwd, "A.txt")), false);
      assert.equal(userGitState(s.cwd).status, before.status);
      // Where each works, and what its turns changed (snapshots of its own tree).
      assert.equal((await s.thread(id)).cwd, s.cwd);
      assert.deepEqual((await s.thread(a.id)).changed_files, ["A.txt", "hello.txt"]);
      assert.match(await s.display(a.id), new RegExp(`⎇ Works in a git worktree of its own: ${a.cwd}`));
      // The list names a worktree by its place in the data folder, not its long absolute path.
      await s.openList();
      const shown = relative(await s.lua<string>("return require('tine.config').options.data_dir"), b.cwd);
      assert.match(shown, /^worktrees\/[^/]+\/\d+-[0-9a-f]{8}$/);
      await s.listLine(`⎇ ${shown}`);
      assert.ok(!(await s.listText()).includes(b.cwd), await s.listText());
      // <CR> on a file of the fork's change list opens the worktree's copy.
      await s.onDisplayLine(a.id, "▸ 2 files changed", "<Tab>");
      await s.waitForDisplay(a.id, "▸ M hello.txt");
      await s.onDisplayLine(a.id, "  ▸ M hello.txt", "<CR>");
      const name = await s.lua<string>("return vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(vim.fn.win_getid(2)))");
      assert.equal(name, join(a.cwd, "hello.txt"));
    });
  });

  it("a promote with a conflict leaves markers and a quickfix entry, loses neither side, and keeps the worktree until the merge is accepted", async () => {
    await withGitProject(async (s) => {
      const id = await firstThread(s);
      const a = await editingFork(s, id, "A");
      // Meanwhile the user changes the same line.
      writeFileSync(join(s.cwd, "hello.txt"), "mine from a fixture\n");
      await s.lua(`require("tine").promote(...)`, a.id);
      const merged = readFileSync(join(s.cwd, "hello.txt"), "utf8");
      assert.match(merged, /^<<<<<<< .*\nmine from a fixture\n=======\nA from a fixture\n>>>>>>> .*\n$/);
      // The file only the fork made is applied.
      assert.equal(readFileSync(join(s.cwd, "A.txt"), "utf8"), "A\n");
      await s.until("the quickfix list names the conflict", async () => {
        const qf = await s.lua<{ name: string; lnum: number }[]>(
          "return vim.tbl_map(function(i) return { name = vim.api.nvim_buf_get_name(i.bufnr), lnum = i.lnum } end, vim.fn.getqflist())",
        );
        return qf.length === 1 && qf[0]!.name === join(s.cwd, "hello.txt") && qf[0]!.lnum === 1;
      });
      assert.match(await s.notified(/its code is merged with 1 conflict/), /hello\.txt/);
      assert.equal(readFileSync(join(a.cwd, "hello.txt"), "utf8"), "A from a fixture\n");
      await assert.rejects(s.lua(`require("tine.worktree").merge_done()`), /conflict markers are left in hello\.txt/);
      writeFileSync(join(s.cwd, "hello.txt"), "A and mine\n");
      assert.equal(await s.lua(`return require("tine.worktree").merge_done()`), 1);
      assert.equal(existsSync(a.cwd), false);
    });
  });

  it(":Tine merge done keeps a worktree a live thread still works in (a fork of the promoted fork)", async () => {
    await withGitProject(async (s) => {
      const id = await firstThread(s);
      const a = await editingFork(s, id, "A");
      s.mock.reply(textReply("B here."));
      const b = await s.lua<string>(`return require("tine").fork(..., "look around", { worktree = false })`, a.id);
      await s.waitForDisplay(b, "B here.\n── end_turn");
      assert.equal((await s.thread(b)).cwd, a.cwd);
      writeFileSync(join(s.cwd, "hello.txt"), "mine from a fixture\n");
      await s.lua(`require("tine").promote(...)`, a.id);
      await s.notified(/its code is merged with 1 conflict/);
      assert.equal(await s.lua(`return require("tine.worktree").merge_done(true)`), 1);
      // B still works there: its folder and its files stay.
      assert.equal(readFileSync(join(a.cwd, "hello.txt"), "utf8"), "A from a fixture\n");
      assert.equal((await s.thread(b)).cwd, a.cwd);
    });
  });

  it("a clean promote applies the fork's work and removes its worktree", async () => {
    await withGitProject(async (s) => {
      const id = await firstThread(s);
      const a = await editingFork(s, id, "A");
      await s.lua(`require("tine").promote(...)`, a.id);
      assert.equal(readFileSync(join(s.cwd, "hello.txt"), "utf8"), "A from a fixture\n");
      assert.equal(readFileSync(join(s.cwd, "A.txt"), "utf8"), "A\n");
      await s.notified(/its code is merged: 2 files changed/);
      assert.equal(existsSync(a.cwd), false);
    });
  });

  it("a worktree fork's report reaches its parent as one report: its finding, then what its code changed", async () => {
    await withGitProject(async (s) => {
      const id = await firstThread(s);
      const a = await editingFork(s, id, "A");
      await s.lua(`require("tine").report(..., "all done")`, a.id);
      await s.waitForGone(a.id, "the report");
      const shown = await s.waitForDisplay(id, '📨 Report from "edit as A" goes with your next message: all done');
      assert.equal(shown.match(/📨/g)?.length, 1, "one report waits");
      // Shown whole, as it goes to the model: what its code changed too, under the finding.
      assert.match(
        shown,
        /goes with your next message: all done\n\nIts code, in its worktree .*: 2 files changed \(\+2 −1\)\n {2}A A\.txt/,
      );
      await s.open(id);
      await exchange(s, id, "and?", "Noted.");
      const sent = sentBlocks(s, -1, -1).map(textOf);
      assert.equal(sent.length, 2, "one report block, then the message");
      assert.match(
        sent[0]!,
        /^<fork-report from="edit as A">\nall done\n\nIts code, in its worktree .*: 2 files changed \(\+2 −1\)\n {2}A A\.txt/,
      );
      assert.equal(sent[1], "and?");
    });
  });

  it("a discard removes its worktree after saying how many changed files go", async () => {
    await withGitProject(async (s) => {
      const id = await firstThread(s);
      const b = await editingFork(s, id, "B");
      await s.lua(`require("tine").discard(...)`, b.id);
      await s.notified(/its worktree is removed with 2 changed files/);
      await s.until("the worktree is gone", async () => !existsSync(b.cwd));
      assert.equal(readFileSync(join(s.cwd, "hello.txt"), "utf8"), HELLO);
    });
  });

  it("an @bg fork works in a worktree of its own by default (fork_worktree = background)", async () => {
    await withGitProject(async (s) => {
      const id = await firstThread(s);
      s.mock.reply(
        response([{ toolUse: { id: "b1", name: "bash_command", input: { command: "printf 'bg\\n' > bg.txt" } } }]),
        textReply("bg done."),
      );
      await typeAndSend(s, "@bg make bg.txt");
      await s.waitForDisplay(id, "goes with your next message: bg done.");
      await exchange(s, id, "and?", "Noted.");
      assert.match(
        textOf(sentBlocks(s, -1, -1)[0])!,
        /^<fork-report .*\nbg done\.\n\nIts code, in its worktree .*: 1 file changed \(\+1 −0\)/,
      );
      assert.equal(existsSync(join(s.cwd, "bg.txt")), false);
    });
  });

  it("after :Tine restart a worktree fork still works in its worktree (its transcript keeps it)", async () => {
    await withGitProject(async (s) => {
      const id = await firstThread(s);
      const a = await editingFork(s, id, "A");
      await s.cmd("Tine restart");
      await s.open(a.id);
      assert.equal((await s.thread(a.id)).cwd, a.cwd);
      s.mock.reply(
        response([{ toolUse: { id: "b2", name: "bash_command", input: { command: "printf 'later\\n' > later.txt" } } }]),
        textReply("later done."),
      );
      await typeAndSend(s, "once more");
      await s.waitForDisplay(a.id, "later done.\n── end_turn");
      assert.equal(readFileSync(join(a.cwd, "later.txt"), "utf8"), "later\n");
      assert.equal(existsSync(join(s.cwd, "later.txt")), false);
    });
  });

  it("a project without git: --worktree says why it cannot", async () => {
    await withNeovim(
      nv,
      async (s) => {
        const id = await firstThread(s);
        await assert.rejects(
          s.lua(`require("tine").fork(..., "x", { worktree = true })`, id),
          /needs code snapshots, and they are off: .* is not in a git repository/,
        );
        await typeAndSend(s, "@fork --worktree try it");
        await s.notified(/needs code snapshots, and they are off: .* is not in a git repository/);
        assert.equal((await s.threads()).length, 1);
      },
      { setup: SETUP },
    );
  });
});
