/**
 * Windows and buffers in daily use: a send brings the reply into view, `:Tine` after a restart
 * reopens the thread the user was in (never an empty one), a background fork leaves the active
 * thread alone, `:Tine restart` keeps drafts and asks during a stream, and quitting while work
 * runs asks first; a Claude Code thread's one window. Each test stands alone in its own Neovim.
 *
 * Over 300 lines: one file for the "windows and buffers" side of daily use, each test a few verbs.
 */
import assert from "node:assert/strict";
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { isTine, shortNames } from "../helpers/buffer-names.ts";
import { exchange, typeAndSend } from "../helpers/chat-driver.ts";
import { claudeEnv, cliEnv, requireClaude, stopTerminals, typeInTerminal, waitForCliPrompt } from "../helpers/claude-code.ts";
import { oneExchange } from "../helpers/fixtures.ts";
import { type Session, tempProjects, withNeovim } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");
const project = tempProjects();

/** Whether `text` is drawn in a window showing `buf` (the screen as Neovim draws it, virtual lines included). */
const onScreen = (s: Session, buf: number, text: string) =>
  s.lua<boolean>(
    `local buf, text = ...
    vim.cmd("redraw")
    for _, w in ipairs(vim.fn.win_findbuf(buf)) do
      local pos = vim.api.nvim_win_get_position(w)
      for row = pos[1] + 1, pos[1] + vim.api.nvim_win_get_height(w) do
        local line = {}
        for col = pos[2] + 1, pos[2] + vim.api.nvim_win_get_width(w) do table.insert(line, vim.fn.screenstring(row, col)) end
        if table.concat(line):find(text, 1, true) then return true end
      end
    end
    return false`,
    buf,
    text,
  );

/** A screen of that size with a file in the editor. */
const screen = (s: Session, columns: number, lines: number) =>
  s.lua(`vim.o.columns = ${columns}; vim.o.lines = ${lines}; vim.cmd.edit("hello.txt")`);

describe(`windows: sending (${nv.version})`, () => {
  it("a send with the display's cursor higher up: the display follows the new turn, the streaming spinner in view", async () => {
    await withNeovim(nv, async (s) => {
      await screen(s, 160, 40);
      const long = Array.from({ length: 60 }, (_, i) => `Line ${i} of the first answer.`).join("\n");
      const id = await oneExchange(s, "a long answer please", long);
      const display = (await s.thread(id)).bufnr!;
      await s.lua("vim.api.nvim_win_set_cursor(vim.fn.win_findbuf(...)[1], { 1, 0 })", display);
      assert.ok(!(await onScreen(s, display, "Line 59 of")), "the display shows its top");
      s.mock.reply(response([{ text: "The second answer begins", holdInside: { hold: "h", afterDeltas: 2 } }]));
      await typeAndSend(s, "and another");
      await s.mock.reached("h");
      await s.waitForDisplay(id, "The second");
      await s.until("the new turn in view", async () => onScreen(s, display, "The second"));
      await s.until("the spinner in view", async () => onScreen(s, display, "streaming ·"));
      s.mock.release("h");
      await s.waitForStatus(id, "idle");
    });
  });
});

describe(`windows: :Tine restart (${nv.version})`, () => {
  it("keeps every thread's unsent input, the shown one's and another's", async () => {
    await withNeovim(nv, async (s) => {
      const alpha = await oneExchange(s, "alpha", "Alpha answer.");
      await s.setLines((await s.thread(alpha)).input_bufnr!, ["draft for alpha"]);
      await s.cmd("Tine new");
      await exchange(s, 2, "beta", "Beta answer.");
      const beta = (await s.thread(2)).id;
      await s.setLines((await s.thread(beta)).input_bufnr!, ["draft for beta", "second line"]);
      const pid = await s.hostPid();
      await s.cmd("Tine restart");
      assert.notEqual(await s.hostPid(), pid, "a new host");
      await s.until("beta shown again", async () => (await s.thread(beta)).input_bufnr !== null);
      assert.deepEqual(await s.lines((await s.thread(beta)).input_bufnr!), ["draft for beta", "second line"]);
      await s.open(alpha);
      assert.deepEqual(await s.lines((await s.thread(alpha)).input_bufnr!), ["draft for alpha"]);
    });
  });

  it("keeps the unsent input of a thread with no message yet (never stored)", async () => {
    await withNeovim(nv, async (s) => {
      await s.cmd("Tine");
      await s.setLines((await s.thread(1)).input_bufnr!, ["my first question, half written"]);
      await s.cmd("Tine restart");
      await s.until("an input shown", async () => s.lua<boolean>("return vim.api.nvim_buf_get_name(0):match(' %[input%]$') ~= nil"));
      assert.deepEqual(await s.lines(0), ["my first question, half written"]);
    });
  });

  it("asks first while a thread streams: cancelled, the stream goes on; confirmed, the host restarts", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(response([{ text: "Streaming on and on", holdInside: { hold: "h", afterDeltas: 1 } }]));
      await s.cmd("Tine");
      const id = (await s.thread(1)).id;
      await typeAndSend(s, "go");
      await s.mock.reached("h");
      const pid = await s.hostPid();
      await s.answerConfirm(2);
      await s.cmd("Tine restart");
      assert.equal(await s.hostPid(), pid, "not restarted");
      assert.equal((await s.thread(id)).status, "streaming");
      s.mock.release("h");
      await s.waitForStatus(id, "idle");
      s.mock.reply(response([{ text: "Again streaming", holdInside: { hold: "h2", afterDeltas: 1 } }]));
      await typeAndSend(s, "again");
      await s.mock.reached("h2");
      await s.answerConfirm(1);
      await s.cmd("Tine restart");
      assert.notEqual(await s.hostPid(), pid, "restarted once confirmed");
      s.mock.release("h2");
    });
  });
});

