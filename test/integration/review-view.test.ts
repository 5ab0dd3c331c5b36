/**
 * Reviewing a turn in Neovim (issue #34): `:Tine review` shows the turn's files one at a time in
 * diff mode, in a tab of its own (the file before the turn, read only, beside the working file),
 * with the review keys on the hunk under the cursor, file to file, and a way out that leaves the
 * user's windows and mappings as they were; and signs in file buffers on the hunks not reviewed.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { withGitProject } from "../helpers/code-session.ts";
import type { Session } from "../helpers/neovim.ts";
import { tempProjects } from "../helpers/neovim.ts";
import { api, EDITED, editingTurn, LINES, reviewProject, withLine } from "../helpers/review-turn.ts";

const nv = inject("nvim");
const project = tempProjects();

type Shown = { name: string; diff: boolean; modifiable: boolean; text: string; marks: string[] };
type Review = { tabs: number; windows: Shown[]; current: number; row: number; winbar: string };

/** What the current tab shows: each window's buffer (name, diff mode, text, the review's marks), where the cursor is. */
const seen = (s: Session) =>
  s.lua<Review>(`
    local ns = vim.api.nvim_get_namespaces()["tine_review_view"]
    local out = { tabs = #vim.api.nvim_list_tabpages(), windows = {} }
    for i, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
      local b = vim.api.nvim_win_get_buf(w)
      local marks = {}
      for _, m in ipairs(ns and vim.api.nvim_buf_get_extmarks(b, ns, 0, -1, { details = true }) or {}) do
        table.insert(marks, (m[2] + 1) .. ":" .. m[4].virt_text[1][1])
      end
      out.windows[i] = {
        name = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(b), ":."),
        diff = vim.wo[w].diff,
        modifiable = vim.bo[b].modifiable,
        text = table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), "\\n") .. "\\n",
        marks = marks,
      }
      if w == vim.api.nvim_get_current_win() then out.current = i end
    end
    out.row = vim.api.nvim_win_get_cursor(0)[1]
    out.winbar = vim.wo.winbar == "" and "" or vim.api.nvim_eval_statusline(vim.wo.winbar, { winid = 0, use_winbar = true }).str
    return out`);

/** The signs tine put in `path`'s buffer: the rows (from 1) that have one. */
const signRows = (s: Session, path: string) =>
  s.lua<number[]>(
    `local ns = vim.api.nvim_get_namespaces()["tine_review_signs"]
     local buf = vim.fn.bufnr(...)
     if not ns or buf == -1 then return {} end
     local rows = {}
     for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, ns, 0, -1, { details = true })) do
       if m[4].sign_text then table.insert(rows, m[2] + 1) end
     end
     table.sort(rows)
     return rows`,
    path,
  );

const BEFORE = "tine://review/lines.txt (before the turn)";

