/**
 * The tree as the user moves in it: the thread list (its keys, numbers, filter, folds, restores,
 * other projects), labels, thread numbers that are never given twice, a message edited in a fork,
 * and forks whose parent is gone. Each test stands alone in its own Neovim.
 *
 * Over 300 lines: one file for the tree's user-facing side, each test a few verbs of the Session.
 */
import assert from "node:assert/strict";
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { body, exchange, texts, typeAndSend } from "../helpers/chat-driver.ts";
import { oneExchange, parentAndFork, twoExchanges } from "../helpers/fixtures.ts";
import { type Session, tempProjects, withNeovim } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");
const project = tempProjects();

/** The thread list's window: its height and cursor line (1-based), or null when no window shows it. */
const listWindow = (s: Session) =>
  s.lua<{ height: number; line: number } | null>(`
    local w = vim.fn.win_findbuf(vim.fn.bufnr("tine://threads"))[1]
    if not w then return vim.NIL end
    return { height = vim.api.nvim_win_get_height(w), line = vim.api.nvim_win_get_cursor(w)[1] }`);

/** The virtual texts tine puts at the ends of a buffer's lines (fork marks, labels), by 0-based line. */
const marks = (s: Session, buf: number) =>
  s.lua<[number, string][]>(
    `local out = {}
    for _, m in ipairs(vim.api.nvim_buf_get_extmarks(..., vim.api.nvim_create_namespace("tine"), 0, -1, { details = true })) do
      table.insert(out, { m[2], m[4].virt_text[1][1] })
    end
    return out`,
    buf,
  );

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

describe(`thread numbers (${nv.version})`, () => {
  it("are never given again after a delete, in memory too (persist = false)", async () => {
    await withNeovim(
      nv,
      async (s) => {
        await oneExchange(s, "alpha", "Alpha answer.");
        await s.cmd("Tine new");
        const second = await s.thread(2);
        await s.lua("require('tine').delete(...)", second.id);
        await s.waitForGone(second.id);
        await s.cmd("Tine new");
        assert.deepEqual(
          (await s.threads()).map((t) => t.num),
          [1, 3],
        );
      },
      { setup: { persist: false } },
    );
  });

  it("are never given again after a restart, an ended fork's included, even from before numbers were claimed", async () => {
    const cwd = project();
    await withNeovim(
      nv,
      async (s) => {
        const { fork } = await parentAndFork(s);
        await s.lua("require('tine').discard(...)", fork);
        await s.waitForGone(fork);
      },
      { cwd },
    );
    // Transcripts written before nums/ was kept: only the files say which numbers were given.
    const projects = join(cwd, ".data/nvim/tine/projects");
    for (const name of readdirSync(projects)) rmSync(join(projects, name, "nums"), { recursive: true, force: true });
    await withNeovim(
      nv,
      async (s) => {
        await s.cmd("Tine new");
        const nums = (await s.threads()).map((t) => t.num).sort();
        assert.deepEqual(nums, [1, 3], "the discarded fork's 2 is not given again");
      },
      { cwd },
    );
  });

  it("are never given again after a restart when the thread that had the highest was deleted", async () => {
    const cwd = project();
    await withNeovim(
      nv,
      async (s) => {
        await oneExchange(s, "alpha", "Alpha answer.");
        await s.cmd("Tine new");
        await exchange(s, 2, "beta", "Beta answer.");
        const beta = await s.thread(2);
        await s.lua("require('tine').delete(...)", beta.id);
        await s.waitForGone(beta.id);
      },
      { cwd },
    );
    await withNeovim(
      nv,
      async (s) => {
        await s.cmd("Tine new");
        assert.deepEqual((await s.threads()).map((t) => t.num).sort(), [1, 3], "the deleted thread's 2 is not given again");
      },
      { cwd },
    );
  });
});

