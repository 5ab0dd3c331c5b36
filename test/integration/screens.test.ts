/**
 * What the screen shows of tine's threads where Neovim draws it (issue #30): tab labels, status
 * lines and winbars of narrow columns, a refused quit. Read from Neovim's own screen
 * (screenstring), as a user would see it.
 */
import assert from "node:assert/strict";
import { describe, inject, it } from "vitest";
import { typeAndSend } from "../helpers/chat-driver.ts";
import { oneExchange, parentAndFork } from "../helpers/fixtures.ts";
import { type Session, withNeovim } from "../helpers/neovim.ts";
import { statusLines, windowRows } from "../helpers/screen.ts";
import { winbar } from "../helpers/winbar.ts";
import { response } from "../mock-anthropic/script.ts";

const nv = inject("nvim");

/** Row `row` (1-based) of the screen as Neovim draws it now. */
const screenRow = (s: Session, row: number) =>
  s.lua<string>(
    `local row = ...
    vim.cmd("redraw!")
    local out = {}
    for col = 1, vim.o.columns do out[#out + 1] = vim.fn.screenstring(row, col) end
    return (table.concat(out):gsub("%s+$", ""))`,
    row,
  );

describe(`screens (${nv.version})`, () => {
  it("two thread columns at 120 columns: each status line leads with #N and its title's start; a narrow winbar keeps the cost before the model's name", async () => {
    await withNeovim(
      nv,
      async (s) => {
        await s.lua("vim.o.columns = 120; vim.o.lines = 35");
        await parentAndFork(s, {
          prompt: "make the config parser accept nested sections",
          answer: "Parent answer.",
          forkPrompt: "try a hand-written recursive descent parser",
          forkAnswer: "Fork answer.",
        });
        const [parent, fork] = [await s.thread(1), await s.thread(2)];
        const widths = await s.lua<number[]>(
          "return vim.tbl_map(function(b) return vim.api.nvim_win_get_width(vim.fn.win_findbuf(b)[1]) end, {...})",
          parent.bufnr,
          fork.bufnr,
        );
        assert.ok(
          widths.every((w) => w < 60),
          `two columns side by side: ${widths}`,
        );
        const expected: [number, RegExp][] = [
          [parent.bufnr!, /^#1 make the config par.*… \[-\] +\d+,/],
          [parent.input_bufnr!, /^#1 make the config par.*… \[input\] +\d+,/],
          [fork.bufnr!, /^#2 try a hand-written.*… \[-\] +\d+,/],
          [fork.input_bufnr!, /^#2 try a hand-written.*… \[input\] +\d+,/],
        ];
        for (const [buf, pattern] of expected) {
          const [line] = await statusLines(s, buf);
          assert.match(line!, pattern, "the number, the title cut at its end (and marked), the flags, the ruler");
        }
        // A narrow winbar: the model's name shortens, then goes, before the cost does.
        const display = await s.lua<number>("return vim.fn.win_findbuf(...)[1]", fork.bufnr);
        await s.lua("vim.api.nvim_win_set_width(...)", display, 40);
        assert.match(await winbar(s, fork.id), /^sonnet-5-5 {2}· .*\$0\.\d+$/);
        await s.lua("vim.api.nvim_win_set_width(...)", display, 24);
        assert.match(await winbar(s, fork.id), /^ctx 30 \/ 1M {2}· {2}\$0\.\d+$/);
        await s.lua("vim.api.nvim_win_set_width(...)", display, 12);
        assert.match(await winbar(s, fork.id), /^\$0\.\d+$/);
        // Renamed, the status line follows.
        await s.lua("vim.api.nvim_win_set_width(...)", display, 50);
        await s.focus(fork.input_bufnr!);
        await s.cmd("Tine rename short title");
        await s.until("the status line renamed", async () =>
          (await statusLines(s, fork.input_bufnr!))[0]!.startsWith("#2 short title [input]"),
        );
      },
      { setup: { sidebar: { side: "right", width: 80, input_height: 8, min_editor_width: 10 } } },
    );
  });

  it("the input's approval notice is wrapped to its window: every answer key shows whole, also after a resize", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(response([{ toolUse: { id: "t1", name: "bash_command", input: { command: "echo hi" } } }]));
      await s.cmd("Tine");
      await typeAndSend(s, "run it");
      await s.waitForDisplay(1, "awaiting approval");
      const input = (await s.thread(1)).input_bufnr!;
      await s.until("the input to know", () => s.lua<boolean>("return vim.b[...].tine_pending == true", input));
      const answers = ["<C-y> approve", "g<C-y> always", "<C-n> deny", "g<C-n> deny saying why"];
      for (const width of [40, 24]) {
        await s.lua("local buf, width = ...; vim.api.nvim_win_set_width(vim.fn.win_findbuf(buf)[1], width)", input, width);
        let shown = "";
        await s
          .until(`the notice wrapped to ${width} columns`, async () => {
            shown = (await windowRows(s, input)).join("\n");
            return answers.every((a) => shown.includes(a));
          })
          .catch((e: Error) => {
            throw new Error(`${e.message}; the input shows:\n${shown}`);
          });
        assert.match(shown.replace(/\n\s*/g, " "), /⏳ a tool call waits for your approval \(Normal mode\): <C-y> approve/);
      }
    });
  });

  it("a typed :qa or :q while a reply streams asks; cancelled, it says which thread works and how to quit, with no error number and the same window; confirmed, it quits", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(response([{ text: "Streaming on", holdInside: { hold: "h", afterDeltas: 1 } }]));
      await s.cmd("Tine");
      await typeAndSend(s, "go");
      await s.mock.reached("h");
      await s.until("Neovim told", async () => s.lua<boolean>("return #require('tine.quit').working() == 1"));
      await s.lua("_G.tine_confirmed = {}; vim.fn.confirm = function(q) table.insert(_G.tine_confirmed, q); return 2 end");
      const input = await s.currentBuf();
      const win = await s.lua<number>("return vim.api.nvim_get_current_win()");
      for (const [i, typed] of ["<Esc>:qa<CR>", ":only<CR>:q<CR>", ":wqa<CR>"].entries()) {
        await s.keys(typed);
        await s.until(`asked after ${typed}`, async () => (await s.lua<number>("return #_G.tine_confirmed")) === i + 1);
        assert.match(await s.lua<string>(`return _G.tine_confirmed[${i + 1}]`), /#1 "go" streams/);
        await s.until(`told after ${typed}`, async () => {
          const told = (await s.notifications()).filter((n) =>
            /^tine: not quitting: #1 "go" streams\. `:qa!` quits and cuts it off .*<C-c> in its display or input/.test(n.msg),
          );
          return told.length === i + 1;
        });
        const said = await s.lua<string>("return vim.fn.execute('messages')");
        assert.doesNotMatch(said, /E\d+:/, `no error number after ${typed}`);
        assert.equal(await s.lua("return vim.v.errmsg"), "");
        assert.ok(s.running());
        assert.equal(await s.lua<number>("return vim.api.nvim_get_current_win()"), win, "the same window");
        assert.equal(await s.currentBuf(), input, "with its buffer");
        await s.lua("vim.cmd('messages clear')");
      }
      // What works may stop while the question is open (the reply reaches a tool approval): the
      // answer still names what the user was asked about.
      await s.lua(`vim.fn.confirm = function()
        local quit = require("tine.quit")
        _G.tine_was_working = quit.working()
        quit.set_working({})
        return 2
      end`);
      await s.keys(":qa<CR>");
      const toldAfterQuestion = async () => (await s.notifications()).filter((n) => n.msg.startsWith("tine: not quitting: "));
      await s.until("told after the question", async () => (await toldAfterQuestion()).length === 4);
      assert.match((await toldAfterQuestion())[3]!.msg, /^tine: not quitting: #1 "go" streams\. `:qa!` quits/, "what was asked about");
      await s.lua("require('tine.quit').set_working(_G.tine_was_working)");
      // Confirmed, the typed quit runs (typed keys that quit Neovim get no answer).
      await s.lua("vim.fn.confirm = function() return 1 end");
      void s.keys(":qa<CR>").catch(() => {});
      await s.waitForExit();
    });
  });

  it("g? in a display groups its keys by task and wraps every line to the float, marking lines below it; the fork's keys only in a fork", async () => {
    await withNeovim(nv, async (s) => {
      await s.lua("vim.o.columns = 120; vim.o.lines = 30");
      await parentAndFork(s);
      // Not a fork: its keys to end a fork are not listed (nor mapped to anything that would act).
      await s.focus((await s.thread(1)).bufnr!);
      await s.keys("g?");
      const parentHelp = await s.lua<string[]>("return vim.api.nvim_buf_get_lines(0, 0, -1, false)");
      assert.ok(parentHelp.includes("Tool calls"), `the parent's g? lists its keys:\n${parentHelp.join("\n")}`);
      assert.ok(!parentHelp.includes("This fork"), `no "This fork" keys in a thread that is no fork:\n${parentHelp.join("\n")}`);
      await s.keys("q");
      const t = await s.thread(2);
      await s.focus(t.bufnr!);
      const described = await s.lua<string[]>(
        `local out = {}
        for _, m in ipairs(vim.api.nvim_buf_get_keymap(0, "n")) do
          if (m.desc or ""):match("^tine: ") then out[#out + 1] = m.desc:sub(7) end
        end
        return out`,
      );
      await s.keys("g?");
      const float = await s.lua<{ width: number; height: number; footer: unknown; lines: string[]; widths: number[] }>(
        `local c = vim.api.nvim_win_get_config(0)
        local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
        return { width = c.width, height = c.height, footer = c.footer or "", lines = lines,
          widths = vim.tbl_map(vim.fn.strdisplaywidth, lines) }`,
      );
      const text = float.lines.join("\n");
      assert.ok(
        float.widths.every((w) => w <= float.width),
        `every line fits the float's ${float.width} columns:\n${float.lines.filter((_, i) => float.widths[i]! > float.width).join("\n")}`,
      );
      // Grouped by task: the tool-call keys together under their heading, whatever their keys.
      const rows = (heading: string) => {
        const from = float.lines.indexOf(heading);
        assert.ok(from >= 0, `a "${heading}" heading:\n${text}`);
        const end = float.lines.indexOf("", from);
        return float.lines.slice(from + 1, end < 0 ? undefined : end).filter((l) => /^ {2}\S/.test(l));
      };
      assert.deepEqual(
        rows("Tool calls").map((l) => l.trim().split(/\s+/)[1]),
        ["a", "A", "d", "D"],
      );
      assert.deepEqual(
        rows("This fork").map((l) => l.trim().split(/\s+/)[1]),
        ["gR", "gP", "gD"],
      );
      // Every description is there whole, wrapped or not.
      const flat = text.replace(/\s+/g, " ");
      for (const desc of described) assert.ok(flat.includes(desc.replace(/\s+/g, " ")), `"${desc}" is shown whole:\n${text}`);
      assert.ok(float.lines.length > float.height, "more lines than the float shows, on a 30-line screen");
      assert.match(JSON.stringify(float.footer), /more below/, "the float says there is more");
    });
  });

  it("Neovim's default tab line labels a thread's tab with its number and title, from its input or its display", async () => {
    await withNeovim(nv, async (s) => {
      await s.lua("vim.o.columns = 120; vim.o.lines = 35; vim.o.showtabline = 2");
      await oneExchange(s, "main question", "Parent answer.");
      const t = await s.thread(1);
      assert.equal(await s.lua("return vim.o.tabline"), "", "the user's tab line: Neovim's default");
      await s.focus(t.input_bufnr!);
      const fromInput = await screenRow(s, 1);
      assert.match(fromInput, /tine #1 main question \[input\]/, fromInput);
      assert.doesNotMatch(fromInput, /t\/\//, fromInput);
      await s.focus(t.bufnr!);
      assert.match(await screenRow(s, 1), /tine #1 main question(?! \[input\])/);
      // A title with a slash stays one name, not folders to shorten.
      await s.cmd("Tine rename fix a/b parsing");
      await s.focus(t.input_bufnr!);
      await s.until("the tab renamed", async () => (await screenRow(s, 1)).includes("tine #1 fix a∕b parsing [input]"));
    });
  });
});