describe(`:Tine review and the review's signs (${nv.version})`, () => {
  it(":Tine review: the turn's files in diff mode in a tab of its own; ]h [h across files, gk gu gc on the hunk under the cursor, ]f [f; q puts the user's windows and mappings back", async () => {
    await withGitProject(nv, reviewProject(project()), async (s) => {
      const id = await editingTurn(s);
      // The user is in lines.txt, which has a buffer-local ]h of its own (as gitsigns maps it).
      await s.cmd("wincmd p");
      await s.cmd("edit lines.txt");
      await s.lua(`vim.keymap.set("n", "]h", "<Cmd>let g:mine = 1<CR>", { buffer = true, desc = "my next hunk" })`);
      const layout = () => s.lua<unknown>("return { vim.fn.winlayout(), vim.api.nvim_get_current_win(), #vim.api.nvim_list_tabpages() }");
      const before = await layout();

      await s.cmd("Tine review");
      let v = await seen(s);
      assert.equal(v.tabs, 2, "a tab of its own");
      assert.deepEqual(
        v.windows.map((w) => [w.name, w.diff, w.modifiable, w.text]),
        [
          [BEFORE, true, false, LINES],
          ["lines.txt", true, true, EDITED],
        ],
        "started on the file the user was in: the turn's before, read only, beside the working file",
      );
      assert.deepEqual([v.current, v.row], [2, 2], "on the first hunk's changed line, in the working file");
      assert.equal(v.winbar, "#1 lines.txt (2/2)  0/2 reviewed", "in a window 40 wide, the essentials");
      assert.deepEqual(v.windows[1]!.marks, ["2:  hunk 1 · pending", "18:  hunk 2 · pending"]);

      // In the window of the text before the turn, the keys go by its lines.
      await s.cmd("wincmd h");
      await s.keys("gg]h");
      assert.deepEqual([(await seen(s)).current, (await seen(s)).row], [1, 2]);
      await s.cmd("wincmd l");
      await s.keys("]h");
      assert.equal((await seen(s)).row, 18);
      await s.keys("gk");
      await s.until("hunk 2 kept, drawn", async () => (await seen(s)).windows[1]!.marks.includes("18:  hunk 2 ✓ kept"));
      await s.answerInput("why upper case?");
      await s.keys("gc");
      await s.waitForDisplay(id, "✎ comment on lines.txt line 18 · the model is told with your next message");
      await s.keys("[h");
      assert.equal((await seen(s)).row, 2);
      await s.keys("gu");
      await s.until("hunk 1 undone on disk", async () => readFileSync(join(s.cwd, "lines.txt"), "utf8") === withLine(EDITED, 2, "line 2"));
      await s.until("the working file reloaded, hunk 1 drawn undone", async () => {
        const w = (await seen(s)).windows[1]!;
        return w.text === withLine(EDITED, 2, "line 2") && w.marks.includes("2:  hunk 1 ↶ undone");
      });
      assert.deepEqual(
        ((await api<{ path: string; index: number; state: string }[]>(s, "hunks", id)) as { state: string }[]).map((h) => h.state),
        ["pending", "undone", "kept"],
      );
      assert.match((await seen(s)).winbar, /2\/2 reviewed/);
      // Off a hunk (line 14: hunk 2 is lines 15-20), gk is Vim's own: a line up, nothing reviewed.
      await s.keys("14Ggk");
      assert.equal((await seen(s)).row, 13);

      // Before the first hunk of lines.txt: the previous file's last hunk.
      await s.keys("gg[h");
      v = await seen(s);
      assert.deepEqual(
        v.windows.map((w) => [w.name, w.diff, w.text]),
        [
          ["tine://review/hello.txt (before the turn)", true, "hello\n"],
          ["hello.txt", true, "bye\n"],
        ],
      );
      await s.keys("]f");
      assert.deepEqual(
        (await seen(s)).windows.map((w) => w.name),
        [BEFORE, "lines.txt"],
      );
      await s.keys("]f");
      await s.notified(/tine: the turn's last file/);
      await s.keys("[f");
      assert.deepEqual(
        (await seen(s)).windows.map((w) => w.name),
        ["tine://review/hello.txt (before the turn)", "hello.txt"],
      );

      await s.keys("q");
      assert.deepEqual(await layout(), before, "the user's windows as they were");
      const after = await s.lua<{ rhs: string; desc: string; marks: number; scratch: string[]; hello: number }>(`
        local m = vim.fn.maparg("]h", "n", false, true)
        local ns = vim.api.nvim_get_namespaces()["tine_review_view"]
        return {
          rhs = m.rhs, desc = m.desc,
          marks = #vim.api.nvim_buf_get_extmarks(0, ns, 0, -1, {}),
          scratch = vim.tbl_filter(function(n) return n:find("tine://review/") end, vim.tbl_map(vim.api.nvim_buf_get_name, vim.api.nvim_list_bufs())),
          hello = vim.fn.bufloaded("hello.txt"),
        }`);
      assert.deepEqual(after, { rhs: "<Cmd>let g:mine = 1<CR>", desc: "my next hunk", marks: 0, scratch: [], hello: 0 });

      // Closing one of its windows ends it too.
      await s.cmd("Tine review");
      assert.equal((await seen(s)).tabs, 2);
      await s.cmd("wincmd h | quit");
      await s.until("the review's tab is gone", async () => JSON.stringify(await layout()) === JSON.stringify(before));
    });
  });

  it(":Tine review's winbar: the thread and the file first, whole in a narrow window; the key hints only when they fit, else g? keys, which lists them", async () => {
    await withGitProject(nv, reviewProject(project()), async (s) => {
      await editingTurn(s);
      await s.cmd("set columns=240");
      await s.cmd("Tine review");
      const bar = (cols: number) =>
        s.lua<string>(
          `vim.cmd("vertical resize " .. ...)
          return vim.api.nvim_eval_statusline(vim.wo.winbar, { winid = 0, use_winbar = true, maxwidth = vim.api.nvim_win_get_width(0) }).str`,
          cols,
        );
      const first = "review of #1 edit the files: hello.txt (1/2)  0/1 hunks reviewed";
      assert.equal(await bar(99), `${first}    g? keys`);
      assert.equal(await bar(140), `${first}    ]h hunk  gk keep  gu undo  gc comment  ]f file  q quit  g? keys`);
      // Narrower than the whole: the title gives way, the number, the file and the counts stay.
      assert.equal(await bar(60), "review of #1 edit the…: hello.txt (1/2)  0/1 hunks reviewed");
      assert.equal(await bar(40), "#1 hello.txt (1/2)  0/1 reviewed");
      await s.keys("g?");
      await s.notified(/tine review keys:\n {2}\]h {5}the next hunk .*\n {2}q {6}end the review .*\n {2}g\? {5}show these keys/s);
    });
  });

  it(":Tine review: undoing the last hunk leaves the file as before the turn, and what was just undone stays in sight (not folded away), its mark drawn", async () => {
    await withGitProject(nv, reviewProject(project()), async (s) => {
      await editingTurn(s);
      await s.cmd("wincmd p");
      await s.cmd("edit lines.txt");
      await s.cmd("Tine review");
      await s.keys("gu");
      await s.until("hunk 1 undone, drawn", async () => (await seen(s)).windows[1]!.marks.includes("2:  hunk 1 ↶ undone"));
      await s.keys("]hgu");
      await s.until("hunk 2 undone, drawn", async () => {
        const v = await seen(s);
        return v.windows[1]!.text === LINES && v.windows.every((w) => w.marks.includes("18:  hunk 2 ↶ undone"));
      });
      // Both sides hold the same text now: diff mode would fold it all, the undone hunk with it.
      const closed = () =>
        s.lua<number[]>(
          "return vim.tbl_map(function(w) return vim.api.nvim_win_call(w, function() return vim.fn.foldclosed(18) end) end, vim.api.nvim_tabpage_list_wins(0))",
        );
      await s.until("line 18 unfolded on both sides", async () => JSON.stringify(await closed()) === "[-1,-1]");
      // And it stays so once Neovim has drawn the diff again.
      await s.cmd("redraw");
      assert.deepEqual(await closed(), [-1, -1]);
      assert.equal((await seen(s)).row, 18, "the cursor where it was");
    });
  });

  it("signs mark the pending hunks' changed lines in a file's buffer, when the turn ends and where they are now; gone once kept or undone", async () => {
    await withGitProject(nv, reviewProject(project()), async (s) => {
      // lines.txt is shown while the turn edits it: its signs come when the turn ends, nothing entered.
      await s.cmd("edit lines.txt");
      const id = await editingTurn(s);
      await s.until("signs on lines 2 and 18", async () => JSON.stringify(await signRows(s, "lines.txt")) === "[2,18]");
      await s.lua(`vim.fn.win_gotoid(vim.fn.bufwinid("lines.txt"))`);
      // Two lines added at the top since the turn: the signs are where the hunks' lines are now.
      writeFileSync(join(s.cwd, "lines.txt"), `new a\nnew b\n${EDITED}`);
      await s.cmd("edit!");
      await s.until("signs on lines 4 and 20", async () => JSON.stringify(await signRows(s, "lines.txt")) === "[4,20]");
      assert.equal(await api(s, "keep_hunk", id, "lines.txt", 2), true);
      await s.until("the kept hunk's sign gone", async () => JSON.stringify(await signRows(s, "lines.txt")) === "[4]");
      assert.deepEqual(await api(s, "reject_hunk", id, "lines.txt", 1), { path: "lines.txt", index: 1, conflicts: 0 });
      await s.until("no sign left", async () => (await signRows(s, "lines.txt")).length === 0);
      assert.equal(readFileSync(join(s.cwd, "lines.txt"), "utf8"), `new a\nnew b\n${withLine(EDITED, 2, "line 2")}`);
      // Undoing the undo makes the hunk pending again: its sign is back.
      await s.cmd("Tine restore undo");
      await s.until("the sign back on line 4", async () => JSON.stringify(await signRows(s, "lines.txt")) === "[4]");
    });
  });

  it("review_signs = false: no signs", async () => {
    await withGitProject(
      nv,
      reviewProject(project()),
      async (s) => {
        await editingTurn(s);
        await s.cmd("wincmd p");
        await s.cmd("edit lines.txt");
        // The host's answer to a question asked after the buffer was entered: any sign asked for before it is drawn by then.
        await s.lua(
          `require("tine.host").request_async("review_file", { vim.fn.expand("%:p") }, function(_, files) _G.answer = files end)`,
        );
        await s.until("the host answered", () => s.lua<boolean>("return _G.answer ~= nil"));
        assert.equal(await s.lua<number>("return #_G.answer[1].hunks"), 2, "the host has the hunks the signs would mark");
        assert.deepEqual(await signRows(s, "lines.txt"), []);
      },
      { review_signs: false },
    );
  });

  it("refuses clearly: no thread, no such turn, a file outside the thread's files", async () => {
    await withGitProject(nv, reviewProject(project()), async (s) => {
      assert.match(String(await api(s, "review")), /^tine: review: no thread is active/);
      const id = await editingTurn(s);
      assert.match(String(await api(s, "review", id, 99)), /has no turn ending at or after message 99/);
      const asked = (...args: unknown[]) =>
        s.lua<string>(`local ok, e = pcall(require("tine.host").request, "review_file", ...); return tostring(e)`, ...args);
      assert.match(await asked("/etc/passwd", id), /^tine: review: \/etc\/passwd is not in the thread's files/);
      assert.match(await asked("../lines.txt", id), /^tine: review: \.\.\/lines\.txt is not in the thread's files/);
      assert.match(await asked("sub/../lines.txt", id), /^tine: review: "edit the files" has no turn that changed sub\/\.\.\/lines\.txt$/);
      assert.equal((await seen(s)).tabs, 1, "nothing opened");
    });
  });
});
