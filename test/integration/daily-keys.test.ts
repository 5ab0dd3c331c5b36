/**
 * Daily use, round 2: the keys of a thread's buffers where a user reaches for them (`R` in the
 * input after an error, `i`/`o` in the display, `D` with a reason, `g?` near the input), the
 * prompts of `:Tine rename` and `:Tine resume`, what an empty send says.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { bodies, resultOf, sentBlocks, typeAndSend } from "../helpers/chat-driver.ts";
import { ROOT, type Session, withNeovim } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";
import { errorReply } from "../mock-anthropic/server.ts";

const nv = inject("nvim");

const curBufName = (s: Session) => s.lua<string>("return vim.api.nvim_buf_get_name(0)");

describe(`daily keys (${nv.version})`, () => {
  it("R in the empty input after an error sends the failed turn again; with text there it is Replace mode", async () => {
    await withNeovim(nv, async (s) => {
      const lasting = errorReply(500, "api_error", "internal", { "x-should-retry": "false" });
      s.mock.reply(lasting, textReply("Second time lucky."));
      await s.cmd("Tine");
      await s.keys("Rno error<Esc>");
      assert.deepEqual(await s.lines(0), ["no error"], "no error: R is Replace mode");
      await typeAndSend(s, "hello");
      await s.waitForDisplay(1, "⚠ Error:");
      assert.match(await curBufName(s), / \[input\]$/);
      await s.until("the input to know", () => s.lua<boolean>("return vim.b.tine_failed == true"));
      await s.keys("R");
      await s.waitForDisplay(1, "Second time lucky.");
      assert.equal(bodies(s).length, 2);
      assert.deepEqual(await s.lines(0), [""], "the key typed nothing");
      // With text in the input, R is Replace mode, error or not: that text is the next message.
      s.mock.reply(lasting);
      await typeAndSend(s, "again");
      await s.until("the second failure", async () => (await s.thread(1)).status === "error");
      await s.setLines(0, ["draft"]);
      await s.keys("0RD<Esc>");
      assert.deepEqual(await s.lines(0), ["Draft"]);
      assert.equal(bodies(s).length, 3);
    });
  });

  it("D denies the tool call with a reason it asks for, which the model gets; g<C-n> in the input too while a call waits", async () => {
    await withNeovim(nv, async (s) => {
      const call = (id: string) => response([{ toolUse: { id, name: "bash_command", input: { command: "rm -rf build" } } }]);
      s.mock.reply(call("t1"), call("t2"), textReply("Understood."));
      await s.cmd("Tine");
      await typeAndSend(s, "clean up");
      await s.waitForDisplay(1, "· D deny saying why");
      await s.answerInput("the build folder is needed");
      await s.onDisplayLine(1, "🔧 bash_command", "D");
      assert.match((await s.asked()).prompt ?? "", /why/);
      await s.until("the second call", async () => s.mock.requests.length === 2);
      assert.equal(resultOf(sentBlocks(s, 1, -1)[0]), "The user denied this tool call. Their reason: the build folder is needed");
      // From the input, while the next call waits.
      await s.waitForDisplay(1, /t2|rm -rf build[\s\S]*rm -rf build[\s\S]*awaiting approval/);
      await s.focus((await s.thread(1)).input_bufnr!);
      await s.until("the input to know", () => s.lua<boolean>("return vim.b.tine_pending == true"));
      await s.answerInput("not now");
      await s.keys("g<C-n>");
      await s.waitForDisplay(1, "Understood.");
      assert.equal(resultOf(sentBlocks(s, 2, -1)[0]), "The user denied this tool call. Their reason: not now");
      assert.deepEqual(await s.lines(0), [""], "the key deleted nothing");
    });
  });

  it("i and o in the display go to the input, in Insert mode at its end (o on a new line), instead of E21", async () => {
    await withNeovim(nv, async (s) => {
      await s.cmd("Tine");
      const t = await s.thread(1);
      await s.setLines(t.input_bufnr!, ["draft"]);
      await s.focus(t.bufnr!);
      await s.keys("i and<Esc>");
      assert.match(await curBufName(s), / \[input\]$/);
      await s.focus(t.bufnr!);
      await s.keys("omore<Esc>");
      assert.deepEqual(await s.lines(t.input_bufnr!), ["draft and", "more"]);
      assert.doesNotMatch((await s.lua<string>("return vim.v.errmsg")) ?? "", /E21/);
    });
  });

  it("g? in the input lists its keys, the @-commands and mentions, and the commands, in a window above the input", async () => {
    await withNeovim(nv, async (s) => {
      await s.cmd("Tine");
      const input = await s.currentBuf();
      const [inputTop, inputLeft] = await s.lua<[number, number]>("return vim.fn.win_screenpos(0)");
      await s.keys("g?");
      const text = (await s.lines(0)).join("\n");
      for (const typed of [
        "@fork [--worktree|--unattended] <prompt>",
        "@fork×N <prompt>",
        "@bg [--worktree|--unattended] <prompt>",
        "@bg! <prompt>",
        "@handoff <goal>",
        "@compact [instructions]",
        "@now <text>",
        "@file:<…>",
        "@diff[:<…>]",
      ])
        assert.ok(text.includes(typed), `${typed} is listed:\n${text}`);
      for (const command of [/:Tine rename \[title\]/, /:Tine model/, /:Tine compact/, /:Tine merge done/]) assert.match(text, command);
      assert.match(text, /n {2}R\s+send the failed turn again/);
      assert.match(text, /n {2}g<C-N>\s+deny the tool call, saying why/);
      const float = await s.lua<{ row: number; col: number; height: number }>(
        "local c = vim.api.nvim_win_get_config(0); return { row = c.row, col = c.col, height = c.height }",
      );
      // Screen rows and columns are 1-based in win_screenpos, 0-based in the float's position.
      assert.equal(float.row + float.height + 2, inputTop - 1, "its bottom border is just above the input");
      assert.ok(float.col <= inputLeft - 1, "it starts at the input's column or left of it (to fit)");
      const width = await s.lua<number>("return vim.api.nvim_win_get_width(0)");
      assert.ok(
        width <= Math.max(await s.lua<number>("return vim.api.nvim_win_get_width(vim.fn.win_getid(vim.fn.winnr('#')))"), 60),
        "no wider than the input's window: long lines wrap",
      );
      await s.keys("q");
      assert.equal(await s.currentBuf(), input);
    });
  });

  it(":Tine rename without a title asks for one, the current title filled in", async () => {
    await withNeovim(nv, async (s) => {
      await s.cmd("Tine");
      await exchangeOnce(s, "name me", "Named.");
      await s.lua("vim.ui.input = function(opts, cb) _G.asked = opts; cb('A better title') end");
      await s.cmd("Tine rename");
      assert.deepEqual(await s.lua("return { _G.asked.prompt, _G.asked.default }"), ["Rename thread: ", "name me"]);
      await s.until("the new title", async () => (await s.thread(1)).title === "A better title");
    });
  });

  it("an empty send with nothing waiting says there is nothing to send (with messages held it sends them: queue.test.ts)", async () => {
    await withNeovim(nv, async (s) => {
      await s.cmd("Tine");
      await typeAndSend(s, "");
      await s.notified(/nothing to send: type a message first/);
      assert.equal(s.mock.requests.length, 0);
    });
  });

  it(":Tine resume with Neovim's own select lists the most recent threads that fit the screen, none empty", async () => {
    await withNeovim(nv, async (s) => {
      await s.cmd("Tine");
      for (const n of [1, 2, 3, 4, 5, 6]) {
        if (n > 1) await s.cmd("Tine new");
        await exchangeOnce(s, `question ${n}`, `Answer ${n}.`, n);
      }
      await s.cmd("Tine new"); // empty: nothing to resume
      await s.cmd("set lines=7");
      // Neovim's own vim.ui.select (not stubbed) lists its items with inputlist: read them there.
      await s.lua("vim.fn.inputlist = function(items) _G.listed = items; return 0 end");
      await s.cmd("Tine resume");
      const listed = await s.lua<string[]>("return _G.listed");
      assert.equal(listed.length, 1 + 4, `the prompt and as many threads as 7 lines hold:\n${listed.join("\n")}`);
      assert.match(listed[1]!, /^1: #6 {2}question 6 {2}\(2 msgs, /);
      assert.ok(!listed.some((l) => /Thread 7/.test(l)), "no empty thread");
    });
  });

  it("every key of a display, an input and the list is in g? (it has a description) and in :help tine-keys", async () => {
    await withNeovim(nv, async (s) => {
      await s.cmd("Tine");
      const t = await s.thread(1);
      const list = await s.openList();
      const maps = await s.lua<{ buf: string; lhs: string; desc: string | null }[]>(
        `local out = {}
        for name, buf in pairs(...) do
          for _, mode in ipairs({ "n", "i", "x" }) do
            for _, m in ipairs(vim.api.nvim_buf_get_keymap(buf, mode)) do
              table.insert(out, { buf = name, lhs = m.lhs, desc = m.desc or vim.NIL })
            end
          end
        end
        return out`,
        { display: t.bufnr!, input: t.input_bufnr!, list },
      );
      assert.ok(maps.length > 30, `${maps.length} keys`);
      const documented = {
        display: documentedKeys(["Display buffer", "Messages while the agent works"]),
        input: documentedKeys(["Input buffer"]),
        list: documentedKeys(["Thread list"]),
      };
      const missing = maps.filter((m) => !documented[m.buf as keyof typeof documented].has(keyName(m.lhs)));
      assert.deepEqual(
        missing.map((m) => `${m.buf} ${m.lhs}`),
        [],
        "keys :help tine-keys does not list",
      );
      const undescribed = maps.filter((m) => !m.desc?.startsWith("tine: "));
      assert.deepEqual(
        undescribed.map((m) => `${m.buf} ${m.lhs}`),
        [],
        "keys g? does not list",
      );
    });
  });
});

/**
 * The keys `:help tine-keys` lists for a buffer: the first column of the key tables
 * (`    a A d   approve …`) under the headings `headings` (`Display buffer ~`), each to the next heading.
 */
