/**
 * Daily use without surprises: crashes, buffers and windows, keys, approvals, setup.
 * Over 300 lines: one file per feature area, each test standing alone in its own Neovim; split
 * by area, not by length.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { isTine, shortNames } from "../helpers/buffer-names.ts";
import { bodies, body, resultOf, sentBlocks, textOf, typeAndSend } from "../helpers/chat-driver.ts";
import { oneExchange } from "../helpers/fixtures.ts";
import { type Session, withNeovim } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";
import { errorReply } from "../mock-anthropic/server.ts";

const nv = inject("nvim");

const curBufName = (s: Session) => s.lua<string>("return vim.api.nvim_buf_get_name(0)");

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

  it("while a call waits, a draft's a and dd only edit the input; <C-y> approves and <C-n> denies, as the notice under the draft says", async () => {
    await withNeovim(nv, async (s) => {
      const call = (id: string, command: string) => response([{ toolUse: { id, name: "bash_command", input: { command } } }]);
      s.mock.reply(call("t1", "echo approved > ran.txt; echo approved"), call("t2", "rm -rf build"), textReply("Ran it."));
      await s.cmd("Tine");
      await typeAndSend(s, "run it");
      await s.waitForDisplay(1, "awaiting approval");
      assert.match(await curBufName(s), / \[input\]$/);
      await s.until("the input to know", () => s.lua<boolean>("return vim.b.tine_pending == true"));
      const notice = () =>
        s.lua<string>(`local marks = vim.api.nvim_buf_get_extmarks(0, vim.api.nvim_get_namespaces()["tine.pending"], 0, -1, { details = true })
          local m = marks[1]
          return m and table.concat(vim.tbl_map(function(l) return l[1][1] end, m[4].virt_lines), " ") or ""`);
      // Writing a draft with the editing keys a user reaches for: nothing is answered.
      await s.keys("idraft: also check<Esc>");
      await s.keys("a the tests<Esc>");
      assert.deepEqual(await s.lines(0), ["draft: also check the tests"]);
      await s.keys("dd");
      assert.deepEqual(await s.lines(0), [""], "dd cleared the input");
      await s.keys("ikeep<Esc>ggdG");
      assert.deepEqual(await s.lines(0), [""], "ggdG cleared the input");
      await s.keys("ilast<Esc>");
      assert.equal((await s.thread(1)).status, "waiting", "the call still waits");
      assert.match(await s.display(1), /awaiting approval/);
      assert.equal(s.mock.requests.length, 1, "no tool result went");
      assert.ok(!existsSync(join(s.cwd, "ran.txt")), "the command did not run");
      assert.match(await notice(), /<C-y> approve[ ·]+g<C-y> always[ ·]+<C-n> deny[ ·]+g<C-n> deny saying why/);
      // The answer keys, from Normal mode; the draft stays as typed.
      await s.keys("<C-y>");
      await s.until("the approved result", async () => s.mock.requests.length === 2);
      assert.equal(resultOf(sentBlocks(s, 1, -1)[0]), "approved\n");
      await s.waitForDisplay(1, /rm -rf build[\s\S]*awaiting approval/);
      await s.until("the input to know again", () => s.lua<boolean>("return vim.b.tine_pending == true"));
      await s.keys("<C-n>");
      await s.waitForDisplay(1, "Ran it.");
      assert.equal(resultOf(sentBlocks(s, 2, -1)[0]), "The user denied this tool call.");
      assert.deepEqual(await s.lines(0), ["last"], "the answer keys typed nothing");
      assert.equal(await notice(), "", "no notice once nothing waits");
      // With nothing waiting, the answer keys are Vim's own (here <C-y> scrolls, harmlessly).
      await s.keys("<C-y><C-n>");
      assert.deepEqual(await s.lines(0), ["last"]);
      assert.equal(s.mock.requests.length, 3);
    });
  });

  it("a thread waiting for approval out of sight says so once", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(
        response([
          { text: "Running.", holdInside: { hold: "h", afterDeltas: 0 } },
          { toolUse: { id: "t1", name: "bash_command", input: { command: "true" } } },
        ]),
      );
      await s.cmd("Tine");
      await typeAndSend(s, "in the background");
      await s.mock.reached("h");
      await s.cmd("tabnew");
      s.mock.release("h");
      await s.waitForDisplay(1, "awaiting approval");
      await s.notified(/in the background waits for your approval/);
      const count = (await s.notifications()).filter((n) => /waits for your approval/.test(n.msg)).length;
      assert.equal(count, 1);
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

  it("get_file and list_directory outside the working directory wait for approval; inside they run at once", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(
        response([
          { toolUse: { id: "in", name: "get_file", input: { path: "hello.txt" } } },
          { toolUse: { id: "out", name: "get_file", input: { path: "/proc/self/environ" } } },
          { toolUse: { id: "up", name: "list_directory", input: { path: ".." } } },
        ]),
        textReply("Understood."),
      );
      await s.cmd("Tine");
      await typeAndSend(s, "read around");
      const shown = await s.waitForDisplay(1, "✓ done");
      assert.equal(shown.match(/awaiting approval/g)?.length, 2, "the two reads outside wait");
      await s.onDisplayLine(1, "🔧 get_file: /proc/self/environ", "d");
      await s.onDisplayLine(1, "🔧 list_directory: ..", "d");
      await s.waitForDisplay(1, "Understood.");
      const results = sentBlocks(s, 1, -1);
      assert.equal(resultOf(results[0]), "hello from a fixture\n");
      assert.equal(resultOf(results[1]), "The user denied this tool call.");
      assert.ok(!JSON.stringify(body(s, 1)).includes("test-key"), "the environment was not read");
    });
  });

  it("R (and :Tine retry) sends the failed turn again, as it was", async () => {
    await withNeovim(nv, async (s) => {
      // The server says not to retry: tine does not try again by itself, the user does.
      const lasting = errorReply(500, "api_error", "internal", { "x-should-retry": "false" });
      s.mock.reply(lasting, lasting, textReply("Third time lucky."));
      await s.cmd("Tine");
      await typeAndSend(s, "hello");
      await s.waitForDisplay(1, "⚠ Error:");
      await s.cmd("Tine retry");
      await s.until("the second failure", async () => s.mock.requests.length === 2 && (await s.thread(1)).status === "error");
      await s.onDisplayLine(1, "⚠ Error:", "R");
      await s.waitForDisplay(1, "Third time lucky.");
      for (const b of bodies(s))
        assert.deepEqual(b.messages, [{ role: "user", content: [{ type: "text", text: "hello", cache_control: { type: "ephemeral" } }] }]);
    });
  });

  it("a transient 503 is tried again by itself: the thread shows what failed and when it tries again, then the reply", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(errorReply(503, "api_error", "Service unavailable", { "retry-after": "2" }), textReply("Back again."));
      await s.cmd("Tine");
      await typeAndSend(s, "hello");
      const host = new URL(s.mock.url).host;
      await s.waitForDisplay(
        1,
        new RegExp(
          `↻ ${host.replace(/\./g, "\\.")} answered HTTP 503 api_error: Service unavailable.*\n  trying again in [0-2] s \\(attempt 2\\) · <C-c> aborts`,
        ),
      );
      await s.waitForDisplay(1, "Back again.\n── end_turn");
      assert.ok(!(await s.display(1)).includes("⚠ Error"));
      assert.equal(s.mock.requests.length, 2);
    });
  });

  it("a refused connection says where and why, and the log (readable by the user alone) holds the error with its stack", async () => {
    // A port nothing listens on: taken from the system, then let go.
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as AddressInfo).port;
    await new Promise((r) => server.close(r));
    await withNeovim(
      nv,
      async (s) => {
        await s.cmd("Tine");
        await typeAndSend(s, "anyone there?");
        const shown = await s.waitForDisplay(1, "⚠ Error:");
        assert.ok(shown.includes(`⚠ Error: could not reach 127.0.0.1:${port}: the connection was refused (is the server running?)`), shown);
        const log = await s.lua<string>("return require('tine.host').log_path()");
        await s.until("the log", async () =>
          new RegExp(`request failed: could not reach 127\\.0\\.0\\.1:${port}[\\s\\S]*\\n\\S+ +at `).test(readFileSync(log, "utf8")),
        );
        assert.equal(statSync(log).mode & 0o777, 0o600, "the log holds stack traces, paths and titles");
      },
      { env: { ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}` } },
    );
  });

  it("a stalled stream ends after stream_idle_timeout with a clear message; the partial text stays; the thread goes on", async () => {
    await withNeovim(
      nv,
      async (s) => {
        s.mock.reply(response([{ text: "Half a thought that never", holdInside: { hold: "stall", afterDeltas: 2 } }]), textReply("Back."));
        await s.cmd("Tine");
        await typeAndSend(s, "think");
        const shown = await s.waitForDisplay(1, "⚠ Error: no data from the API for 1 s");
        assert.match(shown, /## Claude\nHalf a th[^\n]*\n── interrupted \(the request failed\)/);
        s.mock.release("stall");
        await typeAndSend(s, "again");
        await s.waitForDisplay(1, "Back.");
        assert.match(textOf(sentBlocks(s, 1, 1)[0]) as string, /^Half a th/);
      },
      { setup: { stream_idle_timeout: 1 } },
    );
  });

  it("a content block of an unknown type is skipped with a notice; the reply goes on", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(
        response([
          { text: "Before." },
          {
            steps: [
              {
                event: {
                  type: "content_block_start",
                  index: 1,
                  content_block: { type: "fancy_new_tool_result", tool_use_id: "x", content: [] },
                },
              },
              { event: { type: "content_block_stop", index: 1 } },
            ],
          },
          { text: "After." },
        ]),
        textReply("Next."),
      );
      await s.cmd("Tine");
      await typeAndSend(s, "go");
      const shown = await s.waitForDisplay(1, "── end_turn");
      assert.match(shown, /Before\.\nAfter\.\nℹ skipped a "fancy_new_tool_result" block this version of tine does not know/);
      await typeAndSend(s, "more");
      await s.waitForDisplay(1, "Next.");
      assert.deepEqual(sentBlocks(s, 1, 1).map(textOf), ["Before.", "After."]);
    });
  });

  it("a multi-line command is shown whole before it can be approved; with two waiting, a/d act only on the one under the cursor", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(
        response([
          { toolUse: { id: "m1", name: "bash_command", input: { command: "echo one\necho two" } } },
          { toolUse: { id: "m2", name: "bash_command", input: { command: "echo three" } } },
        ]),
        textReply("Done."),
      );
      await s.cmd("Tine");
      await typeAndSend(s, "run both");
      const shown = await s.waitForDisplay(1, "awaiting approval");
      assert.match(shown, /🔧 bash_command: \$ echo one\necho two\n {3}⏳ awaiting approval/);
      await s.onDisplayLine(1, "## You", "a");
      // Not the last notification: in a project that is not a git repository, "code snapshots are off" may land after it.
      await s.notified(/2 tool calls wait for approval: put the cursor on the one to approve/);
      await s.onDisplayLine(1, "🔧 bash_command: $ echo three", "d");
      await s.onDisplayLine(1, "🔧 bash_command: $ echo one", "a");
      await s.waitForDisplay(1, "Done.");
      const results = sentBlocks(s, 1, 2);
      assert.equal(resultOf(results[0]), "one\ntwo\n");
      assert.equal(resultOf(results[1]), "The user denied this tool call.");
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
