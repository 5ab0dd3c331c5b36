/**
 * What a user sees of threads and forks on a 220×55 screen: a fork beside its source (each
 * thread's display over its input), the parent taking a fork's windows when it ends, stacked forks
 * sharing the height, tabs named after threads, and the sidebar keeping its width on a resize.
 */
import assert from "node:assert/strict";
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { isTine } from "../helpers/buffer-names.ts";
import { typeAndSend } from "../helpers/chat-driver.ts";
import { claudeEnv, cliEnv, requireClaude } from "../helpers/claude-code.ts";
import { parentAndFork, twoExchanges } from "../helpers/fixtures.ts";
import { type Session, withNeovim, withProject } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");

/** A window of the current tab: the buffer it shows, its size and its place on the screen. */
type Win = { name: string; width: number; height: number; row: number; col: number; id: number };

const layout = (s: Session) =>
  s.lua<Win[]>(`return vim.tbl_map(function(w)
    local pos = vim.api.nvim_win_get_position(w)
    return { id = w, name = vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(w)), width = vim.api.nvim_win_get_width(w),
      height = vim.api.nvim_win_get_height(w), row = pos[1], col = pos[2] }
  end, vim.api.nvim_tabpage_list_wins(0))`);

/** The windows of thread number `num`: its display and its input (throws unless each is shown once). */
function pairOf(wins: Win[], num: number): { display: Win; input: Win } {
  const displays = wins.filter((w) => isTine(w.name, num, "display"));
  const inputs = wins.filter((w) => isTine(w.name, num, "input"));
  assert.equal(displays.length, 1, `thread ${num}'s display is shown once: ${names(wins)}`);
  assert.equal(inputs.length, 1, `thread ${num}'s input is shown once: ${names(wins)}`);
  return { display: displays[0]!, input: inputs[0]! };
}

const names = (wins: Win[]) => wins.map((w) => `${w.name} ${w.width}x${w.height}@${w.row},${w.col}`).join(" | ");

/** The input sits right under its display, in the same column and as wide. */
function assertColumn(wins: Win[], num: number): { display: Win; input: Win } {
  const pair = pairOf(wins, num);
  assert.equal(pair.input.col, pair.display.col, `thread ${num}'s input is under its display: ${names(wins)}`);
  assert.equal(pair.input.width, pair.display.width, `thread ${num}'s input is as wide as its display: ${names(wins)}`);
  assert.equal(pair.input.row, pair.display.row + pair.display.height + 1, `thread ${num}'s input follows its display: ${names(wins)}`);
  return pair;
}

/** A screen of that size, a file in the editor (so a `[No Name]` window is one tine left). */
const screen = (s: Session, columns: number, lines: number) =>
  s.lua(`vim.o.columns = ${columns}; vim.o.lines = ${lines}; vim.cmd.edit("hello.txt")`);

