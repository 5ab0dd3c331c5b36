/**
 * Daily use without surprises: a host crash or error, tabs, buffers and windows that go away,
 * <C-s>, files an edit changed, setup() with a bad option, :help. Each test stands alone in its own
 * Neovim.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { curBufName, isTine, shortNames } from "../helpers/buffer-names.ts";
import { sentBlocks, textOf, typeAndSend } from "../helpers/chat-driver.ts";
import { oneExchange } from "../helpers/fixtures.ts";
import { withNeovim } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");

describe(`daily use (${nv.version})`, () => {
  it("a host crash stops the spinner, says so in the thread and the list, and the next command offers :Tine restart", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(response([{ text: "Streaming when it dies", holdInside: { hold: "h", afterDeltas: 1 } }]), textReply("Back."));
      await s.cmd("Tine");
      await typeAndSend(s, "hello");
      await s.waitForDisplay(1, "## Claude\nS");
      const t = await s.thread(1);
      await s.openList();
      await s.until("the spinner", async () => (await s.spinners(t.bufnr!)) === 1);
      process.kill(await s.hostPid(), "SIGKILL");
      await s.until("the crash report", async () => /the host exited .*:Tine restart/s.test(await s.lastNotification()));
      assert.equal(await s.spinners(t.bufnr!), 0, "the spinner stops");
      assert.match((await s.lines(t.bufnr!)).join("\n"), /⚠ The tine host exited: :Tine restart/);
      assert.match((await s.listLines())[0]!, /⚠ The tine host exited/);
      // The next command does not quietly start an empty host.
      await s.focus(t.input_bufnr!);
      await typeAndSend(s, "are you there?");
      assert.match(await s.lastNotification(), /the host exited \(code \d+; log: .*\)\. Run :Tine restart: your stored threads come back/);
      assert.deepEqual(await s.lines(t.input_bufnr!), ["are you there?"], "the text stays in the input");
      assert.equal(await s.lua("return require('tine.host').running()"), false);
      s.mock.release("h");
      await s.cmd("Tine restart");
      const again = await s.thread(t.id);
      assert.equal(again.status, "idle");
      assert.match(await s.display(t.id), /## You\nhello/);
      assert.deepEqual(await s.lines(again.input_bufnr!), ["are you there?"], "the unsent text outlives the restart");
      await s.focus(again.input_bufnr!);
      await s.keys("<CR>");
      await s.waitForDisplay(t.id, "Back.");
    });
  });

  it(":Tine in a second tab opens the sidebar there and leaves the first tab's alone", async () => {
    await withNeovim(nv, async (s) => {
      await s.cmd("Tine");
      await s.cmd("tabnew");
      await s.cmd("Tine");
      assert.ok(
        (await s.windows()).some((n) => isTine(n, 1)),
        "the sidebar opened in the second tab",
      );
      await s.cmd("tabprevious");
      assert.ok(
        (await s.windows()).some((n) => isTine(n, 1)),
        "the first tab's sidebar is still open",
      );
      await s.cmd("tabnext");
      await s.cmd("Tine");
      assert.ok(!(await s.windows()).some((n) => isTine(n)), ":Tine toggles the sidebar of the current tab");
    });
  });

  it("<C-s> sends from Insert mode; an empty thread shows how to start; g? lists the keys", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(textReply("Got it."));
      await s.cmd("Tine");
      assert.match(
        await s.display(1),
        /^Type below and send with <CR> \(or <C-s>\) · @fork <prompt> forks this thread · g\? lists the keys/,
      );
      await s.keys("g?");
      const keys = (await s.lines(0)).join("\n");
      assert.match(keys, /n {2}<CR>\s+send/);
      assert.match(keys, /i {2}<C-S>\s+send \(Insert mode too\)/);
      await s.keys("q");
      assert.match(await curBufName(s), / \[input\]$/);
      await s.keys("iwritten in insert mode<C-s>");
      await s.waitForDisplay(1, "Got it.");
      assert.equal(textOf(sentBlocks(s, 0, 0)[0]), "written in insert mode");
      assert.doesNotMatch(await s.display(1), /Type below/, "the hint goes once there is a message");
    });
  });

  it("a thread's buffers survive :bd, :bw, :q and :only: :Tine shows them again, whole, with their keys and unsent input", async () => {
    await withNeovim(nv, async (s) => {
      await oneExchange(s, "one", "First reply.");
      for (const kill of ["bd!", "bw!", "q", "only"]) {
        const t = await s.thread(1);
        await s.setLines(t.input_bufnr!, [`draft ${kill}`]);
        await s.focus(t.bufnr!);
        if (kill === "only") await s.cmd("vsplit | enew | only");
        else await s.cmd(kill);
        // threads() says so at once, not at the list's next tick (5 s).
        await s.until(
          "threads() to lose the gone buffer",
          async () => kill === "q" || kill === "only" || (await s.thread(1)).bufnr !== t.bufnr,
          2000,
        );
        await s.cmd("Tine");
        const wins = await s.windows();
        assert.ok(
          shortNames(wins).includes("tine #1 one") && shortNames(wins).includes("tine #1 one [input]"),
          `:Tine shows display and input after :${kill}: ${wins}`,
        );
        const shown = await s.waitForDisplay(1, "First reply.\n── end_turn");
        assert.match(shown, /## You\none\n\n## Claude\nFirst reply\./, `after :${kill}`);
        const now = await s.thread(1);
        assert.deepEqual(await s.lines(now.input_bufnr!), [`draft ${kill}`], `unsent input kept after :${kill}`);
      }
      s.mock.reply(textReply("Second reply."));
      await s.setLines(0, ["two"]);
      await s.keys("<CR>");
      await s.waitForDisplay(1, "Second reply.\n── end_turn");
      assert.equal((await s.display(1)).split("Second reply.").length, 2, "the reply is not garbled");
      const names = await s.bufferNames();
      assert.deepEqual(
        shortNames(names.filter((n) => isTine(n))).sort(),
        ["tine #1 one", "tine #1 one [input]"],
        "no buffer is left behind",
      );
    });
  });

  it("after edit_file, a buffer holding the file is reloaded; one with unsaved changes is left and the user told", async () => {
    await withNeovim(nv, async (s) => {
      writeFileSync(join(s.cwd, "other.txt"), "other original\n");
      await s.cmd("edit hello.txt");
      await s.cmd("split other.txt");
      await s.lua("vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'my unsaved change' })");
      s.mock.reply(
        response([
          { toolUse: { id: "e1", name: "edit_file", input: { path: "hello.txt", find: "hello", replace: "goodbye" } } },
          { toolUse: { id: "e2", name: "edit_file", input: { path: "other.txt", find: "original", replace: "edited" } } },
        ]),
        textReply("Edited both."),
      );
      await s.cmd("Tine");
      await typeAndSend(s, "edit");
      await s.waitForDisplay(1, "awaiting approval");
      for (const call of ["🔧 edit_file: hello.txt", "🔧 edit_file: other.txt"]) await s.onDisplayLine(1, call, "a");
      await s.waitForDisplay(1, "Edited both.");
      await s.until(
        "hello.txt reloaded",
        async () =>
          (await s.lua<string[]>("return vim.api.nvim_buf_get_lines(vim.fn.bufnr('hello.txt'), 0, -1, false)"))[0] ===
          "goodbye from a fixture",
      );
      assert.deepEqual(await s.lua("return vim.api.nvim_buf_get_lines(vim.fn.bufnr('other.txt'), 0, -1, false)"), ["my unsaved change"]);
      assert.equal(readFileSync(join(s.cwd, "other.txt"), "utf8"), "other edited\n");
      assert.match(
        (await s.notifications()).map((n) => n.msg).join("\n"),
        /other\.txt was changed by edit_file, but your buffer has unsaved changes/,
      );
    });
  });

  it("an error thrown in the host outside any request is logged and reported; the host and its threads go on", async () => {
    await withNeovim(
      nv,
      async (s) => {
        s.mock.reply(textReply("Still here."));
        await s.cmd("Tine");
        await s.lua("require('tine.host').request('test_throw')");
        await s.until("the report", async () =>
          /tine: internal error \(uncaught exception\): a test error outside any request/.test(await s.lastNotification()),
        );
        const log = await s.lua<string>("return require('tine.host').log_path()");
        await s.until("the log", async () =>
          readFileSync(log, "utf8").includes("uncaught exception: Error: a test error outside any request"),
        );
        assert.equal(await s.lua("return require('tine.host').running()"), true);
        await typeAndSend(s, "are you alive?");
        await s.waitForDisplay(1, "Still here.");
      },
      { env: { TINE_TEST_HOOKS: "1" } },
    );
  });

  it("setup() reports a bad option at once, naming it, and keeps the default", async () => {
    await withNeovim(nv, async (s) => {
      await s.lua("require('tine').setup({ fork_open = 'sideways', sidebar = { width = 'wide' }, bash_timout = 3 })");
      const note = await s.lastNotification();
      assert.match(note, /setup: fork_open must be one of "vsplit", "split", "tab", "replace" \(got "sideways"\)/);
      assert.match(note, /setup: sidebar\.width must be a number above 0 \(got "wide"\)/);
      assert.match(note, /setup: unknown option "bash_timout"/);
      assert.equal(await s.lua("return require('tine.config').options.fork_open"), "vsplit");
      await s.cmd("Tine");
      assert.ok(
        (await s.windows()).some((n) => n.endsWith(" [input]")),
        "the plugin still works",
      );
    });
  });

  it(":help tine lands on the top of the help", async () => {
    await withNeovim(nv, async (s) => {
      await s.cmd(`helptags ${join(process.cwd(), "doc")}`);
      await s.cmd("help tine");
      assert.match(await curBufName(s), /doc\/tine\.txt$/);
      assert.equal(await s.lua("return vim.fn.line('.') <= 2"), true);
    });
  });
});