describe(`labels (${nv.version})`, () => {
  it("L labels a thread in the list and a message in its display; both are kept on disk and shown after a restart", async () => {
    const cwd = project();
    await withNeovim(
      nv,
      async (s) => {
        const id = await twoExchanges(s);
        await s.answerInput("the good one");
        await s.onDisplayLine(id, "First answer.", "L");
        const display = (await s.thread(id)).bufnr!;
        await s.until("the message's label", async () => (await marks(s, display)).some(([, t]) => t === "🏷 the good one"));
        const at = (await s.lines(display)).indexOf("First answer.");
        assert.deepEqual(
          (await marks(s, display)).filter(([, t]) => t.startsWith("🏷")).map(([line]) => line),
          [(await s.lines(display)).slice(0, at).lastIndexOf("## Claude")],
          "at the message's first line",
        );
        await s.openList();
        await s.answerInput("keeper");
        await s.onListLine("first question", "L");
        await s.listLine("first question  🏷 keeper  ·");
      },
      { cwd },
    );
    await withNeovim(
      nv,
      async (s) => {
        await s.openList();
        await s.listLine("first question  🏷 keeper  ○ stored");
        const id = (await s.threads())[0]!.id;
        await s.open(id);
        const display = (await s.thread(id)).bufnr!;
        await s.until("the message's label after the restart", async () =>
          (await marks(s, display)).some(([, t]) => t === "🏷 the good one"),
        );
        // An empty answer removes a label.
        await s.openList();
        await s.answerInput("");
        await s.onListLine("first question", "L");
        await s.until("the label gone", async () => !(await s.listText()).includes("keeper"));
      },
      { cwd },
    );
  });
});

describe(`edit and resubmit (${nv.version})`, () => {
  it("e on a message you wrote opens a fork before it with its text in the input; the original is untouched; sending sends the edit", async () => {
    await withNeovim(nv, async (s) => {
      const id = await twoExchanges(s);
      await s.focus((await s.thread(id)).bufnr!);
      await s.keys("g?");
      const help = (await s.lines(await s.currentBuf())).join("\n");
      assert.match(help, /n {2}e +edit your message in a fork/);
      assert.match(help, /n {2}L +label the message/);
      await s.keys("q");
      await s.onDisplayLine(id, "second question", "e");
      await s.waitForThreadCount(2, "the fork");
      const fork = (await s.threads())[1]!;
      await s.until("the fork's input", async () => (await s.lines(fork.input_bufnr!)).join("\n") === "second question");
      assert.equal(await s.currentBuf(), fork.input_bufnr, "the cursor is in the fork's input");
      assert.deepEqual(texts(await s.messages(fork.id)), ["first question", "First answer."]);
      await s.setLines(fork.input_bufnr!, ["second question, said better"]);
      s.mock.reply(textReply("Better answer."));
      await s.keys("<CR>");
      await s.waitForDisplay(fork.id, "Better answer.");
      assert.deepEqual(texts(body(s, -1).messages), ["first question", "First answer.", "second question, said better"]);
      assert.deepEqual(texts(await s.messages(id)), ["first question", "First answer.", "second question", "Second answer."]);
    });
  });

  it("e on the first message forks from the start; e on Claude's reply says what it edits", async () => {
    await withNeovim(nv, async (s) => {
      const id = await twoExchanges(s);
      await s.onDisplayLine(id, "First answer.", "e");
      assert.match(await s.lastNotification(), /e edits a message you wrote/);
      await s.onDisplayLine(id, "first question", "e");
      await s.waitForThreadCount(2, "the fork");
      const fork = (await s.threads())[1]!;
      await s.until("the fork's input", async () => (await s.lines(fork.input_bufnr!)).join("\n") === "first question");
      assert.deepEqual(await s.messages(fork.id), []);
      s.mock.reply(textReply("Fresh."));
      await typeAndSend(s, "first question, again");
      await s.waitForDisplay(fork.id, "Fresh.");
      assert.deepEqual(texts(body(s, -1).messages), ["first question, again"]);
    });
  });
});

describe(`no thread id reaches the user (${nv.version})`, () => {
  it("gp in a fork whose parent was deleted says so", async () => {
    await withNeovim(nv, async (s) => {
      const { parent, fork } = await parentAndFork(s);
      await s.lua("require('tine').delete(...)", parent);
      await s.waitForGone(parent);
      await s.focus((await s.thread(fork)).bufnr!);
      await s.keys("gp");
      assert.match(await s.lastNotification(), /the thread this fork came from was deleted/);
      const said = (await s.notifications()).map((n) => n.msg).join("\n");
      assert.doesNotMatch(said, /[0-9a-f]{8}-[0-9a-f]{4}-/, said);
    });
  });
});
