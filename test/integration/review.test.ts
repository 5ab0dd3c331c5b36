/**
 * Reviewing a turn's edits hunk by hunk (issue #34), through require("tine"): the hunks a turn
 * made, one kept, one undone in the working file three-way (later edits survive, a clash leaves
 * markers and the quickfix list), `:Tine restore undo` taking the undo back, the review kept
 * across a restart, and bad input refused with the file untouched.
 */
import assert from "node:assert/strict";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { readsCacheOf } from "../helpers/cache-prefix.ts";
import { body, exchange, sentBlocks, textOf } from "../helpers/chat-driver.ts";
import { withGitProject } from "../helpers/code-session.ts";
import type { Session } from "../helpers/neovim.ts";
import { tempProjects } from "../helpers/neovim.ts";
import { api, EDITED, editingTurn, reviewProject, withLine } from "../helpers/review-turn.ts";

const nv = inject("nvim");
const project = tempProjects();

type Hunk = { path: string; index: number; old_start: number; old_lines: number; new_start: number; new_lines: number; state: string };

const states = async (s: Session, id: string) =>
  ((await api<Hunk[]>(s, "hunks", id)) as Hunk[]).map((h) => `${h.path}#${h.index} ${h.state}`);

describe(`reviewing a turn's edits hunk by hunk (${nv.version})`, () => {
  it("lists the turn's hunks; undoes one in the working file keeping a later edit; :Tine restore undo takes the undo back; the review survives a restart", async () => {
    await withGitProject(nv, reviewProject(project()), async (s) => {
      const id = await editingTurn(s);
      assert.deepEqual(await api(s, "hunks", id), [
        { path: "hello.txt", index: 1, old_start: 1, old_lines: 1, new_start: 1, new_lines: 1, state: "pending" },
        { path: "lines.txt", index: 1, old_start: 1, old_lines: 5, new_start: 1, new_lines: 5, state: "pending" },
        { path: "lines.txt", index: 2, old_start: 15, old_lines: 6, new_start: 15, new_lines: 6, state: "pending" },
      ]);
      // The user changes line 10 since the turn: the undo of hunk 1 leaves it.
      const mine = withLine(EDITED, 10, "mine 10");
      writeFileSync(join(s.cwd, "lines.txt"), mine);
      assert.deepEqual(await api(s, "reject_hunk", id, "lines.txt", 1), { path: "lines.txt", index: 1, conflicts: 0 });
      assert.equal(readFileSync(join(s.cwd, "lines.txt"), "utf8"), withLine(mine, 2, "line 2"));
      await s.notified(/undid hunk 1 of lines\.txt \(:Tine restore undo puts it back\)/);
      assert.equal(await api(s, "keep_hunk", id, "lines.txt", 2), true);
      assert.deepEqual(await states(s, id), ["hello.txt#1 pending", "lines.txt#1 undone", "lines.txt#2 kept"]);
      // The undo of the undo: the file as it was before it, the hunk pending again.
      await s.cmd("Tine restore undo");
      await s.until("lines.txt is back", async () => readFileSync(join(s.cwd, "lines.txt"), "utf8") === mine);
      assert.deepEqual(await states(s, id), ["hello.txt#1 pending", "lines.txt#1 pending", "lines.txt#2 kept"]);
      assert.deepEqual(await api(s, "reject_hunk", id, "lines.txt", 1), { path: "lines.txt", index: 1, conflicts: 0 });
      await s.cmd("Tine restart");
      assert.deepEqual(await states(s, id), ["hello.txt#1 pending", "lines.txt#1 undone", "lines.txt#2 kept"]);
      assert.match(String(await api(s, "reject_hunk", id, "lines.txt", 1)), /^tine: review: hunk 1 of lines\.txt is undone already$/);
      // The undo's undo outlives the restart: the file kept on disk comes back.
      await s.cmd("Tine restore undo");
      await s.until("lines.txt is back after a restart", async () => readFileSync(join(s.cwd, "lines.txt"), "utf8") === mine);
    });
  });

  it("the next request carries, after the user's text, the hunks undone (what came back) and the comments; earlier messages as sent; told once", async () => {
    await withGitProject(nv, reviewProject(project()), async (s) => {
      const id = await editingTurn(s);
      const lastAsked = body(s, -1);
      assert.deepEqual(await api(s, "reject_hunk", id, "lines.txt", 1), { path: "lines.txt", index: 1, conflicts: 0 });
      assert.equal(await api(s, "comment_hunk", id, "lines.txt", 2, "why upper\ncase?"), true);
      await s.waitForDisplay(id, "↶ undid lines.txt line 2 · the model is told with your next message");
      await s.waitForDisplay(id, "✎ comment on lines.txt line 18 · the model is told with your next message");
      await exchange(s, id, "go on", "Ok.");
      assert.deepEqual(sentBlocks(s, -1, -1).map(textOf), [
        "go on",
        `[tine] Since your last turn, the user reviewed your edits in the files of this thread (${s.cwd}):\n` +
          "- the user undid your change to lines.txt line 2 (as your turn left the file), so do not make it again unless asked; these lines came back:\n" +
          "    line 2\n" +
          '- the user\'s comment on lines.txt line 18 (as your turn left the file): "why upper case?"\n' +
          "Read a file again before relying on what you knew of it.",
      ]);
      assert.ok(readsCacheOf(body(s, -1), lastAsked), "the messages before the note are as sent");
      assert.ok(!/↶ undid|✎ comment/.test(await s.display(id)), "the note went with the message");
      await exchange(s, id, "again", "Fine.");
      assert.deepEqual(sentBlocks(s, -1, -1).map(textOf), ["again"], "told once");
    });
  });

  it("an undo whose lines changed since gets conflict markers and the quickfix list; nothing is lost", async () => {
    await withGitProject(nv, reviewProject(project()), async (s) => {
      const id = await editingTurn(s);
      writeFileSync(join(s.cwd, "lines.txt"), withLine(EDITED, 2, "mine 2"));
      assert.deepEqual(await api(s, "reject_hunk", id, "lines.txt", 1), { path: "lines.txt", index: 1, conflicts: 1 });
      assert.match(
        readFileSync(join(s.cwd, "lines.txt"), "utf8"),
        /^line 1\n<<<<<<< now\nmine 2\n=======\nline 2\n>>>>>>> undo of hunk 1\n/,
      );
      assert.ok(readFileSync(join(s.cwd, "lines.txt"), "utf8").includes("LINE 18\n"), "the other hunk stays");
      await s.until("the quickfix list names the conflict", async () => {
        const qf = await s.lua<{ name: string; lnum: number }[]>(
          "return vim.tbl_map(function(i) return { name = vim.api.nvim_buf_get_name(i.bufnr), lnum = i.lnum } end, vim.fn.getqflist())",
        );
        return qf.length === 1 && qf[0]!.name === join(s.cwd, "lines.txt") && qf[0]!.lnum === 2;
      });
    });
  });

  it("in the display: the change list opened to a file's hunks, ]h [h between them, gk gc gu keep, comment on and undo the hunk under the cursor, its state at the end of its @@ line", async () => {
    await withGitProject(nv, reviewProject(project()), async (s) => {
      const id = await editingTurn(s);
      await s.answerInput("why upper case?");
      await s.onDisplayLine(id, "▸ 3 files changed", "<Tab>");
      await s.waitForDisplay(id, "  ▸ M lines.txt");
      await s.onDisplayLine(id, "  ▸ M lines.txt", "<Tab>");
      await s.waitForDisplay(id, "▾ M lines.txt");
      const line = () => s.lua<string>("return vim.api.nvim_get_current_line()");
      /** Each `@@` line of the display with the state shown at its end. */
      const shown = () =>
        s.lua<string[]>(`
          local buf = vim.api.nvim_get_current_buf()
          local out = {}
          for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, vim.api.nvim_get_namespaces()["tine_review"], 0, -1, { details = true })) do
            table.insert(out, vim.api.nvim_buf_get_lines(buf, m[2], m[2] + 1, false)[1] .. m[4].virt_text[1][1])
          end
          return out`);
      await s.onDisplayLine(id, "  ▾ M lines.txt", "]h");
      await s.until("]h: on hunk 1", async () => (await line()) === "      @@ -1,5 +1,5 @@");
      await s.keys("]h");
      await s.until("]h: on hunk 2", async () => (await line()) === "      @@ -15,6 +15,6 @@ line 14");
      // Inside hunk 2 (a line of it, not its header): keep it, comment on it.
      await s.keys("jjgk");
      await s.until("hunk 2 kept", async () => (await states(s, id)).includes("lines.txt#2 kept"));
      await s.keys("gc");
      await s.waitForDisplay(id, "✎ comment on lines.txt line 18 · the model is told with your next message");
      await s.keys("[h[h");
      await s.until("[h: on hunk 1", async () => (await line()) === "      @@ -1,5 +1,5 @@");
      await s.keys("gu");
      await s.until("hunk 1 undone on disk", async () => readFileSync(join(s.cwd, "lines.txt"), "utf8") === withLine(EDITED, 2, "line 2"));
      assert.deepEqual(await states(s, id), ["hello.txt#1 pending", "lines.txt#1 undone", "lines.txt#2 kept"]);
      await s.until(
        "the states at the end of the @@ lines",
        async () =>
          JSON.stringify(await shown()) === JSON.stringify(["      @@ -1,5 +1,5 @@  ↶ undone", "      @@ -15,6 +15,6 @@ line 14  ✓ kept"]),
      );
      // Off a hunk, the keys are Vim's own: gk on the summary line reviews nothing.
      await s.onDisplayLine(id, "▾ 3 files changed", "gk");
      assert.deepEqual(await states(s, id), ["hello.txt#1 pending", "lines.txt#1 undone", "lines.txt#2 kept"]);
    });
  });

  it("in the display: each opened hunk's state shows from the moment its diff opens, and follows the review made anywhere (:Tine restore undo, :Tine review, the API)", async () => {
    await withGitProject(nv, reviewProject(project()), async (s) => {
      const id = await editingTurn(s);
      const buf = (await s.thread(id)).bufnr!;
      /** Each `@@` line of the display with the state shown at its end, as one line each. */
      const shown = () =>
        s.lua<string>(
          `local buf = ...
          local out = {}
          for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, vim.api.nvim_get_namespaces()["tine_review"] or -1, 0, -1, { details = true })) do
            table.insert(out, vim.trim(vim.api.nvim_buf_get_lines(buf, m[2], m[2] + 1, false)[1] .. m[4].virt_text[1][1]))
          end
          return table.concat(out, " | ")`,
          buf,
        );
      const showing = async (what: string, want: string) => {
        let last = "";
        try {
          await s.until(what, async () => {
            last = await shown();
            return last === want;
          });
        } catch (error) {
          (error as Error).message += ` (it shows: "${last}")`;
          throw error;
        }
      };
      await s.onDisplayLine(id, "▸ 3 files changed", "<Tab>");
      await s.waitForDisplay(id, "  ▸ M lines.txt");
      await s.onDisplayLine(id, "  ▸ M lines.txt", "<Tab>");
      await showing("the states as the diff opens", "@@ -1,5 +1,5 @@  · pending | @@ -15,6 +15,6 @@ line 14  · pending");
      await s.onDisplayLine(id, "      @@ -1,5 +1,5 @@", "gu");
      await showing("hunk 1 undone", "@@ -1,5 +1,5 @@  ↶ undone | @@ -15,6 +15,6 @@ line 14  · pending");
      await s.cmd("Tine restore undo");
      await showing("the undo taken back: pending", "@@ -1,5 +1,5 @@  · pending | @@ -15,6 +15,6 @@ line 14  · pending");
      assert.equal(await api(s, "keep_hunk", id, "lines.txt", 1), true);
      await showing("kept through the API", "@@ -1,5 +1,5 @@  ✓ kept | @@ -15,6 +15,6 @@ line 14  · pending");
      // In :Tine review (hello.txt first): ]h past its hunk to lines.txt's first, ]h to its second, kept there.
      await s.cmd("Tine review");
      await s.until(
        "the review on hello.txt",
        async () => (await s.lua<{ file: string } | null>("return require('tine.review').current()"))?.file === "hello.txt",
      );
      await s.keys("]h]hgk");
      await showing("kept in :Tine review", "@@ -1,5 +1,5 @@  ✓ kept | @@ -15,6 +15,6 @@ line 14  ✓ kept");
      await s.keys("q");
    });
  });

  it("refuses with a clear message, the file untouched: no such hunk or file, a binary file, a file deleted since, an empty comment, a hunk taken back by hand, a file made binary since", async () => {
    await withGitProject(nv, reviewProject(project()), async (s) => {
      const id = await editingTurn(s);
      rmSync(join(s.cwd, "hello.txt"));
      const refusals = [
        [await api(s, "reject_hunk", id, "lines.txt", 3), /^tine: review: the turn's diff of lines\.txt has 2 hunks: there is no hunk 3$/],
        [await api(s, "keep_hunk", id, "nope.txt", 1), /^tine: review: ".*" has no turn that changed nope\.txt$/],
        [
          await api(s, "reject_hunk", id, "blob.bin", 1),
          /^tine: review: the turn's diff of blob\.bin has no hunk \(a binary file\): there is no hunk 1$/,
        ],
        [
          await api(s, "reject_hunk", id, "hello.txt", 1),
          /^tine: review: hello\.txt is gone since the turn \(deleted or renamed\): nothing is written$/,
        ],
        [await api(s, "comment_hunk", id, "lines.txt", 1, "  "), /^tine: review: a comment needs some text$/],
        [await api(s, "hunks", "no-such-thread"), /^tine: no thread no-such-thread$/],
      ] as const;
      for (const [got, want] of refusals) assert.match(String(got), want);
      assert.equal(readFileSync(join(s.cwd, "lines.txt"), "utf8"), EDITED);
      assert.deepEqual(await states(s, id), ["hello.txt#1 pending", "lines.txt#1 pending", "lines.txt#2 pending"]);
      // A hunk you already took back by hand: nothing to undo. A file made binary since: refused. Both left as they are.
      const byHand = withLine(EDITED, 2, "line 2");
      writeFileSync(join(s.cwd, "lines.txt"), byHand);
      assert.match(
        String(await api(s, "reject_hunk", id, "lines.txt", 1)),
        /^tine: review: lines\.txt holds no line of hunk 1 any more \(changed since\): nothing to undo$/,
      );
      assert.equal(readFileSync(join(s.cwd, "lines.txt"), "utf8"), byHand);
      writeFileSync(join(s.cwd, "lines.txt"), "a\0b");
      assert.match(
        String(await api(s, "reject_hunk", id, "lines.txt", 2)),
        /^tine: review: lines\.txt is a binary file now: only a text file's hunk can be undone$/,
      );
      assert.equal(readFileSync(join(s.cwd, "lines.txt"), "utf8"), "a\0b");
    });
  });
});