describe(`layout (${nv.version})`, () => {
  it("@fork with the defaults at 220×55: the fork opens beside its source, each thread's display over its input", async () => {
    await withNeovim(nv, async (s) => {
      await screen(s, 220, 55);
      await twoExchanges(s);
      s.mock.reply(textReply("Hash map answer."));
      await typeAndSend(s, "@fork try a hash map");
      await s.waitForDisplay(2, "Hash map answer.");
      const wins = await layout(s);
      const source = assertColumn(wins, 1);
      const fork = assertColumn(wins, 2);
      assert.ok(fork.display.col > source.display.col, `the fork stands beside its source: ${names(wins)}`);
      assert.ok(source.display.width >= 78 && fork.display.width >= 78, `each keeps the sidebar's width: ${names(wins)}`);
      const editor = wins.find((w) => !isTine(w.name))!;
      assert.ok(editor.width >= 40, `the editor keeps min_editor_width: ${names(wins)}`);
      assert.equal(await s.currentBuf(), (await s.thread(2)).input_bufnr, "the cursor is in the fork's input");
      assert.ok(!(await s.notifications()).some((n) => /took/.test(n.msg)), "nothing was replaced");
    });
  });

  it("the thread list opened and closed with q leaves every window as it was, the cursor where it was", async () => {
    await withNeovim(nv, async (s) => {
      await screen(s, 220, 55);
      await twoExchanges(s);
      s.mock.reply(textReply("Hash map answer."));
      await typeAndSend(s, "@fork try a hash map");
      await s.waitForDisplay(2, "Hash map answer.");
      const before = await layout(s);
      const from = await s.lua<number>("return vim.api.nvim_get_current_win()");
      await s.openList();
      assert.ok((await layout(s)).length > before.length, "the list has a window of its own");
      await s.keys("q");
      await s.until("the list to close", async () => (await layout(s)).length === before.length);
      assert.equal(names(await layout(s)), names(before), "every window has its size and place back");
      assert.equal(await s.lua<number>("return vim.api.nvim_get_current_win()"), from, "the cursor is back where it was");
    });
  });

  it("gD in a fork beside its parent: the fork's column closes, the sidebar narrows back, the cursor is in the parent", async () => {
    await withNeovim(nv, async (s) => {
      await screen(s, 220, 55);
      const { fork } = await parentAndFork(s);
      await s.answerConfirm(1); // it has messages of its own: gD asks
      await s.focus((await s.thread(2)).bufnr!);
      await s.keys("gD");
      await s.waitForGone(fork);
      await s.until("the fork's windows closed", async () => !(await s.windows()).some((n) => isTine(n, 2)));
      const wins = await layout(s);
      const parent = assertColumn(wins, 1);
      assert.equal(parent.display.width, 80, `the sidebar is back to its width: ${names(wins)}`);
      assert.ok(!wins.some((w) => w.name === ""), "no [No Name] window");
      assert.equal(await s.currentBuf(), (await s.thread(1)).bufnr, "the cursor is in the parent's display");
    });
  });

  for (const from of ["fork", "list"] as const) {
    it(`gR from the ${from} with fork_open = "replace": the parent takes the fork's windows, scrolled to the report; the sidebar stays`, async () => {
      await withNeovim(
        nv,
        async (s) => {
          await screen(s, 220, 55);
          await parentAndFork(s);
          const fork = await s.thread(2);
          const forkWins = await s.lua<number[]>("return vim.fn.win_findbuf(...)", fork.bufnr);
          assert.equal(forkWins.length, 1, "the fork replaced its parent in the sidebar");
          s.mock.reply(textReply("The tangent showed that X holds."));
          if (from === "fork") {
            await s.focus(fork.bufnr!);
            await s.keys("gR");
          } else {
            await s.openList();
            await s.onListLine("⑂", "gR");
          }
          await s.waitForGone(fork.id);
          const parent = await s.thread(1);
          await s.waitForDisplay(1, "📨 Report from");
          await s.until("the parent in the fork's windows", async () =>
            s.lua<boolean>(
              "local w, b = ...; return vim.api.nvim_win_is_valid(w) and vim.api.nvim_win_get_buf(w) == b",
              forkWins[0],
              parent.bufnr,
            ),
          );
          const wins = await layout(s);
          assertColumn(wins, 1);
          assert.ok(!wins.some((w) => w.name === ""), `no [No Name] window: ${names(wins)}`);
          const reportLine = (await s.lines(parent.bufnr!)).findIndex((l) => l.startsWith("📨 Report from")) + 1;
          await s.until("the report in view", async () =>
            s.lua<boolean>("local w, l = ...; return vim.fn.line('w0', w) <= l and l <= vim.fn.line('w$', w)", forkWins[0], reportLine),
          );
          if (from === "list")
            assert.equal(await s.currentBuf(), await s.lua("return vim.fn.bufnr('tine://threads')"), "the list keeps the cursor");
        },
        { setup: { fork_open: "replace" } },
      );
    });
  }

  it("an idle fork's automatic report with the cursor in the fork: the parent takes that window, nothing closes", async () => {
    await withNeovim(
      nv,
      async (s) => {
        await screen(s, 220, 55);
        // The wrap-up reply is queued before the fork's idle clock starts, and held until the layout is read.
        await parentAndFork(s, undefined, [
          response([{ text: "Wrapping up: the tangent showed X.", holdInside: { hold: "wrap", afterDeltas: 1 } }]),
        ]);
        await s.mock.reached("wrap");
        const fork = await s.thread(2);
        await s.focus(fork.bufnr!);
        const before = await layout(s);
        const forkDisplay = pairOf(before, 2).display.id;
        s.mock.release("wrap");
        await s.waitForGone(fork.id, "the fork to report by itself");
        const parent = await s.thread(1);
        await s.until("the parent in the window the cursor was in", async () =>
          s.lua<boolean>("local w, b = ...; return vim.api.nvim_win_get_buf(w) == b", forkDisplay, parent.bufnr),
        );
        assert.equal(await s.lua("return vim.api.nvim_get_current_win()"), forkDisplay, "the cursor stayed in its window");
        const after = await layout(s);
        assert.equal(after.length, before.length, `no window closed: ${names(after)}`);
        assert.ok(!after.some((w) => w.name === ""), "no [No Name] window");
      },
      { setup: { fork_idle_timeout: 0.01 } },
    );
  });
});

