/**
 * The thread list as the user moves in it: its height and keys, numbers, filter and folds, diffs
 * and deletes, restores, [claude] threads and other projects' trees. Each test stands alone in its
 * own Neovim.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { exchange } from "../helpers/chat-driver.ts";
import { oneExchange, parentAndFork } from "../helpers/fixtures.ts";
import { type Session, tempProjects, withNeovim } from "../helpers/neovim.ts";
import { response } from "../mock-anthropic/script.ts";

const nv = inject("nvim");

const project = tempProjects();

/** The thread list's window: its height and cursor line (1-based), or null when no window shows it. */
const listWindow = (s: Session) =>
  s.lua<{ height: number; line: number } | null>(`
    local w = vim.fn.win_findbuf(vim.fn.bufnr("tine://threads"))[1]
    if not w then return vim.NIL end
    return { height = vim.api.nvim_win_get_height(w), line = vim.api.nvim_win_get_cursor(w)[1] }`);

/** Three threads: "alpha" (1), "beta" (2) and a fork of beta (3) renamed "gamma fork"; alpha is active. */
async function threeThreads(s: Session): Promise<{ alpha: string; beta: string; fork: string }> {
  await s.lua("vim.o.columns = 160"); // list lines unwrapped: one row each
  const alpha = await oneExchange(s, "alpha", "Alpha answer.");
  await s.cmd("Tine new");
  await exchange(s, 2, "beta", "Beta answer.");
  await exchange(s, 3, "@fork go on", "Fork answer.");
  const beta = (await s.thread(2)).id;
  const fork = (await s.thread(3)).id;
  await s.lua("require('tine').rename(...)", fork, "gamma fork");
  await s.open(alpha);
  return { alpha, beta, fork };
}

