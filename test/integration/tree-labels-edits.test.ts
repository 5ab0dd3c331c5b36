/**
 * Marks the user leaves in the tree: labels on threads and messages (kept across a restart), and a
 * message edited and sent again as a fork before it (e). Each test stands alone in its own Neovim.
 */
import assert from "node:assert/strict";
import { describe, inject, it } from "vitest";
import { bodies, body, sentBlocks, textOf, texts, typeAndSend } from "../helpers/chat-driver.ts";
import { twoExchanges } from "../helpers/fixtures.ts";
import { type Session, tempProjects, withNeovim } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");

const project = tempProjects();

/** The virtual texts tine puts at the ends of a buffer's lines (fork marks, labels), by 0-based line. */
const marks = (s: Session, buf: number) =>
  s.lua<[number, string][]>(
    `local out = {}
    for _, m in ipairs(vim.api.nvim_buf_get_extmarks(..., vim.api.nvim_create_namespace("tine"), 0, -1, { details = true })) do
      table.insert(out, { m[2], m[4].virt_text[1][1] })
    end
    return out`,
    buf,
  );

describe(`labels (${nv.version})`, () => {
  it("L labels a thread in the list and a message in its display; both are kept on disk and shown after a restart", async () => {
    const cwd = project();
    await withNeovim(
      nv,
      async (s) => {
        const id = await twoExchanges(s);
        await s.answerInput("the good one");
        await s.onDisplayLine(id, "First answer.", "L");
        const display = (await s.thread(id)).bufnr!;
        await s.until("the message's label", async () => (await marks(s, display)).some(([, t]) => t === "🏷 the good one"));
        const at = (await s.lines(display)).indexOf("First answer.");
        assert.deepEqual(
          (await marks(s, display)).filter(([, t]) => t.startsWith("🏷")).map(([line]) => line),
          [(await s.lines(display)).slice(0, at).lastIndexOf("## Claude")],
          "at the message's first line",
        );
        await s.openList();
        await s.answerInput("keeper");
        await s.onListLine("first question", "L");
        await s.listLine("first question  🏷 keeper  ·");
      },
      { cwd },
    );
    await withNeovim(
      nv,
      async (s) => {
        await s.openList();
        await s.listLine("first question  🏷 keeper  ○ stored");
        const id = (await s.threads())[0]!.id;
        await s.open(id);
        const display = (await s.thread(id)).bufnr!;
        await s.until("the message's label after the restart", async () =>
          (await marks(s, display)).some(([, t]) => t === "🏷 the good one"),
        );
        // An empty answer removes a label.
        await s.openList();
        await s.answerInput("");
        await s.onListLine("first question", "L");
        await s.until("the label gone", async () => !(await s.listText()).includes("keeper"));
      },
      { cwd },
    );
  });
});

