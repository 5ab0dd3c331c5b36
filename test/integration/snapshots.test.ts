/**
 * Code snapshots as a user meets them, in real Neovim and real git repositories: a turn's change
 * list under its reply, :Tine restore and its undo, files changed by hand left alone, and a
 * project without git. The user's repository (index, refs, config, HEAD) is compared before and
 * after every test.
 */
import assert from "node:assert/strict";
import { existsSync, lstatSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { typeAndSend } from "../helpers/chat-driver.ts";
import { editingTurn, forkCodeChoices, HELLO, SETUP, withGitProject as withProject } from "../helpers/code-session.ts";
import { gitProject, type UserGitState, userGitState } from "../helpers/git-project.ts";
import { type Session, tempProjects, withNeovim } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");
const project = tempProjects();

const withGitProject = (fn: (s: Session, before: UserGitState) => Promise<void>) => withProject(nv, project(), fn);

describe(`code snapshots (${nv.version})`, () => {
  it("a turn that edits files lists them under its reply: <Tab> opens the list, <Tab> on a file shows its diff", async () => {
    await withGitProject(async (s) => {
      const id = await editingTurn(s);
      assert.deepEqual((await s.thread(id)).changed_files, ["hello.txt", "new.txt"]);
      await s.onDisplayLine(id, "▸ 2 files changed", "<Tab>");
      const list = await s.waitForDisplay(id, "▾ 2 files changed (+3 −1)");
      assert.match(list, /▾ 2 files changed \(\+3 −1\)\n {2}▸ M hello\.txt {2}\+1 −1\n {2}▸ A new\.txt {2}\+2 −0\n/);
      await s.onDisplayLine(id, "  ▸ M hello.txt", "<Tab>");
      const diff = await s.waitForDisplay(id, "▾ M hello.txt");
      assert.match(diff, /▾ M hello\.txt {2}\+1 −1\n {6}@@ -1 \+1 @@\n {6}-hello from a fixture\n {6}\+goodbye from a fixture\n/);
    });
  });

  it("<CR> on a changed file opens it beside its state before the turn, in diff mode", async () => {
    await withGitProject(async (s) => {
      const id = await editingTurn(s);
      await s.onDisplayLine(id, "▸ 2 files changed", "<Tab>");
      await s.waitForDisplay(id, "▸ M hello.txt");
      await s.onDisplayLine(id, "  ▸ M hello.txt", "<CR>");
      const wins = await s.lua<{ name: string; diff: boolean; lines: string[] }[]>(`
        return vim.tbl_map(function(w)
          local b = vim.api.nvim_win_get_buf(w)
          return { name = vim.api.nvim_buf_get_name(b), diff = vim.wo[w].diff, lines = vim.api.nvim_buf_get_lines(b, 0, -1, false) }
        end, vim.api.nvim_tabpage_list_wins(0))`);
      assert.equal(wins.length, 2);
      assert.ok(wins.every((w) => w.diff));
      assert.deepEqual(wins[0]!.lines, ["hello from a fixture"]);
      assert.match(wins[1]!.name, /hello\.txt$/);
      assert.deepEqual(wins[1]!.lines, ["goodbye from a fixture"]);
    });
  });

  it("restore then restore undo gives back the exact bytes; a buffer holding a restored file is reloaded", async () => {
    await withGitProject(async (s, before) => {
      const id = await editingTurn(s);
      const after = { hello: readFileSync(join(s.cwd, "hello.txt")), added: readFileSync(join(s.cwd, "new.txt")) };
      await s.cmd(`badd ${join(s.cwd, "hello.txt")}`);
      await s.lua(`vim.fn.bufload(vim.fn.bufnr(...))`, join(s.cwd, "hello.txt"));
      // On the first message, as a user would: it shows what will change and asks.
      await s.answerConfirm(1);
      await s.onDisplayLine(id, "## You");
      await s.cmd("Tine restore");
      await s.notified(/restored 2 files/);
      assert.equal(readFileSync(join(s.cwd, "hello.txt"), "utf8"), HELLO);
      assert.equal(existsSync(join(s.cwd, "new.txt")), false);
      assert.equal(userGitState(s.cwd).status, before.status);
      await s.until("the buffer reloaded", async () => {
        const lines = await s.lua<string[]>(`return vim.api.nvim_buf_get_lines(vim.fn.bufnr(...), 0, -1, false)`, join(s.cwd, "hello.txt"));
        return lines[0] === "hello from a fixture";
      });
      await s.cmd("Tine restore undo");
      await s.notified(/restore undone: 2 files/);
      assert.deepEqual(readFileSync(join(s.cwd, "hello.txt")), after.hello);
      assert.deepEqual(readFileSync(join(s.cwd, "new.txt")), after.added);
    });
  });

  it("a fork restoring the code sent as soon as a turn that edited a file ended restores it: the turn's last snapshot is waited for", async () => {
    await withGitProject(async (s) => {
      await s.cmd("Tine");
      const id = (await s.threads())[0]!.id;
      // Each turn's end is recorded in the background: a restore sent at once raced it (2 runs in 3).
      for (let turn = 1; turn <= 5; turn++) {
        s.mock.reply(
          response([
            { toolUse: { id: `e${turn}`, name: "edit_file", input: { path: "hello.txt", find: "hello", replace: `edit ${turn}` } } },
          ]),
          textReply(`Edit ${turn} done.`),
        );
        const at = (await s.messages(id)).length;
        await s.lua(`require("tine").send(...)`, id, `edit ${turn}`);
        await s.waitForDisplay(id, `Edit ${turn} done.\n── end_turn`);
        await s.lua(`local id, at = ...; require("tine").fork(id, nil, { at_message = at, restore_code = true })`, id, at);
        assert.equal(readFileSync(join(s.cwd, "hello.txt"), "utf8"), HELLO, `turn ${turn}: the agent's edit was taken for the user's`);
        await s.until(`the fork's restore of turn ${turn} told`, async () => {
          const told = (await s.notifications()).filter((n) => /the fork's files/.test(n.msg));
          return told.length === turn;
        });
        assert.equal(
          (await s.notifications()).filter((n) => /the fork's files/.test(n.msg)).at(-1)?.msg,
          "tine: the fork's files: restored 1 to that message",
        );
      }
    });
  });

  it("a file changed by hand since the turn is named and left alone, unless the user says to overwrite it", async () => {
    await withGitProject(async (s) => {
      const id = await editingTurn(s);
      writeFileSync(join(s.cwd, "hello.txt"), "my own words\n");
      const asked = await s.lua<string>(
        `
        local msg
        vim.fn.confirm = function(m) msg = m; return 1 end
        require("tine").restore(..., 0)
        return msg`,
        id,
      );
      assert.match(asked, /Changed since \(left alone unless overwritten\): hello\.txt/);
      assert.match(asked, / {2}M hello\.txt {2}\+1 −1/);
      assert.equal(readFileSync(join(s.cwd, "hello.txt"), "utf8"), "my own words\n");
      assert.equal(existsSync(join(s.cwd, "new.txt")), false);
      assert.match(await s.notified(/restored/), /left alone \(changed since, not overwritten\): hello\.txt/);
      await s.lua(`require("tine").restore_undo()`);
      const overwritten = await s.lua<{ written: string[] }>(
        `return require("tine").restore(..., 0, { confirm = false, overwrite = true })`,
        id,
      );
      assert.deepEqual(overwritten.written.sort(), ["hello.txt", "new.txt"]);
      assert.equal(readFileSync(join(s.cwd, "hello.txt"), "utf8"), HELLO);
    });
  });

  it("a restore where a folder became a link out of the project skips the files under the link, restores the rest and names what it skipped", async () => {
    const cwd = project();
    const outside = project();
    gitProject(cwd, { "hello.txt": HELLO, "lib/a.txt": "inside\n" });
    await withProject(nv, cwd, async (s) => {
      s.mock.reply(
        response([
          {
            toolUse: {
              id: "b1",
              name: "bash_command",
              input: { command: `rm -r lib && ln -s '${outside}' lib && printf 'changed\\n' > hello.txt` },
            },
          },
        ]),
        textReply("Linked."),
      );
      await s.cmd("Tine");
      const id = (await s.threads())[0]!.id;
      await typeAndSend(s, "link lib");
      // Its snapshots hold the link, not the files beyond it.
      await s.waitForDisplay(id, "▸ 3 files changed");
      const done = await s.lua<{ written: string[]; skipped: string[] }>(`return require("tine").restore(..., 0, { confirm = false })`, id);
      assert.deepEqual(done.written, ["hello.txt"]);
      assert.deepEqual(done.skipped, ["lib", "lib/a.txt"]);
      assert.equal(readFileSync(join(cwd, "hello.txt"), "utf8"), HELLO);
      assert.ok(lstatSync(join(cwd, "lib")).isSymbolicLink(), "the link stays");
      assert.deepEqual(readdirSync(outside), ["hello.txt"], "nothing written out of the project");
      assert.match(
        await s.notified(/restored 1 file/),
        /restored 1 file; skipped \(a link out of the project, and what is under it\): lib, lib\/a\.txt/,
      );
    });
  });

  it("F on a message asks whether the fork keeps the code; restoring gives the files as they were there", async () => {
    await withGitProject(async (s) => {
      const id = await editingTurn(s);
      await s.pick(2);
      await s.answerConfirm(1);
      await s.answerInput("");
      await s.onDisplayLine(id, "## You", "F");
      assert.deepEqual((await s.asked()).items, forkCodeChoices(s.cwd));
      await s.waitForThreadCount(2);
      assert.equal(readFileSync(join(s.cwd, "hello.txt"), "utf8"), HELLO);
      assert.equal(existsSync(join(s.cwd, "new.txt")), false);
      // From Lua: the files of message 0 again, after an undo, without asking.
      await s.lua(`require("tine").restore_undo()`);
      assert.equal(existsSync(join(s.cwd, "new.txt")), true);
      await s.lua(`require("tine").fork(..., "", { at_message = 0, restore_code = true })`, id);
      await s.waitForThreadCount(3);
      assert.equal(readFileSync(join(s.cwd, "hello.txt"), "utf8"), HELLO);
      assert.equal(existsSync(join(s.cwd, "new.txt")), false);
    });
  });

  it("F asks everything before it writes: <Esc> at the prompt after choosing to restore changes no file and makes no fork", async () => {
    await withGitProject(async (s) => {
      const id = await editingTurn(s);
      await s.pick(2);
      await s.answerConfirm(1);
      await s.lua("vim.ui.input = function(opts, cb) _G.tine_asked_prompt = opts.prompt; cb(nil) end");
      await s.onDisplayLine(id, "## You", "F");
      assert.match((await s.asked()).prompt ?? "", /Fork prompt/, "the prompt was asked, and cancelled");
      assert.equal((await s.threads()).length, 1, "no fork");
      assert.equal(readFileSync(join(s.cwd, "hello.txt"), "utf8"), "goodbye from a fixture\n", "hello.txt untouched");
      assert.equal(existsSync(join(s.cwd, "new.txt")), true, "new.txt untouched");
      assert.ok(!(await s.notifications()).some((n) => /restored/.test(n.msg)), "nothing restored");
    });
  });

  it("visual F asks about the code as F does: restoring gives the files as they were, <Esc> there forks nothing", async () => {
    await withGitProject(async (s) => {
      const id = await editingTurn(s);
      // <Esc> at the code question: nothing.
      await s.pick(4);
      await s.onDisplayLine(id, "## You", "VF");
      assert.deepEqual((await s.asked()).items, forkCodeChoices(s.cwd));
      assert.equal((await s.threads()).length, 1, "no fork");
      // Restore: the files as they were at that message, the selection quoted in the fork's input.
      s.mock.reply(textReply("Answered again."));
      await s.pick(2);
      await s.answerConfirm(1);
      await s.onDisplayLine(id, "## You", "VF");
      await s.waitForThreadCount(2);
      assert.equal(readFileSync(join(s.cwd, "hello.txt"), "utf8"), HELLO);
      assert.equal(existsSync(join(s.cwd, "new.txt")), false);
      const fork = (await s.threads()).find((t) => t.parent_id === id)!;
      assert.deepEqual(await s.lines(fork.input_bufnr!), ["> ## You", ""]);
    });
  });

  it("a project without git works without snapshots, and says so once", async () => {
    await withNeovim(
      nv,
      async (s) => {
        s.mock.reply(
          response([{ toolUse: { id: "b1", name: "bash_command", input: { command: "echo one > a.txt" } } }]),
          textReply("First."),
          response([{ toolUse: { id: "b2", name: "bash_command", input: { command: "echo two > a.txt" } } }]),
          textReply("Second."),
        );
        await s.cmd("Tine");
        const id = (await s.threads())[0]!.id;
        await typeAndSend(s, "one");
        await s.waitForDisplay(id, "First.\n── end_turn");
        await s.waitForStatus(id, "idle");
        await typeAndSend(s, "two");
        await s.waitForDisplay(id, "Second.\n── end_turn");
        assert.equal(readFileSync(join(s.cwd, "a.txt"), "utf8"), "two\n");
        const off = (await s.notifications()).filter((n) => /code snapshots are off/.test(n.msg));
        assert.equal(off.length, 1);
        assert.match(off[0]!.msg, /is not in a git repository/);
        assert.doesNotMatch(await s.display(id), /files? changed/);
        await assert.rejects(s.lua(`require("tine").restore(..., 0, { confirm = false })`, id), /code snapshots are off/);
        assert.match(await s.health(), /code snapshots[\s\S]*off: .* is not in a git repository/);
      },
      { setup: SETUP },
    );
  });
});
