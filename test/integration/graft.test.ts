/**
 * Grafting (issue #32): a live worktree fork's change to one file, whole or one hunk of its diff,
 * brought into its parent's files three-way, the fork left as it was. The parent's display notes
 * each graft, and its next request tells the model after the user's text, earlier messages as sent.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { readsCacheOf } from "../helpers/cache-prefix.ts";
import { body, exchange, sentBlocks, textOf } from "../helpers/chat-driver.ts";
import { editingFork, firstThread, HELLO, SETUP, withGitProject } from "../helpers/code-session.ts";
import { whenDone } from "../helpers/fan-out.ts";
import { gitProject } from "../helpers/git-project.ts";
import type { Session } from "../helpers/neovim.ts";
import { tempProjects, withNeovim } from "../helpers/neovim.ts";
import { LINES, withLine } from "../helpers/review-turn.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");
const project = tempProjects();

type Graft = { path: string; hunk?: number; conflicts: number };

/** `require("tine").graft(from, path, hunk)`: what it returns, or its error. */
async function graft(s: Session, from: string, path: string, hunk?: number): Promise<Graft | string> {
  return s.lua<Graft | string>(
    "local ok, r = pcall(require('tine').graft, ...); if ok then return r end; return tostring(r)",
    from,
    path,
    hunk ?? null,
  );
}

/** A worktree fork of `id` whose turn runs `command` (bash_command); its id and folder. */
async function forkRunning(s: Session, id: string, title: string, command: string): Promise<{ id: string; cwd: string }> {
  s.mock.reply(
    response([{ toolUse: { id: `b-${title.replace(/\W/g, "_")}`, name: "bash_command", input: { command } } }]),
    textReply(`${title} done.`),
  );
  const fork = await s.lua<string>(`return require("tine").fork(..., "${title}", { worktree = true })`, id);
  await s.waitForDisplay(fork, `${title} done.\n── end_turn`);
  await s.waitForStatus(fork, "idle");
  return { id: fork, cwd: (await s.thread(fork)).cwd! };
}

const TWO_HUNKS =
  "sed -i 's/^line 2$/LINE 2/; s/^line 18$/LINE 18/' lines.txt && printf 'fork\\n' > hello.txt && printf 'a\\0b' > blob.bin";

function setUp(cwd: string): string {
  gitProject(cwd, { "hello.txt": HELLO, "lines.txt": LINES });
  return cwd;
}