/** From now on vim.fn.confirm answers `n` and keeps its question in `_G.tine_confirmed`. */
const answerConfirm = (s: Session, n: number) =>
  s.lua("local n = ...; _G.tine_confirmed = {}; vim.fn.confirm = function(q) table.insert(_G.tine_confirmed, q); return n end", n);
const confirmed = (s: Session) => s.lua<string[]>("return _G.tine_confirmed");

/** Runs an Ex command that Neovim refuses (an error, as a user sees it), or that quits it. */
const tryCmd = (s: Session, command: string) => s.cmd(command).catch((e: Error) => e.message);

describe(`windows: quitting while work runs (${nv.version})`, () => {
  it(":qa, :q in the last window and :wqa while a thread streams ask first; cancelled, nothing changes; :qa! quits", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(response([{ text: "Streaming on", holdInside: { hold: "h", afterDeltas: 1 } }]));
      // A plugin's autocmd on every buffer's wipe-out (a common thing): the guard must not depend on there being none.
      await s.lua("vim.api.nvim_create_autocmd('BufWipeout', { callback = function() end })");
      await s.cmd("Tine");
      await typeAndSend(s, "go");
      await s.mock.reached("h");
      await s.until("Neovim told", async () => s.lua<boolean>("return #require('tine.quit').working() == 1"));
      await answerConfirm(s, 2);
      const input = await s.currentBuf();
      await s.setLines(input, ["a draft"]);
      for (const [i, command] of ["qa", "only | q", "wqa"].entries()) {
        await tryCmd(s, command);
        await s.until(`asked after :${command}`, async () => (await confirmed(s)).length === i + 1);
        assert.match((await confirmed(s))[i]!, /"go" streams/);
        assert.ok(s.running(), `Neovim still runs after :${command}`);
        await s.until("the window has its buffer back", async () => (await s.currentBuf()) === input);
        assert.deepEqual(await s.lines(input), ["a draft"], "the input keeps its text");
      }
      // Scheduled: a request that quits Neovim gets no answer.
      await s.lua("vim.schedule(function() vim.cmd('qa!') end)");
      await s.waitForExit();
      assert.ok(!s.running(), ":qa! quit without asking");
    });
  });

  it("a background fork cut by a confirmed :qa is stored interrupted; the list says so, <CR> opens it offering to go on, R goes on", async () => {
    const cwd = project();
    await withNeovim(
      nv,
      async (s) => {
        await oneExchange(s, "alpha", "Alpha answer.");
        s.mock.reply(response([{ text: "Looking into it", holdInside: { hold: "bg", afterDeltas: 1 } }]));
        await typeAndSend(s, "@bg look into the tangent");
        await s.mock.reached("bg");
        await s.until("Neovim told", async () => s.lua<boolean>("return #require('tine.quit').working() == 1"));
        await answerConfirm(s, 1);
        await tryCmd(s, "qa");
        await s.waitForExit();
      },
      { cwd },
    );
    // The host wrote what the quit cut as it exited, after Neovim (withNeovim waits for it).
    await withNeovim(
      nv,
      async (s) => {
        await s.openList();
        const line = await s.listLine("interrupted");
        assert.match((await s.listLines())[line - 1]!, /⑂ .*look into the tangent/);
        s.mock.reply(textReply("Going on with the tangent."));
        await s.onListLine(line, "<CR>");
        const fork = (await s.threads()).find((t) => t.title.includes("look into the tangent"))!;
        await s.until("the offer to go on", () => s.lua<boolean>("return require('tine.go_on').offered(...)", fork.id));
        await s.focus((await s.thread(fork.id)).bufnr!);
        await s.keys("R");
        await s.waitForDisplay(fork.id, "Going on with the tangent.");
        assert.ok(!(await s.listText()).includes("interrupted"), "no longer interrupted once it went on");
      },
      { cwd },
    );
  });
});

