/** Replies and threads of any length render, to their last line, in real Neovim; a long thread opens at its end. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { History } from "../../node/core/history.ts";
import { assistantMessage, entry, userMessage } from "../../node/core/native.ts";
import { ThreadStore } from "../../node/store/store.ts";
import { ThreadRecorder } from "../../node/store/sync.ts";
import { renderEntry } from "../../node/view/render.ts";
import { typeAndSend } from "../helpers/chat-driver.ts";
import { type Session, withNeovim } from "../helpers/neovim.ts";
import { response } from "../mock-anthropic/script.ts";

const nv = inject("nvim");

/** `n` numbered lines, so the last one shown proves nothing before it was lost. */
const numbered = (n: number, width = 0) =>
  Array.from({ length: n }, (_, i) => `line ${i + 1}${width ? ` ${"x".repeat(width)}` : ""}`).join("\n");

/** The store of the session's project, as the host finds it (XDG_DATA_HOME is in the project folder). */
const storeOf = async (s: Session) => new ThreadStore(join(s.cwd, ".data", "nvim", "tine"), await s.lua<string>("return vim.fn.getcwd()"));

/**
 * Opens stored thread `id` and reads, before Neovim does anything else, what its display shows
 * then; counts the ticks of a timer until the display holds `top` (the thread's first line).
 */
const OPEN_AND_LOOK = `
local id, top = ...
local probe = { ticks = 0 }
_G.fill_probe = probe
require('tine').open(id)
local disp = vim.b.tine_display
local win = vim.fn.win_findbuf(disp)[1]
local seen = {
  disp = disp,
  count = vim.api.nvim_buf_line_count(disp),
  shown = vim.api.nvim_buf_get_lines(disp, vim.fn.line('w0', win) - 1, vim.fn.line('w$', win), false),
}
local timer = vim.uv.new_timer()
timer:start(5, 5, vim.schedule_wrap(function()
  if vim.api.nvim_buf_get_lines(disp, 1, 2, false)[1] == top then
    timer:stop()
    timer:close()
    return
  end
  probe.ticks = probe.ticks + 1
end))
return seen`;

