/** Forking as a user does it: @fork, :ForkThread[!], the thread list's `f`, visual `F`. */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { STILL_RUNNING_WHEN_FORKED } from "../../node/chat/prompts.ts";
import { FORKED_BEFORE_TOOL_RAN } from "../../node/providers/turn-cleanup.ts";
import { isTine, shortNames } from "../helpers/buffer-names.ts";
import { readsCacheOf } from "../helpers/cache-prefix.ts";
import { blocks, body, resultOf, sentBlocks, textOf, texts, typeAndSend } from "../helpers/chat-driver.ts";
import { twoExchanges } from "../helpers/fixtures.ts";
import { withNeovim } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

/** An extmark with its details, as nvim_buf_get_extmarks gives it: id, row, col, details. */
type Mark = [number, number, number, { virt_text: [string, string][] }];

const nv = inject("nvim");

describe(`fork (${nv.version})`, () => {
  it("@fork while a block streams: the source finishes untouched, the clone sends finalized blocks + prompt", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(
        textReply("Earlier answer."),
        response([{ text: "Finished block." }, { text: "Half of a block and its end.", holdInside: { hold: "mid", afterDeltas: 1 } }]),
        textReply("Clone answer."),
      );
      await s.cmd("Tine");
      await typeAndSend(s, "warm up");
      await s.waitForDisplay(1, "Earlier answer.");
      await s.waitForStatus(1, "idle");
      await typeAndSend(s, "explain");
      await s.waitForDisplay(1, "Half of");
      await typeAndSend(s, "@fork what about the other way?");
      await s.waitForDisplay(2, "Clone answer.");
      const threads = await s.threads();
      assert.equal(threads[0]!.status, "streaming", "the source still streams");
      assert.equal(threads[1]!.parent_id, threads[0]!.id);
      const clone = body(s, 2);
      assert.deepEqual(clone.messages.slice(3), [
        { role: "assistant", content: [{ type: "text", text: "Finished block." }] },
        { role: "user", content: [{ type: "text", text: "what about the other way?", cache_control: { type: "ephemeral" } }] },
      ]);
      assert.ok(readsCacheOf(clone, body(s, 1)), "the clone's request reads the source's cached prefix");
      s.mock.release("mid");
      await s.waitForDisplay(1, "Finished block.\nHalf of a block and its end.\n── end_turn");
      assert.equal(s.mock.requests.length, 3, "the source sent no extra request");
      const source = await s.messages(1);
      assert.deepEqual(blocks(source[3]), [
        { type: "text", text: "Finished block." },
        { type: "text", text: "Half of a block and its end." },
      ]);
      assert.ok(!(await s.display(1)).includes("Clone answer."));
    });
  });

  it("@fork while bash_command waits for approval: the source keeps waiting; the clone answers with an error result and the prompt", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(
        response([{ text: "I will run it." }, { toolUse: { id: "b1", name: "bash_command", input: { command: "echo hi" } } }]),
        textReply("Forked reply."),
      );
      await s.cmd("Tine");
      await typeAndSend(s, "run it");
      await s.waitForDisplay(1, "awaiting approval");
      await typeAndSend(s, "@fork skip the command");
      await s.waitForDisplay(2, "Forked reply.");
      assert.equal((await s.threads())[0]!.status, "waiting", "the source still waits for approval");
      assert.match(await s.display(1), /awaiting approval/);
      assert.deepEqual(body(s, 1).messages.at(-1), {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "b1", content: FORKED_BEFORE_TOOL_RAN, is_error: true },
          { type: "text", text: "skip the command", cache_control: { type: "ephemeral" } },
        ],
      });
      assert.doesNotMatch(await s.display(2), /awaiting approval/, "approvals are not shared");
    });
  });

  it("@fork while an approved tool runs: the clone is told the tool was still running; the source gets its real result", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(
        response([
          { toolUse: { id: "b1", name: "bash_command", input: { command: "while [ ! -f go ]; do sleep 0.02; done; echo finished" } } },
        ]),
        textReply("Forked reply."),
        textReply("Source reply."),
      );
      await s.cmd("Tine");
      await typeAndSend(s, "run it");
      await s.waitForDisplay(1, "awaiting approval");
      await s.lua("vim.cmd('wincmd k')");
      await s.keys("a");
      await s.waitForDisplay(1, "⋯ running");
      await s.lua("vim.cmd('wincmd j')");
      await typeAndSend(s, "@fork meanwhile");
      await s.waitForDisplay(2, "Forked reply.");
      assert.deepEqual(sentBlocks(s, 1, -1)[0], {
        type: "tool_result",
        tool_use_id: "b1",
        content: STILL_RUNNING_WHEN_FORKED,
        is_error: true,
      });
      writeFileSync(join(s.cwd, "go"), "");
      await s.waitForDisplay(1, "Source reply.");
      assert.equal(resultOf(sentBlocks(s, 2, -1)[0]), "finished\n");
    });
  });

  it("@fork without a prompt opens the clone ready for input and sends nothing", async () => {
    await withNeovim(nv, async (s) => {
      const id = await twoExchanges(s);
      await typeAndSend(s, "@fork");
      await s.waitForThreadCount(2, "the clone");
      const clone = (await s.threads())[1]!;
      await s.waitForDisplay(clone.id, "Second answer.");
      assert.equal(s.mock.requests.length, 2);
      assert.equal(await s.currentBuf(), clone.input_bufnr, "focus is in the clone's input");
      assert.match(await s.display(clone.id), /^⑂ Forked from "first question" at Claude's reply "Second answer\." · gp: go to parent/);
      void id;
    });
  });

  it(":ForkThread opens the clone in a new window beside the source (vsplit), titled from its prompt", async () => {
    await withNeovim(
      nv,
      async (s) => {
        await s.lua("vim.o.columns = 240");
        await twoExchanges(s);
        const before = (await s.windows()).length;
        s.mock.reply(textReply("Branch reply."));
        await s.cmd("ForkThread a different angle");
        await s.waitForDisplay(2, "Branch reply.");
        const wins = await s.windows();
        assert.equal(wins.length, before + 2, "a display and an input window for the clone");
        assert.ok(shortNames(wins).includes("tine #2 a different angle"));
        assert.ok(
          wins.some((n) => isTine(n, 1)),
          "the source stays open",
        );
        const marks = await s.lua<Mark[]>(
          `return vim.api.nvim_buf_get_extmarks((require('tine').threads()[1]).bufnr, vim.api.nvim_get_namespaces()["tine"], 0, -1, { details = true })`,
        );
        assert.equal(marks.length, 1, "the parent shows its fork at the message it branched from");
        assert.equal(marks[0]![3].virt_text[0]![0], "⑂ a different angle");
      },
      { setup: { sidebar: { width: 120 } } },
    );
  });

  it("forks never squeeze windows below a usable size: beside while 40 columns fit, then stacked, then in the source's windows", async () => {
    await withNeovim(nv, async (s) => {
      await s.lua("vim.o.columns = 240");
      await twoExchanges(s);
      const wins = await s.windows();
      for (let i = 1; i <= 12; i++) await s.lua("require('tine').fork(..., '')", (await s.thread(1)).id);
      const widths = await s.lua<number[]>("return vim.tbl_map(vim.api.nvim_win_get_width, vim.api.nvim_tabpage_list_wins(0))");
      assert.ok(Math.min(...widths) >= 40, `no window narrower than 40 columns: ${widths.join(", ")}`);
      const displays = await s.lua<number[]>(`return vim.tbl_map(vim.api.nvim_win_get_height, vim.tbl_filter(function(w)
        local b = vim.api.nvim_win_get_buf(w)
        return vim.b[b].tine_input ~= nil and vim.b[b].tine_input ~= b
      end, vim.api.nvim_tabpage_list_wins(0)))`);
      assert.ok(Math.min(...displays) >= 3, `no display lower than 3 lines: ${displays.join(", ")}`);
      assert.ok((await s.windows()).length > wins.length + 2, "the first forks stood beside the source");
      assert.match(await s.lastNotification(), /no room beside the source: the fork took its windows/);
      // Display and input of the last fork are shown together, and its cursor follows its reply.
      const last = await s.thread(13);
      const shown = await s.windows();
      assert.ok(shown.some((n) => isTine(n, 13, "display")) && shown.some((n) => isTine(n, 13, "input")));
      assert.equal(await s.currentBuf(), last.input_bufnr);
    });
  });

  it("fork marks at one message are listed in fork order; gb on the message jumps to a fork, gp back", async () => {
    await withNeovim(nv, async (s) => {
      await twoExchanges(s);
      const source = (await s.thread(1)).id;
      for (let i = 1; i <= 12; i++) await s.lua("require('tine').fork(..., '', { at_message = 1 })", source);
      const src = await s.thread(1);
      const marks = await s.lua<Mark[]>(
        `return vim.api.nvim_buf_get_extmarks(..., vim.api.nvim_get_namespaces()["tine"], 0, -1, { details = true })`,
        src.bufnr,
      );
      assert.equal(marks.length, 1);
      const text = marks[0]![3].virt_text[0]![0];
      assert.deepEqual(
        text.split("  ").map((t) => t.replace("⑂ first question ⑂", "")),
        ["2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13"],
      );
      // From the mark, gb offers the forks taken there and opens the one picked, display and input together.
      await s.open(source);
      await s.pick(3);
      await s.lua(
        `local buf, line = ...
        vim.api.nvim_set_current_win(vim.fn.win_findbuf(buf)[1])
        vim.api.nvim_win_set_cursor(0, { line + 1, 0 })`,
        src.bufnr,
        marks[0]![1],
      );
      await s.keys("gb");
      const third = await s.thread(4);
      assert.equal(await s.currentBuf(), third.bufnr);
      assert.ok(
        (await s.windows()).some((n) => isTine(n, 4, "input")),
        "the fork's input replaced the source's",
      );
      await s.keys("gp");
      assert.equal(await s.currentBuf(), src.bufnr);
      assert.ok(
        (await s.windows()).some((n) => isTine(n, 1, "input")),
        "gp switches the input back too",
      );
    });
  });

  it(":ForkThread without a prompt asks with vim.ui.input; an empty answer forks without sending", async () => {
    await withNeovim(nv, async (s) => {
      await twoExchanges(s);
      await s.answerInput("");
      await s.cmd("ForkThread");
      await s.waitForThreadCount(2, "the clone");
      assert.match((await s.asked()).prompt ?? "", /Fork prompt/);
      assert.equal(s.mock.requests.length, 2);
    });
  });

  it("the thread list's `f` forks the thread under the cursor and the tree shows it", async () => {
    await withNeovim(nv, async (s) => {
      await twoExchanges(s);
      s.mock.reply(textReply("From the list."));
      await s.openList();
      await s.answerInput("list prompt");
      await s.onListLine(1, "f");
      await s.waitForDisplay(2, "From the list.");
      await s.listLine("  ⑂ list prompt");
      assert.equal(textOf(sentBlocks(s, 2, -1)[0]), "list prompt");
      assert.ok(
        (await s.windows()).some((n) => isTine(n, 2)),
        "the clone opened in a window",
      );
    });
  });

  it(":ForkThread! forks from the message under the cursor; `gp` goes back to the parent", async () => {
    await withNeovim(nv, async (s) => {
      await twoExchanges(s);
      s.mock.reply(textReply("Alternative first answer."));
      const lines = await s.lines((await s.threads())[0]!.bufnr!);
      await s.onDisplayLine(1, "First answer.");
      await s.cmd("ForkThread! try again");
      await s.waitForDisplay(2, "Alternative first answer.");
      assert.deepEqual(
        body(s, 2).messages.map((m) => textOf(blocks(m)[0])),
        ["first question", "First answer.", "try again"],
      );
      assert.equal((await s.messages(1)).length, 4, "the source is unchanged");
      await s.focus((await s.thread(2)).bufnr!);
      await s.keys("gp");
      const at = await s.lua<[number, string]>(`return { vim.api.nvim_win_get_cursor(0)[1], vim.api.nvim_buf_get_name(0) }`);
      assert.ok(isTine(at[1], 1), at[1]);
      assert.equal(lines[at[0] - 1], "## Claude", "the cursor is on the message the fork branched from");
    });
  });

  it("F on a message of yours answers it again at once, a prompt going after that answer; the banner quotes that message", async () => {
    await withNeovim(nv, async (s) => {
      await twoExchanges(s);
      // No prompt: the fork answers "first question" again, and a later send is a message of its own.
      s.mock.reply(textReply("Another first answer."), textReply("Then this."));
      await s.answerInput("");
      await s.onDisplayLine(1, "first question", "F");
      assert.match((await s.asked()).prompt ?? "", /your message is answered again first/);
      const shown = await s.waitForDisplay(2, "Another first answer.");
      assert.match(shown, /^⑂ Forked from ".*" at your message "first question" · gp/);
      assert.deepEqual(texts(body(s, 2).messages), ["first question"]);
      await s.waitForStatus(2, "idle");
      await s.focus((await s.thread(2)).input_bufnr!);
      await typeAndSend(s, "and then?");
      await s.waitForDisplay(2, "Then this.");
      assert.deepEqual(texts(body(s, 3).messages), ["first question", "Another first answer.", "and then?"]);
      assert.match(await s.display(2), /^⑂ Forked from ".*" at your message "first question" · gp/);
      // A prompt: the turn after the answer, never joined to the message.
      s.mock.reply(textReply("Third first answer."), textReply("Shorter."));
      await s.answerInput("shorter please");
      await s.onDisplayLine(1, "first question", "F");
      await s.waitForDisplay(3, "Shorter.");
      assert.deepEqual(texts(body(s, 4).messages), ["first question"]);
      assert.deepEqual(texts(body(s, 5).messages), ["first question", "Third first answer.", "shorter please"]);
      assert.match(await s.display(3), /^⑂ Forked from ".*" at your message "first question" · gp/);
      assert.equal((await s.messages(1)).length, 4, "the source is unchanged");
    });
  });

  it("visual F forks at the selection's last message with the selection quoted in the input", async () => {
    await withNeovim(nv, async (s) => {
      await twoExchanges(s);
      await s.onDisplayLine(1, "first question", "VjjF");
      await s.waitForThreadCount(2, "the clone");
      const clone = (await s.threads())[1]!;
      assert.deepEqual(await s.lines(clone.input_bufnr!), ["> first question", "> ", "> ## Claude", ""]);
      assert.equal((await s.messages(clone.id)).length, 2);
      assert.equal(s.mock.requests.length, 2, "nothing is sent");
    });
  });

  it(":ForkThread outside a thread buffer gives a clear error and changes nothing", async () => {
    await withNeovim(nv, async (s) => {
      await twoExchanges(s);
      await s.cmd("tabnew");
      const winsBefore = (await s.windows({ allTabs: true })).length;
      await s.cmd("ForkThread some prompt");
      const notes = await s.notifications();
      assert.match(notes.at(-1)!.msg, /:ForkThread works in a thread's display or input buffer/);
      assert.equal((await s.threads()).length, 1);
      assert.equal((await s.windows({ allTabs: true })).length, winsBefore);
      assert.equal(s.mock.requests.length, 2);
    });
  });

  it("require('tine').fork returns the new id; send(id, '@fork …') takes the same path", async () => {
    await withNeovim(nv, async (s) => {
      await twoExchanges(s);
      s.mock.reply(textReply("api fork"), textReply("send fork"));
      const source = (await s.thread(1)).id;
      const id = await s.lua<string>("return require('tine').fork(..., 'via api', { at_message = 1 })", source);
      assert.equal(id, (await s.thread(2)).id, "the id of the new thread, shown as tine #2");
      await s.waitForDisplay(id, "api fork");
      await s.lua("require('tine').send(..., '@fork via send')", source);
      await s.waitForDisplay(3, "send fork");
      assert.deepEqual(
        (await s.threads()).map((t) => t.parent_id),
        [null, source, source],
      );
      assert.equal(textOf(sentBlocks(s, 3, -1)[0]), "via send");
    });
  });
});