function documentedKeys(headings: readonly string[]): Set<string> {
  const doc = readFileSync(join(ROOT, "doc/tine.txt"), "utf8");
  const section = doc.slice(doc.indexOf("*tine-keys*"), doc.indexOf("*tine-fork*"));
  const keys = new Set<string>();
  let inside = false;
  for (const line of section.split("\n")) {
    const heading = / ~$/.test(line) ? line.slice(0, -2) : null;
    if (heading !== null) inside = headings.includes(heading);
    const column = inside ? /^ {4}(\S.*?)(?: {2,}|$)/.exec(line)?.[1] : undefined;
    for (const key of column?.split(" ") ?? []) keys.add(keyName(key));
  }
  return keys;
}

/** A key as written, its `<…>` parts in lower case (`g<C-N>` as Neovim lists it, `g<C-n>` as the doc writes it). */
const keyName = (lhs: string): string => lhs.replace(/<[^>]+>/g, (k) => k.toLowerCase());

/** Sends `prompt` from the focused input of thread `num` and waits for `answer`. */
async function exchangeOnce(s: Session, prompt: string, answer: string, num = 1): Promise<void> {
  s.mock.reply(textReply(answer));
  await typeAndSend(s, prompt);
  await s.waitForDisplay(num, `${answer}\n── end_turn`);
}