/** The thread shown in the sidebar: its number, from the display's name. */
const shownNum = (s: Session) =>
  s.lua<number>(
    "return tonumber(vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(require('tine.ui').sidebar().display)):match('tine #(%d+) [^/]*$'))",
  );

/** A project with "alpha" (1) and "beta" (2), beta answered last, then alpha opened again: the user was last in alpha. */
async function alphaThenBeta(s: Session): Promise<void> {
  const alpha = await oneExchange(s, "alpha", "Alpha answer.");
  await s.cmd("Tine new");
  await exchange(s, 2, "beta", "Beta answer.");
  await s.open(alpha);
}

describe(`windows: :Tine after a restart, empty threads (${nv.version})`, () => {
  it(":Tine reopens the thread the user was last in, not a new empty one", async () => {
    const cwd = project();
    await withNeovim(nv, alphaThenBeta, { cwd });
    await withNeovim(
      nv,
      async (s) => {
        await s.cmd("Tine");
        assert.equal(await shownNum(s), 1, "alpha, where the user was");
        assert.deepEqual(
          (await s.threads()).map((t) => t.title),
          ["alpha", "beta"],
          "no new thread",
        );
        assert.equal(await s.lua("return require('tine').current()"), (await s.thread(1)).id);
      },
      { cwd },
    );
  });

  it("b on a stored thread in the list leaves the active thread alone: :Tine after it still opens the one the user was in", async () => {
    const cwd = project();
    await withNeovim(nv, alphaThenBeta, { cwd });
    await withNeovim(
      nv,
      async (s) => {
        await s.openList();
        s.mock.reply(textReply("Background answer."));
        await s.answerInput("look into beta");
        await s.onListLine("beta", "b");
        await s.notified(/reported back/);
        await s.cmd("Tine");
        assert.equal(await shownNum(s), 1, "alpha, not beta (which the background fork reported to)");
        assert.deepEqual(
          (await s.threads()).map((t) => t.title),
          ["alpha", "beta"],
        );
      },
      { cwd },
    );
  });

  it("an empty thread leaves the list once the user leaves it; one with unsent input stays", async () => {
    await withNeovim(nv, async (s) => {
      const alpha = await oneExchange(s, "alpha", "Alpha answer.");
      await s.cmd("Tine new");
      await s.cmd("Tine new");
      assert.deepEqual(
        (await s.threads()).map((t) => t.num),
        [1, 3],
        "the first empty thread went when the second took its windows",
      );
      await s.open(alpha);
      assert.deepEqual(
        (await s.threads()).map((t) => t.num),
        [1],
      );
      await s.openList();
      assert.ok(!(await s.listText()).includes("0 msgs"), await s.listText());
      await s.cmd("Tine new");
      await s.setLines((await s.thread(4)).input_bufnr!, ["half a question"]);
      await s.open(alpha);
      assert.deepEqual(
        (await s.threads()).map((t) => t.num),
        [1, 4],
        "kept: its input holds text",
      );
    });
  });
});

describe(`windows: a Claude Code thread in the sidebar (${nv.version})`, () => {
  it("opened with the sidebar closed it takes one window, its terminal, named after the first prompt typed there", async () => {
    const bin = requireClaude();
    const cwd = project();
    claudeEnv(join(cwd, ".claude-config"), "http://unused", realpathSync(cwd));
    await withNeovim(
      nv,
      async (s) => {
        await screen(s, 220, 55);
        s.mock.reply(textReply("Hi from the mock."));
        await s.cmd("Tine claude");
        const t = (await s.threads())[0]!;
        const tineWindows = async () => (await s.windows()).filter((n) => isTine(n));
        assert.deepEqual(shortNames(await tineWindows()), [`tine #${t.num} Claude Code ${t.num} [claude]`], "one window, the terminal's");
        await waitForCliPrompt(s, t.bufnr!);
        await typeInTerminal(s, t.bufnr!, "explain the fixture file");
        await s.until("titled from the first prompt", async () => (await s.thread(t.id)).title === "explain the fixture file", 30_000);
        await s.until(
          "its window named after it",
          async () => shortNames(await tineWindows()).join() === `tine #${t.num} explain the fixture file [claude]`,
        );
        await s.cmd("Tine");
        await s.cmd("Tine");
        assert.equal((await tineWindows()).length, 1, "shown again: still one window");
        await stopTerminals(s);
      },
      { cwd, setup: { claude_command: [bin] }, env: cliEnv },
    );
  });
});
