/**
 * The chat as a user drives it in real Neovim, against the HTTP mock of the Messages API: the
 * sidebar and its commands, a streamed reply and its thinking, <C-c>, API errors and stop reasons,
 * a missing API key, the thread list, a crashed host, the remote-plugin host. Each test stands
 * alone in its own Neovim.
 */
import assert from "node:assert/strict";
import { describe, inject, it } from "vitest";
import { isTine } from "../helpers/buffer-names.ts";
import { body, openSidebar, sentBlocks, textOf, typeAndSend } from "../helpers/chat-driver.ts";
import { withNeovim } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";
import { errorReply } from "../mock-anthropic/server.ts";

const nv = inject("nvim");

describe(`chat (${nv.version})`, () => {
  it(":Tine opens display above input; <CR> sends; the reply streams in with usage", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(response([{ text: "Hello!\nSecond line." }], { usage: { cache_read_input_tokens: 1234, output_tokens: 9 } }));
      const t = await openSidebar(s);
      const layout = await s.lua<{ display: string; input: string; above: boolean; ft: string }>(`
        local input_win = vim.api.nvim_get_current_win()
        vim.cmd("wincmd k")
        local display_win = vim.api.nvim_get_current_win()
        local r = { input = vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(input_win)),
          display = vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(display_win)),
          above = vim.api.nvim_win_get_position(display_win)[1] < vim.api.nvim_win_get_position(input_win)[1],
          ft = vim.bo[vim.api.nvim_win_get_buf(display_win)].filetype }
        vim.api.nvim_set_current_win(input_win)
        return r`);
      assert.ok(isTine(layout.display, 1, "display"), layout.display);
      assert.match(layout.input, / \[input\]$/);
      assert.ok(layout.above);
      assert.equal(layout.ft, "markdown");
      await typeAndSend(s, "hi there");
      const shown = await s.waitForDisplay(t.id, "cache read 1,234");
      assert.match(shown, /## You\nhi there\n\n## Claude\nHello!\nSecond line.\n── end_turn · in 10 · out 9 · cache read 1,234/);
      assert.deepEqual(await s.lines(t.input_bufnr!), [""], "the input is cleared after a send");
      assert.deepEqual(body(s, 0).messages, [
        { role: "user", content: [{ type: "text", text: "hi there", cache_control: { type: "ephemeral" } }] },
      ]);
    });
  });

  it("shows a live indicator while streaming and appends deltas in place", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(response([{ text: "Streaming slowly and then done.", holdInside: { hold: "mid", afterDeltas: 2 } }]));
      const t = await openSidebar(s);
      await typeAndSend(s, "go");
      await s.waitForDisplay(t.id, /## Claude\nStreaming slowly$/m);
      await s.until("the spinner", async () => (await s.spinners(t.bufnr!)) === 1);
      assert.equal((await s.threads())[0]!.status, "streaming");
      s.mock.release("mid");
      await s.waitForDisplay(t.id, "Streaming slowly and then done.\n── end_turn");
      await s.until("the spinner to go", async () => (await s.spinners(t.bufnr!)) === 0);
    });
  });

  it("thinking is collapsed to a summary line and <Tab> expands it", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(response([{ thinking: "deep thoughts\nin two lines", signature: "sig" }, { text: "Answer." }]));
      const t = await openSidebar(s);
      await typeAndSend(s, "think");
      await s.waitForDisplay(t.id, "▸ Thinking (26 chars)\nAnswer.");
      await s.onDisplayLine(t.id, "▸ Thinking (26 chars)", "<Tab>");
      await s.waitForDisplay(t.id, "▾ Thinking\n> deep thoughts\n> in two lines\nAnswer.");
      // By default thinking is adaptive and summarized, so there is something to read.
      assert.deepEqual(body(s, 0).thinking, { type: "adaptive", display: "summarized" });
      assert.equal(body(s, 0).output_config, undefined);
    });
  });

  it("<Tab> on finished thinking expands it while the reply still streams", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(
        response([
          { thinking: "deep thoughts\nin two lines", signature: "sig" },
          { text: "Answer.", holdInside: { hold: "h", afterDeltas: 1 } },
        ]),
      );
      const t = await openSidebar(s);
      await typeAndSend(s, "think");
      await s.mock.reached("h");
      await s.waitForDisplay(t.id, "▸ Thinking (26 chars)");
      await s.onDisplayLine(t.id, "▸ Thinking (26 chars)", "<Tab>");
      await s.waitForDisplay(t.id, "▾ Thinking\n> deep thoughts\n> in two lines");
      assert.equal((await s.threads())[0]!.status, "streaming", "expanded while the reply streams");
      s.mock.release("h");
      await s.waitForDisplay(t.id, "> in two lines\nAnswer.\n── end_turn");
    });
  });

  it("<Tab> on thinking still streaming expands it: it streams on expanded and stays so once finished", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(
        response([
          { thinking: "deep thoughts\nin two lines", signature: "sig", chunk: 5, holdInside: { hold: "h", afterDeltas: 1 } },
          { text: "Answer." },
        ]),
      );
      const t = await openSidebar(s);
      await typeAndSend(s, "think");
      await s.mock.reached("h");
      await s.waitForDisplay(t.id, "▸ Thinking… (5 chars)");
      await s.onDisplayLine(t.id, "▸ Thinking…", "<Tab>");
      await s.waitForDisplay(t.id, "▾ Thinking…\n> deep ");
      s.mock.release("h");
      await s.waitForDisplay(t.id, "▾ Thinking\n> deep thoughts\n> in two lines\nAnswer.\n── end_turn");
    });
  });

  it("thinking and effort from setup() reach the request", async () => {
    await withNeovim(
      nv,
      async (s) => {
        s.mock.reply(textReply("one"));
        const t = await openSidebar(s);
        await typeAndSend(s, "go");
        await s.waitForDisplay(t.id, "one\n── end_turn");
        assert.deepEqual(body(s, 0).thinking, { type: "enabled", budget_tokens: 2048 });
        assert.deepEqual(body(s, 0).output_config, { effort: "low" });
      },
      { setup: { thinking: { type: "enabled", budget_tokens: 2048 }, effort: "low" } },
    );
  });

  // Changed by the daily-use issue: the text being read when <C-c> came is kept (marked), not dropped.
  it("<C-c> aborts a stream: finished blocks and the partial text stay, marked interrupted; the next request is valid", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(
        response([{ text: "Kept block." }, { text: "cut off here", holdInside: { hold: "mid", afterDeltas: 1 } }]),
        textReply("After abort."),
      );
      const t = await openSidebar(s);
      await typeAndSend(s, "start");
      await s.waitForDisplay(t.id, "cut off");
      await s.keys("<C-c>");
      const shown = await s.waitForDisplay(t.id, "⏹ Aborted");
      assert.match(shown, /Kept block\.\ncut off ?\n── interrupted \(aborted\): the reply stops here/);
      assert.equal((await s.threads())[0]!.stop_reason, "aborted");
      s.mock.release("mid");
      await typeAndSend(s, "continue");
      await s.waitForDisplay(t.id, "After abort.");
      const kept = sentBlocks(s, 1, 1);
      assert.deepEqual(kept[0], { type: "text", text: "Kept block." });
      assert.match(textOf(kept[1]) as string, /^cut off ?$/, "the partial text, as it had arrived");
    });
  });

  // Changed by the daily-use issue: the error says where and what, and a new send replaces the
  // failed turn instead of joining it (its text comes back into the input).
  it("an API error is shown in the thread, which stays usable; a new send replaces the failed turn", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(errorReply(400, "invalid_request_error", "prompt is too long"), textReply("Works again."));
      const t = await openSidebar(s);
      await typeAndSend(s, "first");
      const host = new URL(s.mock.url).host;
      await s.waitForDisplay(t.id, `⚠ Error: ${host} answered HTTP 400 invalid_request_error: prompt is too long`);
      assert.match(await s.display(t.id), /R \(or :Tine retry\) sends it again; a new message replaces it/);
      assert.equal((await s.threads())[0]!.status, "error");
      await typeAndSend(s, "second");
      await s.waitForDisplay(t.id, "Works again.");
      assert.deepEqual(body(s, 1).messages, [
        { role: "user", content: [{ type: "text", text: "second", cache_control: { type: "ephemeral" } }] },
      ]);
      assert.deepEqual(await s.lines(t.input_bufnr!), ["first"], "the failed text is back in the input");
    });
  });

  // A send while the thread streams is no longer refused: it is queued (test/integration/queue.test.ts).

  it("without ANTHROPIC_API_KEY the thread says so, and how to set it from inside Neovim (which works)", async () => {
    await withNeovim(
      nv,
      async (s) => {
        const t = await openSidebar(s);
        await typeAndSend(s, "hello?");
        await s.waitForDisplay(t.id, "⚠ Error: ANTHROPIC_API_KEY is not set. From inside Neovim: :let $ANTHROPIC_API_KEY = '…'");
        assert.match(await s.display(t.id), /then :Tine restart/);
        assert.equal(s.mock.requests.length, 0);
        // What it says, done: the new host reads the key.
        s.mock.reply(textReply("Now with a key."));
        await s.cmd("let $ANTHROPIC_API_KEY = 'test-key'");
        await s.cmd("Tine restart");
        await s.focus((await s.thread(t.id)).input_bufnr!);
        await typeAndSend(s, "hello again?");
        await s.waitForDisplay(t.id, "Now with a key.");
        assert.deepEqual(s.mock.requests[0]!.violations, []);
      },
      { env: { ANTHROPIC_API_KEY: undefined } },
    );
  });

  it("max_tokens and refusal say what happened and what to do; the thread goes on", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(
        response([{ text: "Reading." }, { toolUse: { id: "t1", name: "get_file", input: { path: "a.txt" } }, cutInputAt: 5 }], {
          stopReason: "max_tokens",
        }),
        response([{ text: "No." }], { stopReason: "refusal" }),
        textReply("Fine."),
      );
      const t = await openSidebar(s);
      await typeAndSend(s, "read a.txt");
      let shown = await s.waitForDisplay(t.id, "⚠ Stopped at the max_tokens limit");
      assert.match(
        shown,
        /🔧 get_file: \{\}\n── max_tokens[^\n]*\n\n## Tool results\n✗ get_file: The response stopped \(max_tokens\)/,
        "the cut-off call is shown as not run",
      );
      await typeAndSend(s, "continue");
      shown = await s.waitForDisplay(t.id, "⚠ The model declined to respond");
      assert.doesNotMatch(shown, /max_tokens limit/, "the note is about the latest stop only");
      await typeAndSend(s, "please");
      shown = await s.waitForDisplay(t.id, "Fine.\n── end_turn");
      assert.doesNotMatch(shown, /declined/);
      assert.deepEqual(
        sentBlocks(s, 1, 2).map((b) => b.type),
        ["tool_result", "text"],
      );
    });
  });

  it(":Tine toggles the sidebar; :Tine send and :Tine abort work; unsent input survives switching", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(response([{ text: "Done. And then more", holdInside: { hold: "h", afterDeltas: 1 } }]));
      const sidebarWins = async () => (await s.windows({ allTabs: true })).filter((n) => isTine(n)).length;
      const t1 = await openSidebar(s);
      assert.equal(await sidebarWins(), 2);
      await s.cmd("Tine");
      assert.equal(await sidebarWins(), 0, ":Tine closes an open sidebar");
      await s.cmd("Tine");
      assert.equal(await sidebarWins(), 2, "and opens it again");
      await s.setLines(t1.input_bufnr!, ["draft for one"]);
      await s.cmd("Tine new");
      const t2 = (await s.threads()).find((t) => t.id !== t1.id)!;
      await s.setLines(t2.input_bufnr!, ["from the command"]);
      await s.cmd("Tine send");
      await s.waitForDisplay(t2.id, /## Claude\nDone\./);
      await s.cmd("Tine abort");
      await s.waitForDisplay(t2.id, "⏹ Aborted");
      assert.equal(textOf(sentBlocks(s, 0, 0)[0]), "from the command");
      await s.openList();
      await s.onListLine(1, "<CR>");
      assert.deepEqual(await s.lines(t1.input_bufnr!), ["draft for one"], "thread 1's unsent input is still there");
      s.mock.release("h");
    });
  });

  it(":Tine threads lists threads with live status; <CR> opens one", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(response([{ text: "slow", holdInside: { hold: "h", afterDeltas: 1 } }]));
      await openSidebar(s);
      await typeAndSend(s, "one");
      await s.cmd("Tine new");
      await s.openList();
      // The first thread is titled from its first message; the new one waits for its own.
      await s.listLine("  one  ⋯ streaming · 1 msg");
      assert.match(await s.listText(), /▶ #2 {2}Thread 2 {2}· idle · 0 msgs/);
      s.mock.release("h");
      await s.until("live status", async () => (await s.listLines())[0]!.includes("one  · idle · 2 msgs"));
      await s.onListLine(1, "<CR>");
      assert.equal(await s.lua("return require('tine').current()"), (await s.thread(1)).id);
      const shownBuf = await s.lua<string>(
        "return vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(require('tine.ui').sidebar().display))",
      );
      assert.ok(isTine(shownBuf, 1, "display"), shownBuf);
    });
  });

  it("a crashed host is reported and :Tine restart recovers", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(textReply("after restart"));
      await openSidebar(s);
      await s.lua(`
        for _, chan in ipairs(vim.api.nvim_list_chans()) do
          if chan.mode == "rpc" and chan.stream == "job" then vim.fn.jobpid(chan.id) vim.uv.kill(vim.fn.jobpid(chan.id), "sigkill") end
        end`);
      await s.until("the crash report", async () => (await s.notifications()).some((n) => /the host exited .*:Tine restart/s.test(n.msg)));
      await s.cmd("Tine restart");
      const t = (await s.threads())[0]!;
      await typeAndSend(s, "again");
      await s.waitForDisplay(t.id, "after restart");
    });
  });

  it("runs under the classic node remote-plugin host too (:UpdateRemotePlugins)", async () => {
    await withNeovim(
      nv,
      async (s) => {
        s.mock.reply(textReply("Via rplugin."));
        const t = await openSidebar(s);
        await typeAndSend(s, "classic");
        await s.waitForDisplay(t.id, "Via rplugin.");
        assert.equal(await s.lua("return require('tine.host').running() and vim.g.tine_rplugin"), 1);
      },
      { rplugin: true },
    );
  });
});