describe(`layout: split, tabs, resize (${nv.version})`, () => {
  it("a sidebar wide enough to split: the fork's column and the source's each hold a display over its input", async () => {
    await withNeovim(
      nv,
      async (s) => {
        await screen(s, 220, 55);
        await twoExchanges(s);
        await s.lua("require('tine').fork(..., '')", (await s.thread(1)).id);
        await s.waitForThreadCount(2);
        await s.until("the fork shown", async () => (await s.windows()).some((n) => isTine(n, 2, "input")));
        const wins = await layout(s);
        const source = assertColumn(wins, 1);
        const fork = assertColumn(wins, 2);
        assert.notEqual(source.display.col, fork.display.col, `side by side: ${names(wins)}`);
      },
      { setup: { sidebar: { width: 170 } } },
    );
  });

  it('fork_open = "split": after four forks every thread is shown, the displays share the height, no input is taller than its display', async () => {
    await withNeovim(
      nv,
      async (s) => {
        await screen(s, 220, 55);
        await twoExchanges(s);
        for (let i = 0; i < 4; i++) await typeAndSend(s, "@fork");
        await s.waitForThreadCount(5);
        await s.until("the last fork shown", async () => (await s.windows()).some((n) => isTine(n, 5, "input")));
        const wins = await layout(s);
        const pairs = [1, 2, 3, 4, 5].map((n) => assertColumn(wins, n));
        const heights = pairs.map((p) => p.display.height);
        assert.ok(Math.max(...heights) - Math.min(...heights) <= 1, `the displays share the height: ${names(wins)}`);
        for (const p of pairs) assert.ok(p.input.height < p.display.height, `no input taller than its display: ${names(wins)}`);
        assert.ok(Math.min(...heights) >= 3, `every display readable: ${names(wins)}`);
      },
      { setup: { fork_open: "split" } },
    );
  });

  it('fork_open = "tab": the tab line names each tab after its thread', async () => {
    await withNeovim(
      nv,
      async (s) => {
        await screen(s, 220, 55);
        await twoExchanges(s);
        s.mock.reply(textReply("Hash map answer."));
        await typeAndSend(s, "@fork try a hash map");
        await s.waitForDisplay(2, "Hash map answer.");
        // What the tab line shows: the one set, or Neovim's default (each tab's current buffer name).
        const tabline = await s.lua<string>(`
          if vim.o.tabline ~= "" then return vim.api.nvim_eval_statusline(vim.o.tabline, { use_tabline = true }).str end
          return table.concat(vim.tbl_map(function(t)
            return vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(vim.api.nvim_tabpage_get_win(t)))
          end, vim.api.nvim_list_tabpages()), " ")`);
        const fork = await s.thread(2);
        assert.ok(tabline.includes(fork.title), `the fork's tab is named after it: ${tabline}`);
        assert.ok(!tabline.includes("[input]"), `no tab is named after an input buffer: ${tabline}`);
      },
      { setup: { fork_open: "tab" } },
    );
  });

  it("a resize keeps the sidebar's width (capped to leave the editor room) and the display's last lines in view", async () => {
    await withNeovim(nv, async (s) => {
      await screen(s, 220, 55);
      const long = Array.from(
        { length: 80 },
        (_, i) => `Line ${i} of a long answer that wraps when the window is narrow enough to wrap it.`,
      );
      s.mock.reply(textReply(long.join("\n")));
      await s.cmd("Tine");
      await typeAndSend(s, "a long answer please");
      await s.waitForDisplay(1, "Line 79 of");
      const display = (await s.thread(1)).bufnr!;
      const sidebarWidth = async () => (await layout(s)).find((w) => isTine(w.name, 1, "display"))!.width;
      for (const [columns, width] of [
        [150, 80],
        // At 90 columns the editor keeps its min_editor_width (40) and the sidebar takes the rest;
        // narrower, the sidebar keeps 40 columns (a readable chat) and the editor gives way.
        [90, 49],
        [60, 40],
        [250, 80],
      ] as const) {
        await s.lua(`vim.o.columns = ${columns}`);
        await s.until(`the sidebar ${width} columns wide at ${columns}`, async () => (await sidebarWidth()) === width);
      }
      // Widened, the display still ends at its bottom line: no empty rows after the text.
      const view = await s.lua<{ last: number; count: number; rows: number; height: number }>(
        `local win = vim.fn.win_findbuf(...)[1]
        local top = vim.fn.line("w0", win)
        return { last = vim.fn.line("w$", win), count = vim.api.nvim_buf_line_count(...),
          rows = vim.api.nvim_win_text_height(win, { start_row = top - 1 }).all,
          -- The winbar (usage) takes a row of the window's height.
          height = vim.api.nvim_win_get_height(win) - (vim.wo[win].winbar ~= "" and 1 or 0) }`,
        display,
      );
      assert.equal(view.last, view.count, "the last line is in view");
      assert.ok(view.rows >= view.height, `the window is filled to its bottom (${view.rows} rows of text for ${view.height})`);
    });
  });

  it("a Claude Code thread shown in the open sidebar takes one window (its terminal); a thread shown after it gets its input back", async () => {
    const bin = requireClaude();
    await withProject(async (cwd) => {
      claudeEnv(join(cwd, ".claude-config"), "http://unused", realpathSync(cwd));
      await withNeovim(
        nv,
        async (s) => {
          await screen(s, 220, 55);
          await s.cmd("Tine");
          const first = await s.thread(1);
          // Something typed, so the first thread is not an empty one (those leave when left).
          await s.setLines(first.input_bufnr!, ["a draft"]);
          await s.cmd("Tine claude");
          const claude = (await s.threads()).find((t) => t.id !== first.id)!;
          const tine = (await layout(s)).filter((w) => isTine(w.name));
          assert.deepEqual(
            tine.map((w) => w.name),
            [await s.lua("return vim.api.nvim_buf_get_name(...)", claude.bufnr)],
            `one window, the terminal's: ${names(tine)}`,
          );
          await s.open(first.id);
          assertColumn(await layout(s), 1);
        },
        { cwd, setup: { claude_command: [bin] }, env: cliEnv },
      );
    });
  });
});