describe(`long replies (${nv.version})`, () => {
  it("a 200,000-line text block shows whole, streamed and after it finished; the thread goes on", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(response([{ text: numbered(200_000), chunk: 64 * 1024 }]), response([{ text: "Still fine." }]));
      await s.cmd("Tine");
      await typeAndSend(s, "a long one");
      await s.until("the reply to finish", async () => (await s.thread(1)).status === "idle", 60_000);
      const t = await s.thread(1);
      const lines = await s.lines(t.bufnr!);
      const first = lines.indexOf("line 1");
      assert.ok(first > 0, "the reply's first line is shown");
      assert.equal(lines[first + 199_999], "line 200000", "the reply's last line is shown, none lost");
      await typeAndSend(s, "and now?");
      await s.waitForDisplay(1, "Still fine.");
    });
  }, 120_000);

  it("a 10 MB reply of a million short lines shows whole", async () => {
    await withNeovim(nv, async (s) => {
      // 1,000,000 lines of about 10 characters: 10 MB.
      const text = Array.from({ length: 1_000_000 }, (_, i) => `l${i + 1} xxxx`).join("\n");
      s.mock.reply(response([{ text, chunk: 512 * 1024 }]));
      await s.cmd("Tine");
      await typeAndSend(s, "a big one");
      // A million lines take seconds to stream and draw on this machine; what is checked is that they all arrive.
      await s.until("the reply to finish", async () => (await s.thread(1)).status === "idle", 60_000);
      const buf = (await s.thread(1)).bufnr!;
      const found = await s.lua<number[]>(
        `local lines = vim.api.nvim_buf_get_lines(..., 0, -1, false)
         return { #lines, vim.fn.index(lines, "l1 xxxx"), vim.fn.index(lines, "l1000000 xxxx") }`,
        buf,
      );
      const [count, first, last] = found as [number, number, number];
      assert.ok(count > 1_000_000, `every line is in the buffer (${count})`);
      assert.ok(first > 0 && last === first + 999_999, "the first and the last of the million lines are shown, none lost between");
    });
  }, 120_000);

  it("a long stored thread shows its end when open returns, fills in by steps while Neovim answers, and a send meanwhile ends right", async () => {
    // 40 messages of 400 lines (500 KB), written 2 KB a step: some 500 steps.
    const MESSAGES = 40;
    const LINES = 400;
    const line = (m: number, l: number) => `m${m} l${l} `.padEnd(30, "-");
    await withNeovim(
      nv,
      async (s) => {
        // Written as the host writes a thread, before the host starts (it finds it when it starts).
        const id = "00000000-0000-4000-8000-0000000000f1";
        const title = "a long one";
        const entries = Array.from({ length: MESSAGES }, (_, m) => {
          const text = Array.from({ length: LINES }, (_, l) => line(m, l)).join("\n");
          return entry(m % 2 ? assistantMessage([{ type: "text", text }]) : userMessage([{ type: "text", text }]));
        });
        const empty = { history: History.empty, open: [], streamed: "", results: new Map(), title, reports: [] };
        const store = await storeOf(s);
        const rec = new ThreadRecorder(store.create({ id, num: 1, title, model: "m", runner: { kind: "api" }, parent: null }), empty);
        rec.sync({ ...empty, history: History.of(entries) });
        rec.close();
        s.mock.reply(response([{ text: "Streamed while it filled in.", chunk: 8, holdInside: { hold: "mid", afterDeltas: 2 } }]));
        const total = MESSAGES * (LINES + 2) + 1; // each message: its header, its lines, a blank; the footer

        const seen = await s.lua<{ disp: number; count: number; shown: string[] }>(OPEN_AND_LOOK, id, line(0, 0));
        assert.ok(seen.shown.includes(line(MESSAGES - 1, LINES - 1)), "the window shows the thread's last line when open returns");
        assert.ok(seen.count < total / 10, `the first screen is a small part of the thread (${seen.count} of ${total} lines)`);
        // Neovim answers while the rest is filled in: a send from the input, and where a line is.
        await typeAndSend(s, "and now?");
        const during = await s.lua<number>("return vim.api.nvim_buf_line_count(...)", seen.disp);
        assert.ok(during < total, `the send was made while the display filled in (${during} of ${total} lines)`);
        await s.until(
          "the fill to reach the last message's first line",
          async () => (await s.lines(seen.disp)).includes(line(MESSAGES - 1, 0)),
          30_000,
        );
        // Asked again and again while steps come in: the message at a line, and the line of a
        // message (where gb puts the cursor), each as Neovim numbers its lines then.
        const found = await s.lua<{ at: { message: number; block: number }; first: string }[]>(
          `local disp, id, text, message = ...
           local host = require('tine.host')
           local found = {}
           for _ = 1, 20 do
             local n = vim.fn.index(vim.api.nvim_buf_get_lines(disp, 0, -1, false), text)
             local at = host.request('locate', id, n)
             local start = host.request('locate_message', id, message)
             table.insert(found, { at = at, first = vim.api.nvim_buf_get_lines(disp, start + 1, start + 2, false)[1] })
           end
           return found`,
          seen.disp,
          id,
          line(MESSAGES - 1, 0),
          MESSAGES - 1,
        );
        const wrong = found.filter((f) => f.at.message !== MESSAGES - 1 || f.at.block !== 0 || f.first !== line(MESSAGES - 1, 0));
        assert.deepEqual(wrong, [], "a line shown while filling in is found in its message, and the message at its line");
        await s.mock.reached("mid");
        await s.until("the streamed text to show", async () => (await s.lines(seen.disp)).includes("Streamed while i"));
        s.mock.release("mid");
        await s.until("the reply to end", async () => (await s.thread(id)).status === "idle");
        await s.until(
          "the display to fill in to its first line",
          async () => (await s.lua<string[]>("return vim.api.nvim_buf_get_lines(..., 1, 2, false)", seen.disp))[0] === line(0, 0),
          30_000,
        );
        assert.ok((await s.lua<number>("return _G.fill_probe.ticks")) >= 3, "Neovim's timers ran while the display filled in");

        // Byte for byte what a whole render of the thread as stored shows.
        let stored = History.empty;
        await s.until("the reply to be stored", async () => {
          stored = (await storeOf(s)).load(id).history;
          return stored.length === MESSAGES + 2;
        });
        const expected: string[] = [];
        for (let i = 0; i < stored.length; i++) expected.push(...renderEntry(stored.at(i), { index: i, expanded: new Set() }).lines);
        expected.push("");
        const lines = await s.lines(seen.disp);
        assert.deepEqual(lines.slice(-8), expected.slice(-8));
        assert.deepEqual(lines, expected);
        const shownAtEnd = await s.lua<string[]>(
          "local disp = ...; local win = vim.fn.win_findbuf(disp)[1]; return vim.api.nvim_buf_get_lines(disp, vim.fn.line('w0', win) - 1, vim.fn.line('w$', win), false)",
          seen.disp,
        );
        assert.ok(shownAtEnd.includes("Streamed while it filled in."), "the window stayed at the thread's end");
      },
      { setup: { display_fill_step: 2048 } },
    );
  }, 60_000);
});
