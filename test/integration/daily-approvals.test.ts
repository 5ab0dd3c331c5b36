/**
 * Approvals in daily use: keys in a draft while a call waits, a wait out of sight, reads outside the
 * working directory, a multi-line command shown whole. Each test stands alone in its own Neovim.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { curBufName } from "../helpers/buffer-names.ts";
import { body, resultOf, sentBlocks, typeAndSend } from "../helpers/chat-driver.ts";
import { withNeovim } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");

describe(`daily use (${nv.version})`, () => {
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
});