describe(`grafting a worktree fork's change (${nv.version})`, () => {
  it("a whole file comes into the parent's files, the fork stays live in its worktree, and the parent's next request says so after the user's text", async () => {
    await withGitProject(nv, setUp(project()), async (s) => {
      const id = await firstThread(s);
      const firstAsked = body(s, -1);
      const a = await editingFork(s, id, "A");
      assert.deepEqual(await graft(s, a.id, "hello.txt"), { path: "hello.txt", conflicts: 0 });
      assert.equal(readFileSync(join(s.cwd, "hello.txt"), "utf8"), "A from a fixture\n");
      assert.ok(!existsSync(join(s.cwd, "A.txt")), "only the file asked for");
      assert.deepEqual(await graft(s, a.id, "A.txt"), { path: "A.txt", conflicts: 0 });
      assert.equal(readFileSync(join(s.cwd, "A.txt"), "utf8"), "A\n");
      await s.waitForDisplay(id, '⇡ grafted hello.txt from "edit as A"');
      await s.waitForDisplay(id, '⇡ grafted A.txt from "edit as A"');
      // :Tine restore undo takes the last graft back: its line says so, and the model is not told of it.
      await s.cmd("Tine restore undo");
      await s.until("A.txt is gone again", async () => !existsSync(join(s.cwd, "A.txt")));
      await s.waitForDisplay(id, '⇣ graft of A.txt from "edit as A" undone (:Tine restore undo) · the model is not told of it');
      assert.ok(!(await s.display(id)).includes("⇡ grafted A.txt"));
      assert.deepEqual(await graft(s, a.id, "A.txt"), { path: "A.txt", conflicts: 0 });
      await s.cmd("Tine restore undo");
      await s.until("A.txt is gone once more", async () => !existsSync(join(s.cwd, "A.txt")));
      // The fork is not ended: live, its worktree and its files as they were.
      assert.ok((await s.threads()).some((t) => t.id === a.id));
      assert.equal((await s.thread(a.id)).cwd, a.cwd);
      assert.equal(readFileSync(join(a.cwd, "hello.txt"), "utf8"), "A from a fixture\n");
      await s.open(id);
      await exchange(s, id, "and now?", "Noted.");
      const sent = sentBlocks(s, -1, -1).map(textOf);
      assert.deepEqual(sent, [
        "and now?",
        `[tine] Since your last turn, the user grafted changes from forks into the files of this thread (${s.cwd}):\n` +
          '- hello.txt, the whole file, from the fork "edit as A"\n' +
          "Read a file again before relying on what you knew of it.",
      ]);
      // Earlier messages as they were sent (the prompt cache holds).
      assert.ok(readsCacheOf(body(s, -1), firstAsked), "the messages before the note are as sent");
      await s.waitForDisplay(id, "Noted.\n── end_turn");
      assert.ok(!/⇡ grafted|⇣ graft of/.test(await s.display(id)), "the note went with the message");
      await exchange(s, id, "again", "Ok.");
      assert.deepEqual(sentBlocks(s, -1, -1).map(textOf), ["again"], "told once");
    });
  });

  it("the parent's note waits on disk: after a restart its display still notes the graft and its next message tells the model", async () => {
    await withGitProject(nv, setUp(project()), async (s) => {
      const id = await firstThread(s);
      const f = await forkRunning(s, id, "two hunks", TWO_HUNKS);
      assert.deepEqual(await graft(s, f.id, "lines.txt", 1), { path: "lines.txt", hunk: 1, conflicts: 0 });
      await s.waitForDisplay(id, '⇡ grafted lines.txt (hunk 1) from "two hunks"');
      await s.cmd("Tine restart");
      await s.open(id);
      await s.waitForDisplay(id, '⇡ grafted lines.txt (hunk 1) from "two hunks"');
      await exchange(s, id, "go on", "Ok.");
      assert.deepEqual(sentBlocks(s, -1, -1).map(textOf), [
        "go on",
        `[tine] Since your last turn, the user grafted changes from forks into the files of this thread (${s.cwd}):\n` +
          '- lines.txt, hunk 1 of the fork\'s diff of it, from the fork "two hunks"\n' +
          "Read a file again before relying on what you knew of it.",
      ]);
    });
  });

  it("a fork opened after a restart grafts into its parent still on disk: the parent is opened for it and takes the note", async () => {
    await withGitProject(nv, setUp(project()), async (s) => {
      const id = await firstThread(s);
      const f = await forkRunning(s, id, "two hunks", TWO_HUNKS);
      // The fork the thread tine reopens after the restart, its parent left on disk.
      await s.open(f.id);
      await s.cmd("Tine restart");
      await s.open(f.id);
      assert.deepEqual(await graft(s, f.id, "lines.txt"), { path: "lines.txt", conflicts: 0 });
      assert.equal(readFileSync(join(s.cwd, "lines.txt"), "utf8"), withLine(withLine(LINES, 2, "LINE 2"), 18, "LINE 18"));
      await s.open(id);
      await s.waitForDisplay(id, '⇡ grafted lines.txt from "two hunks"');
    });
  });

  it("one hunk of two is grafted, the other not; the other then merges with the user's own change since the fork point", async () => {
    await withGitProject(nv, setUp(project()), async (s) => {
      const id = await firstThread(s);
      const f = await forkRunning(s, id, "two hunks", TWO_HUNKS);
      assert.deepEqual(await graft(s, f.id, "lines.txt", 2), { path: "lines.txt", hunk: 2, conflicts: 0 });
      assert.equal(readFileSync(join(s.cwd, "lines.txt"), "utf8"), withLine(LINES, 18, "LINE 18"));
      await s.waitForDisplay(id, '⇡ grafted lines.txt (hunk 2) from "two hunks"');
      // The user changes line 10 meanwhile: no conflict with hunk 1.
      const mine = withLine(withLine(LINES, 18, "LINE 18"), 10, "mine 10");
      writeFileSync(join(s.cwd, "lines.txt"), mine);
      assert.deepEqual(await graft(s, f.id, "lines.txt", 1), { path: "lines.txt", hunk: 1, conflicts: 0 });
      assert.equal(readFileSync(join(s.cwd, "lines.txt"), "utf8"), withLine(mine, 2, "LINE 2"));
      assert.equal(readFileSync(join(f.cwd, "lines.txt"), "utf8"), withLine(withLine(LINES, 2, "LINE 2"), 18, "LINE 18"));
    });
  });

  it("a file the user changed since in the same lines gets conflict markers and the quickfix list; nothing is lost", async () => {
    await withGitProject(nv, setUp(project()), async (s) => {
      const id = await firstThread(s);
      const f = await forkRunning(s, id, "two hunks", TWO_HUNKS);
      writeFileSync(join(s.cwd, "hello.txt"), "mine\n");
      assert.deepEqual(await graft(s, f.id, "hello.txt"), { path: "hello.txt", conflicts: 1 });
      assert.match(readFileSync(join(s.cwd, "hello.txt"), "utf8"), /^<<<<<<< .*\nmine\n=======\nfork\n>>>>>>> .*\n$/);
      await s.notified(/grafted hello\.txt from "two hunks" with 1 conflict: it changed here since the fork point/);
      await s.until("the quickfix list names the conflict", async () => {
        const qf = await s.lua<{ name: string; lnum: number }[]>(
          "return vim.tbl_map(function(i) return { name = vim.api.nvim_buf_get_name(i.bufnr), lnum = i.lnum } end, vim.fn.getqflist())",
        );
        return qf.length === 1 && qf[0]!.name === join(s.cwd, "hello.txt") && qf[0]!.lnum === 1;
      });
      await s.waitForDisplay(id, '⇡ grafted hello.txt from "two hunks" (1 conflict: markers in the file)');
      assert.equal(readFileSync(join(f.cwd, "hello.txt"), "utf8"), "fork\n", "the fork's copy stays");
      // Grafted again while its markers are there: refused (a merge would nest them), the file as it was.
      const marked = readFileSync(join(s.cwd, "hello.txt"), "utf8");
      assert.match(
        String(await graft(s, f.id, "hello.txt")),
        /^tine: graft: hello\.txt here still holds conflict markers \(2 lines\) from an earlier graft or promote: resolve them first \(or :Tine restore undo/,
      );
      assert.equal(readFileSync(join(s.cwd, "hello.txt"), "utf8"), marked);
    });
  });

  it("refuses, with a clear message and nothing written: an unknown id, a thread not in a worktree of its own, a path the fork did not change, a hunk out of range, a binary file", async () => {
    await withGitProject(nv, setUp(project()), async (s) => {
      const id = await firstThread(s);
      const f = await forkRunning(s, id, "two hunks", TWO_HUNKS);
      const plain = await s.lua<string>(`return require("tine").fork(..., "")`, id);
      const refusals = [
        [await graft(s, "no-such-thread", "hello.txt"), /^tine: no thread no-such-thread$/],
        [
          await graft(s, f.id, "../hello.txt"),
          /^tine: graft: "\.\.\/hello\.txt" is no file of the project: give its path relative to the project/,
        ],
        [await graft(s, id, "hello.txt"), /^tine: graft: ".*" is not a fork in a worktree of its own: it has no parent$/],
        [await graft(s, plain, "hello.txt"), /is not a fork in a worktree of its own: its changes are in its parent's files already/],
        [
          await graft(s, f.id, "nope.txt"),
          /^tine: graft: "two hunks" did not change nope\.txt \(it changed blob\.bin, hello\.txt, lines\.txt\)$/,
        ],
        [await graft(s, f.id, "lines.txt", 3), /^tine: graft: the diff of lines\.txt in "two hunks" has 2 hunks: there is no hunk 3$/],
        [
          await graft(s, f.id, "lines.txt", 0),
          /^tine: graft: hunks count from 1 \(hunk 1 is the first of the file's diff\): there is no hunk 0$/,
        ],
        [await graft(s, f.id, "blob.bin"), /^tine: graft: blob\.bin is a binary file: only a text file's change can be grafted$/],
      ] as const;
      for (const [got, want] of refusals) assert.match(String(got), want);
      // A file with unsaved edits in a buffer: refused before anything is written (a later :w would drop the graft).
      await s.cmd(`edit ${join(s.cwd, "hello.txt")}`);
      await s.lua(`vim.api.nvim_buf_set_lines(0, 0, -1, false, { "my unsaved edit" })`);
      assert.match(
        String(await graft(s, f.id, "hello.txt")),
        /^tine: graft: save or undo your edits to hello\.txt first: its buffer has unsaved changes, and the graft would be written under them \(nothing was written\)$/,
      );
      assert.equal(readFileSync(join(s.cwd, "lines.txt"), "utf8"), LINES);
      assert.equal(readFileSync(join(s.cwd, "hello.txt"), "utf8"), HELLO);
      assert.deepEqual(await s.lua("return vim.api.nvim_buf_get_lines(0, 0, -1, false)"), ["my unsaved edit"], "the edits stay");
      assert.ok(!existsSync(join(s.cwd, "blob.bin")));
      assert.ok(!(await s.display(id)).includes("⇡ grafted"));
      // The fork by its number (as a number or a string), the path as ./ names it: grafted.
      const num = (await s.thread(f.id)).num;
      assert.deepEqual(await s.lua("return require('tine').graft(...)", num, "./lines.txt", 1), {
        path: "lines.txt",
        hunk: 1,
        conflicts: 0,
      });
      assert.deepEqual(await graft(s, String(num), "lines.txt", 2), { path: "lines.txt", hunk: 2, conflicts: 0 });
    });
  });

  it("a sibling's graft into the same lines is named as what changed them since the fork point, not the user", async () => {
    await withGitProject(nv, setUp(project()), async (s) => {
      const id = await firstThread(s);
      const one = await forkRunning(s, id, "one", "sed -i 's/^line 2$/ONE 2/' lines.txt");
      const two = await forkRunning(s, id, "two", "sed -i 's/^line 2$/TWO 2/' lines.txt");
      assert.deepEqual(await graft(s, one.id, "lines.txt", 1), { path: "lines.txt", hunk: 1, conflicts: 0 });
      assert.deepEqual(await graft(s, two.id, "lines.txt", 1), { path: "lines.txt", hunk: 1, conflicts: 1 });
      const told = await s.notified(/grafted lines\.txt \(hunk 1\) from "two" with 1 conflict/);
      assert.match(
        told,
        /: the graft of lines\.txt \(hunk 1\) from "one" changed it here since the fork point; the markers are in the quickfix list$/,
      );
      assert.doesNotMatch(told, /by you/);
      assert.match(readFileSync(join(s.cwd, "lines.txt"), "utf8"), /<<<<<<< .*\nONE 2\n=======\nTWO 2\n>>>>>>> /);
    });
  });

  it("a fan-out fork whose change was grafted (the file changed here since) is promoted with nothing to merge, said so; its siblings keep their places", async () => {
    await withGitProject(nv, setUp(project()), async (s) => {
      const id = await firstThread(s);
      // Each fork changes line 2 of lines.txt.
      s.mock.otherwise((req) => {
        const last = req.body.messages.at(-1)!;
        if (Array.isArray(last.content) && last.content.some((b) => b.type === "tool_result")) return textReply("Done.");
        return response([{ toolUse: { id: "b-2", name: "bash_command", input: { command: "sed -i 's/^line 2$/LINE 2/' lines.txt" } } }]);
      });
      const ids = await s.lua<string[]>(`return require("tine").fanout(..., "change line 2", { n = 3 })`, id);
      await whenDone(s, id);
      // The source goes on meanwhile: a promote moves what it said since to a thread beside it.
      s.mock.reply(textReply("Noted."));
      await s.lua(`require("tine").send(..., "meanwhile")`, id);
      await s.waitForDisplay(id, "Noted.\n── end_turn");
      const a = ids[0]!;
      assert.deepEqual(await graft(s, a, "lines.txt"), { path: "lines.txt", conflicts: 0 });
      // The user changes line 18 since: the file holds the fork's change and more.
      const mine = withLine(withLine(LINES, 2, "LINE 2"), 18, "mine 18");
      writeFileSync(join(s.cwd, "lines.txt"), mine);
      await s.lua(`require("tine").promote(...)`, a);
      await s.notified(/: nothing to merge: the source has its changes already$/);
      assert.equal(readFileSync(join(s.cwd, "lines.txt"), "utf8"), mine);
      assert.equal((await s.notifications()).filter((n) => /its code is merged/.test(n.msg)).length, 0);
      // The note the source's next message carries says the same.
      const shown = await s.waitForDisplay(id, "goes with your next message: [tine] Its code had nothing to merge: ");
      assert.doesNotMatch(shown, /Its code is merged/);
      // Its note of the fan-out keeps the count it was made with, as its forks' do.
      assert.match(shown, /⑂×3 fan-out: change line 2 · :Tine compare/);
      // After a restart too, while forks of it remain.
      await s.cmd("Tine restart");
      await s.waitForDisplay(id, "⑂×3 fan-out: change line 2 · :Tine compare");
      // The others keep the places they were made in: "2/3" stays 2/3, as their titles say.
      await s.openList();
      const rows = await s.listLines();
      for (const f of ids.slice(1)) {
        const { num } = await s.thread(f);
        assert.match(rows.find((l) => l.includes(`#${num} `)) ?? "", new RegExp(`⑂×3 ${ids.indexOf(f) + 1}/3 `), rows.join("\n"));
      }
    });
  });

  it("into a parent open for writing in another Neovim (read-only here): refused, saying so, and nothing written", async () => {
    const cwd = setUp(project());
    await withGitProject(nv, cwd, async (first) => {
      const id = await firstThread(first);
      const f = await forkRunning(first, id, "two hunks", TWO_HUNKS);
      const firstPid = await first.hostPid();
      await withNeovim(
        nv,
        async (second) => {
          await second.openList();
          await second.open(f.id);
          assert.equal(
            await graft(second, f.id, "lines.txt"),
            `tine: graft: "hi" is open for writing in another Neovim (pid ${firstPid}): it is read-only here, so nothing is grafted into its files (graft from that Neovim, or once it is closed there)`,
          );
          assert.equal(readFileSync(join(cwd, "lines.txt"), "utf8"), LINES);
          assert.ok(!(await second.display(id)).includes("⇡ grafted"));
        },
        { cwd, setup: SETUP },
      );
      assert.ok(!(await first.display(id)).includes("⇡ grafted"));
    });
  });
});