describe(`the thread list (${nv.version})`, () => {
  it("opens on the active thread, as tall as its lines, with each thread's number; q and <Esc> close it (no macro)", async () => {
    await withNeovim(nv, async (s) => {
      await threeThreads(s);
      await s.openList();
      const lines = await s.listLines();
      assert.equal(lines.length, 3, lines.join("\n"));
      assert.match(lines[0]!, /^▶ #1 {2}alpha {2}· idle · 2 msgs/);
      assert.match(lines[1]!, /^ {2}#2 {2}beta {2}/);
      assert.match(lines[2]!, /^ {2}#3 {4}⑂ gamma fork {2}/);
      assert.deepEqual(await listWindow(s), { height: 3, line: 1 });
      // g? lists the list's own keys with the others.
      await s.keys("g?");
      const help = (await s.lines(await s.currentBuf())).join("\n");
      for (const key of ["q", "<Esc>", "/", "d", "L", "zc", "zo", "za"])
        assert.match(help, new RegExp(`n {2}${key.replace(/[<>/]/g, "\\$&")} +\\S`), help);
      await s.keys("q");
      await s.openList();
      await s.keys("q");
      assert.equal(await listWindow(s), null, "q closes the list");
      assert.equal(await s.lua("return vim.fn.reg_recording()"), "", "q records no macro");
      // Opened again with the fork active: the cursor is on its line.
      await s.open((await s.thread(3)).id);
      await s.openList();
      assert.deepEqual(await listWindow(s), { height: 3, line: 3 });
      await s.keys("<Esc>");
      assert.equal(await listWindow(s), null, "<Esc> closes the list");
    });
  });

  it("is never taller than list_max_height", async () => {
    await withNeovim(
      nv,
      async (s) => {
        await threeThreads(s);
        await s.openList();
        assert.equal((await listWindow(s))!.height, 2);
      },
      { setup: { list_max_height: 2 } },
    );
  });

  it("stays as tall as its lines when the host adds one (b), and keeps its height when a fork's window opens", async () => {
    await withNeovim(nv, async (s) => {
      await threeThreads(s);
      await s.openList();
      assert.equal((await listWindow(s))!.height, 3);
      // Held mid-reply, so the background fork stays in the list (done, it reports and leaves).
      s.mock.reply(response([{ text: "Background answer.", holdInside: { hold: "bg", afterDeltas: 1 } }]));
      await s.answerInput("look around");
      await s.keys("b");
      await s.until("the background fork in the list", async () => (await s.listLines()).length === 4);
      await s.until("the list 4 rows tall", async () => (await listWindow(s))!.height === 4);
      assert.equal(await s.lua("return vim.fn.line('w0', vim.fn.win_findbuf(vim.fn.bufnr('tine://threads'))[1])"), 1, "all of it in view");
      // A fork opened from the list (its own window) leaves the list as it is.
      await s.answerInput("");
      await s.keys("f");
      await s.until("the fork in the list", async () => (await s.listText()).includes("#5"));
      await s.until("the list 5 rows tall", async () => (await listWindow(s))!.height === 5);
      s.mock.release("bg");
      // On a narrow screen a long line wraps: the list is as tall as its rows, all in view.
      await s.lua("vim.o.columns = 50");
      await s.keys("q");
      await s.openList();
      const rows = await s.lua<{ rows: number; height: number; top: number }>(`
        local w = vim.fn.win_findbuf(vim.fn.bufnr("tine://threads"))[1]
        return { rows = vim.api.nvim_win_text_height(w, {}).all, height = vim.api.nvim_win_get_height(w),
          top = vim.fn.line("w0", w) }`);
      assert.ok(rows.rows > 5, `lines wrap at 50 columns: ${JSON.stringify(rows)}`);
      assert.deepEqual([rows.height, rows.top], [rows.rows, 1]);
    });
  });

  it("/ shows the threads whose title holds a text, with their ancestors; <Esc> clears it; zc/zo/za fold a subtree", async () => {
    await withNeovim(nv, async (s) => {
      await threeThreads(s);
      await s.openList();
      await s.answerInput("GAMMA");
      await s.keys("/");
      await s.until("the filter", async () => !(await s.listText()).includes("alpha"));
      const filtered = await s.listLines();
      assert.match(filtered[0]!, /^\/ GAMMA: /);
      assert.deepEqual(
        filtered.slice(1).map((l) => l.match(/#\d/)?.[0]),
        ["#2", "#3"],
        "the match and its parent",
      );
      assert.equal(await s.lua("return vim.b.tine_list_filter"), "GAMMA");
      await s.keys("<Esc>");
      await s.until("the filter cleared", async () => (await s.listText()).includes("alpha"));
      assert.notEqual(await listWindow(s), null, "the first <Esc> clears the filter, the list stays");
      // zc on beta folds its fork; zo opens it again.
      await s.onListLine("beta", "zc");
      await s.until("the fold", async () => !(await s.listText()).includes("gamma"));
      assert.match((await s.listLines())[1]!, /beta .*▸ 1 fork folded \(zo\)/);
      assert.equal((await listWindow(s))!.height, 2, "the list shrinks to its lines");
      await s.keys("zo");
      await s.listLine("gamma fork");
      // On a thread without forks, zc folds its parent's, and the cursor goes there (as in Vim).
      await s.onListLine("gamma fork", "zc");
      await s.until("the parent folded", async () => !(await s.listText()).includes("gamma"));
      assert.equal((await listWindow(s))!.line, 2);
      await s.keys("za");
      await s.listLine("gamma fork");
    });
  });

  it("d diffs the thread on the line with its parent; D asks about forks only when there are some", async () => {
    await withNeovim(nv, async (s) => {
      await threeThreads(s);
      await s.openList();
      await s.onListLine("gamma fork", "d");
      await s.until("the diff tab", async () => (await s.lua<number>("return vim.fn.tabpagenr('$')")) === 2);
      assert.deepEqual(
        (await s.windows()).map((n) => n.replace(/^.*tine-diff:\/\//, "")),
        ["gamma fork", "beta"],
      );
      await s.cmd("tabclose");
      await s.lua("vim.fn.confirm = function(question) _G.tine_question = question; return 2 end");
      await s.onListLine("alpha", "D");
      assert.equal(await s.lua("return _G.tine_question"), 'Delete "alpha"?');
      await s.onListLine("beta", "D");
      assert.equal(await s.lua("return _G.tine_question"), 'Delete "beta"? Its fork keeps its history.');
      assert.equal((await s.threads()).length, 3, "cancelled: nothing deleted");
    });
  });

  it("a restore from :Tine threads! redraws the list at once and opens the fork; the ended section says how each ended", async () => {
    await withNeovim(nv, async (s) => {
      const { parent, fork } = await parentAndFork(s);
      await s.open(parent);
      await exchange(s, 3, "@fork another", "Another.");
      const second = (await s.thread(3)).id;
      await s.lua("require('tine').discard(...)", fork);
      await s.lua("require('tine').report(..., 'it works')", second);
      await s.waitForGone(second, "the report");
      await s.openList(true);
      const ended = await s.listLine("○ ended (discarded)");
      await s.listLine("○ ended (reported)");
      await s.onListLine(ended, "<CR>");
      await s.until("the restored fork open", async () => (await s.lua("return require('tine').current()")) === fork);
      const text = await s.listText();
      assert.doesNotMatch(text, /ended \(discarded\)/, text);
      assert.match(text, /ended \(reported\)/);
      assert.match(text, /▶ +#2 +⑂ explore a tangent /, "in the tree again, active");
    });
  });

  it("[claude] threads show the message count of their session", async () => {
    await withNeovim(
      nv,
      async (s) => {
        const id = await oneExchange(s, "alpha", "Alpha answer.");
        await s.lua("require('tine').export_claude(...)", id);
        await s.openList();
        await s.listLine("[claude] alpha → Claude Code");
        const line = (await s.listLines()).find((l) => l.includes("[claude]"))!;
        assert.match(line, / · 2 msgs/);
      },
      { setup: { claude_command: ["sh", "-c", "sleep 30"] } },
    );
  });

  it(":Tine threads! draws another project's tree by the same rules: its ended forks are not shown as live ones, [claude] stays", async () => {
    const first = project();
    const data = join(first, ".data");
    await withNeovim(
      nv,
      async (s) => {
        const { parent, fork } = await parentAndFork(s);
        await s.lua("require('tine').discard(...)", fork);
        await s.waitForGone(fork);
        await s.lua("require('tine').export_claude(...)", parent);
        await s.until("the [claude] thread", async () => (await s.threads()).length === 2);
      },
      { cwd: first, setup: { claude_command: ["sh", "-c", "sleep 30"] } },
    );
    await withNeovim(
      nv,
      async (s) => {
        await s.openList(true);
        const text = await s.listText();
        assert.match(text, /── .* \(another project/);
        assert.match(text, /main question {2}○ stored · 2 msgs/);
        assert.doesNotMatch(text, /⑂ main question ⑂1/, `the discarded fork is not a live one:\n${text}`);
        // Handed off to Claude Code: it hangs under its source by a hand-off's mark.
        assert.match(text, /↪ \[claude\] main question → Claude Code {2}○ stored · 2 msgs/, text);
      },
      // The same user: the same data folder, and Claude Code's (the [claude] thread's session is there).
      { env: { XDG_DATA_HOME: data, CLAUDE_CONFIG_DIR: join(first, ".claude-config") } },
    );
  });
});