describe(`edit and resubmit (${nv.version})`, () => {
  it("e on a message you wrote opens a fork before it with its text in the input; the original is untouched; sending sends the edit", async () => {
    await withNeovim(nv, async (s) => {
      const id = await twoExchanges(s);
      await s.focus((await s.thread(id)).bufnr!);
      await s.keys("g?");
      const help = (await s.lines(await s.currentBuf())).join("\n");
      assert.match(help, /n {2}e +edit your message in a fork/);
      assert.match(help, /n {2}L +label the message/);
      await s.keys("q");
      await s.onDisplayLine(id, "second question", "e");
      await s.waitForThreadCount(2, "the fork");
      const fork = (await s.threads())[1]!;
      await s.until("the fork's input", async () => (await s.lines(fork.input_bufnr!)).join("\n") === "second question");
      assert.equal(await s.currentBuf(), fork.input_bufnr, "the cursor is in the fork's input");
      assert.deepEqual(texts(await s.messages(fork.id)), ["first question", "First answer."]);
      await s.setLines(fork.input_bufnr!, ["second question, said better"]);
      s.mock.reply(textReply("Better answer."));
      await s.keys("<CR>");
      await s.waitForDisplay(fork.id, "Better answer.");
      assert.deepEqual(texts(body(s, -1).messages), ["first question", "First answer.", "second question, said better"]);
      assert.deepEqual(texts(await s.messages(id)), ["first question", "First answer.", "second question", "Second answer."]);
    });
  });

  /** A thread whose second message went with tool results (@now while a call waited), and `e` on it: the fork and its input. */
  async function editWithResults(s: Session) {
    s.mock.reply(
      response([{ text: "Checking." }, { toolUse: { id: "t1", name: "bash_command", input: { command: "cat hello.txt" } } }]),
      textReply("Using staging."),
    );
    await s.cmd("Tine");
    const id = (await s.threads())[0]!.id;
    await typeAndSend(s, "look");
    await s.waitForDisplay(id, "awaiting approval");
    await typeAndSend(s, "@now use the staging database");
    await s.waitForDisplay(id, "⚡ @now: use the staging database");
    await s.onDisplayLine(id, "🔧 bash_command: $ cat hello.txt", "a");
    await s.waitForDisplay(id, "Using staging.\n── end_turn");
    await s.waitForStatus(id, "idle");
    assert.equal(bodies(s).length, 2);

    await s.onDisplayLine(id, "use the staging database", "e");
    await s.waitForThreadCount(2, "the fork");
    const fork = (await s.threads())[1]!;
    await s.until("the fork's input", async () => (await s.lines(fork.input_bufnr!)).join("\n") === "use the staging database");
    return { id, fork };
  }

  it("e on a message that went with tool results (@now while a call waited) holds them in the fork: the edit goes with them, one request", async () => {
    await withNeovim(nv, async (s) => {
      const { id, fork } = await editWithResults(s);
      await s.setLines(fork.input_bufnr!, ["use the production database"]);
      s.mock.reply(textReply("Using production."));
      await s.keys("<CR>");
      await s.waitForDisplay(fork.id, "Using production.");
      await s.waitForStatus(fork.id, "idle");
      // One request for the edit: the tool results and the edited text, in one message, as the original went.
      assert.equal(bodies(s).length, 3);
      const sent = sentBlocks(s, 2, -1);
      assert.deepEqual(
        sent.map((b) => b.type),
        ["tool_result", "text"],
      );
      assert.equal(textOf(sent[1]), "use the production database");
      assert.deepEqual(texts(await s.messages(id)).slice(-2), ["tool_result|use the staging database", "Using staging."]);
    });
  });

  it("in that fork, <CR> with the input emptied sends the held tool results alone", async () => {
    await withNeovim(nv, async (s) => {
      const { fork } = await editWithResults(s);
      await s.setLines(fork.input_bufnr!, [""]);
      s.mock.reply(textReply("Answered the results."));
      await s.keys("<CR>");
      await s.waitForDisplay(fork.id, "Answered the results.");
      assert.equal(bodies(s).length, 3);
      assert.deepEqual(
        sentBlocks(s, 2, -1).map((b) => b.type),
        ["tool_result"],
      );
    });
  });

  it("e on the first message forks from the start; e on Claude's reply says what it edits", async () => {
    await withNeovim(nv, async (s) => {
      const id = await twoExchanges(s);
      await s.onDisplayLine(id, "First answer.", "e");
      assert.match(await s.lastNotification(), /e edits a message you wrote/);
      await s.onDisplayLine(id, "first question", "e");
      await s.waitForThreadCount(2, "the fork");
      const fork = (await s.threads())[1]!;
      await s.until("the fork's input", async () => (await s.lines(fork.input_bufnr!)).join("\n") === "first question");
      assert.deepEqual(await s.messages(fork.id), []);
      s.mock.reply(textReply("Fresh."));
      await typeAndSend(s, "first question, again");
      await s.waitForDisplay(fork.id, "Fresh.");
      assert.deepEqual(texts(body(s, -1).messages), ["first question, again"]);
    });
  });
});
