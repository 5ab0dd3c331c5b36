/**
 * Messages sent while the agent works, in real Neovim against the HTTP mock: queued under the
 * reply, sent once when the turn ends (all as one message, in order), cancelled with `dd`, taken
 * back to edit with <CR>, `@now` steering with the next tool results, held after an abort or an
 * error, and left behind by a fork.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { bodies, body, sentBlocks, textOf, texts, typeAndSend } from "../helpers/chat-driver.ts";
import { type Session, withNeovim } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");

async function openSidebar(s: Session) {
  await s.cmd("Tine");
  return (await s.threads())[0]!;
}

/** A reply that streams "Working on it" and stops mid-text until `hold` is released. */
const heldReply = (hold: string) => response([{ text: "Working on it.", holdInside: { hold, afterDeltas: 1 } }]);

/** Sends `text` from the focused input and waits until the display shows `shown`. */
async function queue(s: Session, id: string, text: string, shown: string): Promise<void> {
  await typeAndSend(s, text);
  await s.waitForDisplay(id, shown);
}

describe(`messages while the agent works (${nv.version})`, () => {
  it("a send while the reply streams is queued under it; at the end of the turn all go once, as one message, in order", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(heldReply("h"), textReply("All three read."));
      const t = await openSidebar(s);
      await typeAndSend(s, "first");
      await s.mock.reached("h");
      await queue(s, t.id, "second", "⏳ queued: second");
      await queue(s, t.id, "third\nwith a second line", "⏳ queued: third\n   with a second line");
      // @now with no tool call to go with: it waits for the end of the turn like the others.
      await queue(s, t.id, "@now and this", "⚡ @now: and this");
      const shown = await s.display(t.id);
      assert.ok(shown.indexOf("Work") < shown.indexOf("⏳ queued: second"), "the queued lines are under the reply being written");
      assert.match(
        shown,
        /⚡ @now: and this\n {3}sent when the turn ends \(@now: with the next tool results\) · <CR> on one edits it · dd cancels it/,
      );
      assert.deepEqual(await s.lines(t.input_bufnr!), [""], "a queued send clears the input");
      assert.equal(s.mock.requests.length, 1, "nothing is sent while the reply streams");
      s.mock.release("h");
      await s.waitForDisplay(t.id, "All three read.\n── end_turn");
      await s.waitForStatus(t.id, "idle");
      assert.equal(bodies(s).length, 2, "the queue is sent once");
      assert.deepEqual(texts(body(s, 1).messages), ["first", "Working on it.", "second|third\nwith a second line|and this"]);
      assert.doesNotMatch(await s.display(t.id), /queued|@now:/);
    });
  });

  it("dd on a queued message cancels it (never sent, its text in the register); <CR> on one takes it back into the input", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(heldReply("h"), textReply("Kept one read."));
      const t = await openSidebar(s);
      await typeAndSend(s, "first");
      await s.mock.reached("h");
      await queue(s, t.id, "keep me", "⏳ queued: keep me");
      await queue(s, t.id, "drop me", "⏳ queued: drop me");
      await queue(s, t.id, "edit me\nsecond line", "⏳ queued: edit me");
      await s.onDisplayLine(t.id, "⏳ queued: drop me", "dd");
      await s.until("drop me to leave the queue", async () => !(await s.display(t.id)).includes("drop me"));
      assert.deepEqual(await s.lua("return vim.fn.getreg('\"')"), "drop me\n");
      await s.onDisplayLine(t.id, "   second line", "<CR>");
      await s.until("edit me to leave the queue", async () => !(await s.display(t.id)).includes("edit me"));
      assert.deepEqual(await s.lines(t.input_bufnr!), ["edit me", "second line"]);
      assert.equal(await s.currentBuf(), t.input_bufnr, "the cursor goes with it");
      s.mock.release("h");
      await s.waitForDisplay(t.id, "Kept one read.\n── end_turn");
      await s.waitForStatus(t.id, "idle");
      assert.equal(bodies(s).length, 2);
      assert.deepEqual(texts(body(s, 1).messages).at(-1), "keep me");
    });
  });

  it("@now while a tool waits goes after the tool results; a plain queued message waits for the turn's end", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(
        response([{ text: "Checking." }, { toolUse: { id: "t1", name: "bash_command", input: { command: "cat hello.txt" } } }]),
        textReply("Using staging."),
        textReply("Noted."),
      );
      const t = await openSidebar(s);
      await typeAndSend(s, "look");
      await s.waitForDisplay(t.id, "awaiting approval");
      await queue(s, t.id, "@now use the staging database", "⚡ @now: use the staging database");
      await queue(s, t.id, "and then tell me", "⏳ queued: and then tell me");
      await s.onDisplayLine(t.id, "🔧 bash_command: $ cat hello.txt", "a");
      await s.waitForDisplay(t.id, "Noted.\n── end_turn");
      await s.waitForStatus(t.id, "idle");
      assert.equal(bodies(s).length, 3);
      const withResults = sentBlocks(s, 1, -1);
      assert.deepEqual(
        withResults.map((b) => b.type),
        ["tool_result", "text"],
      );
      assert.equal(withResults[1]!.type === "text" && withResults[1]!.text, "use the staging database");
      assert.deepEqual(texts(body(s, 2).messages).slice(-2), ["Using staging.", "and then tell me"]);
    });
  });

  it("a tool call waiting for approval makes :qa and :Tine restart ask (a quit would end it unrun); cancelled, it can still be approved", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(
        response([{ toolUse: { id: "t1", name: "bash_command", input: { command: "cat hello.txt" } } }]),
        textReply("Read it."),
        textReply("Told."),
      );
      const t = await openSidebar(s);
      await typeAndSend(s, "look");
      await s.waitForDisplay(t.id, "awaiting approval");
      await s.until("Neovim told", async () => s.lua<boolean>("return #require('tine.quit').working() == 1"));
      await s.lua("_G.tine_confirmed = {}; vim.fn.confirm = function(q) table.insert(_G.tine_confirmed, q); return 2 end");
      await s.keys("<Esc>:qa<CR>");
      await s.until("asked", async () => (await s.lua<number>("return #_G.tine_confirmed")) === 1);
      assert.match(
        await s.lua<string>("return _G.tine_confirmed[1]"),
        /^tine: #1 "look" waits for your approval of bash_command \(a quit ends the call unrun\)\.\nQuit anyway\?/,
      );
      await s.cmd("Tine restart");
      assert.match(
        await s.lua<string>("return _G.tine_confirmed[2] or ''"),
        /#1 "look" waits for your approval of bash_command[\s\S]*Restart anyway\?/,
      );
      assert.ok(s.running());
      await queue(s, t.id, "and then tell me", "⏳ queued: and then tell me");
      await s.keys("<Esc>:qa<CR>");
      await s.until("asked again", async () => (await s.lua<number>("return #_G.tine_confirmed")) === 3);
      assert.match(
        await s.lua<string>("return _G.tine_confirmed[3]"),
        /#1 "look" waits for your approval of bash_command \(a quit ends the call unrun\) and has a queued message to send/,
      );
      assert.match(await s.display(t.id), /awaiting approval[\s\S]*⏳ queued: and then tell me/);
      // Not restarted: the same call is still there to approve.
      await s.onDisplayLine(t.id, "🔧 bash_command: $ cat hello.txt", "a");
      await s.waitForDisplay(t.id, "Read it.");
    });
  });

  it("an abort holds the queue (not sent, and said so); an empty send sends it", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(heldReply("h"), textReply("Got the held one."));
      const t = await openSidebar(s);
      await typeAndSend(s, "first");
      await s.mock.reached("h");
      await queue(s, t.id, "second", "⏳ queued: second");
      await s.cmd("Tine abort");
      const shown = await s.waitForDisplay(t.id, "⏸ held: second");
      assert.match(shown, /⏹ Aborted\n\n⏸ held: second\n {3}held: the turn was aborted · they go with your next message/);
      await s.waitForStatus(t.id, "idle");
      // The list says so too: the thread is idle, but not with nothing waiting.
      const input = await s.currentBuf();
      await s.openList();
      await s.listLine("idle · 1 held · ");
      await s.focus(input);
      assert.equal(bodies(s).length, 1, "an aborted turn sends nothing by itself");
      await typeAndSend(s, "");
      await s.waitForDisplay(t.id, "Got the held one.\n── end_turn");
      assert.equal(bodies(s).length, 2);
      assert.deepEqual(texts(body(s, 1).messages).at(-1), "second");
      assert.doesNotMatch(await s.display(t.id), /⏸ held/);
    });
  });

  it("a failed turn holds the queue; the next message takes it along, held ones first", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(response([{ hold: "h" }, { error: { type: "api_error", message: "boom" } }]), textReply("Both here."));
      const t = await openSidebar(s);
      await typeAndSend(s, "first");
      await s.mock.reached("h");
      await queue(s, t.id, "queued during it", "⏳ queued: queued during it");
      s.mock.release("h");
      const shown = await s.waitForDisplay(t.id, "⏸ held: queued during it");
      assert.match(shown, /⚠ Error: [^\n]*boom[\s\S]*⏸ held: queued during it\n {3}held: the turn failed/);
      await s.waitForStatus(t.id, "error");
      assert.equal(bodies(s).length, 1);
      await typeAndSend(s, "new text");
      await s.waitForDisplay(t.id, "Both here.\n── end_turn");
      assert.equal(bodies(s).length, 2);
      // A new message replaces the failed turn, as always; what was held goes first.
      assert.deepEqual(texts(body(s, 1).messages), ["queued during it|new text"]);
    });
  });

  it("R after a failed turn sends it again, and the held queue goes when that turn ends", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(
        response([{ hold: "h" }, { error: { type: "api_error", message: "boom" } }]),
        textReply("Retried."),
        textReply("Queued one."),
      );
      const t = await openSidebar(s);
      await typeAndSend(s, "first");
      await s.mock.reached("h");
      await queue(s, t.id, "after it", "⏳ queued: after it");
      s.mock.release("h");
      await s.waitForDisplay(t.id, "⏸ held: after it");
      await s.cmd("Tine retry");
      await s.waitForDisplay(t.id, "Queued one.\n── end_turn");
      assert.equal(bodies(s).length, 3);
      assert.deepEqual(texts(body(s, 2).messages), ["first", "Retried.", "after it"]);
    });
  });

  it("queued messages outlive :Tine restart: they come back held, and an empty send sends them", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(heldReply("h"));
      const t = await openSidebar(s);
      await typeAndSend(s, "first");
      await s.mock.reached("h");
      await queue(s, t.id, "not lost", "⏳ queued: not lost");
      await queue(s, t.id, "@now nor this", "⚡ @now: nor this");
      await s.answerConfirm(1); // it asks first while the thread streams
      await s.cmd("Tine restart");
      const shown = await s.waitForDisplay(t.id, "⏸ held: not lost\n⏸ held: nor this\n   held: tine stopped before they were sent");
      assert.match(shown, /── interrupted \(the session ended\)/);
      s.mock.reply(textReply("Both came back."));
      await typeAndSend(s, "");
      await s.waitForDisplay(t.id, "Both came back.\n── end_turn");
      assert.deepEqual(texts(body(s, -1).messages).at(-1), "not lost|nor this");
      assert.equal(bodies(s).length, 2, "sent once");
      s.mock.release("h");
    });
  });

  it("a queued message's mentions outlive :Tine restart: it goes with the file as it was when queued", async () => {
    await withNeovim(nv, async (s) => {
      writeFileSync(join(s.cwd, "notes.md"), "QUEUED-MARK\n");
      s.mock.reply(heldReply("h"));
      const t = await openSidebar(s);
      await typeAndSend(s, "first");
      await s.mock.reached("h");
      await queue(s, t.id, "see @file:notes.md", "⏳ queued: see @file:notes.md");
      await s.answerConfirm(1); // it asks first while the thread streams
      await s.cmd("Tine restart");
      await s.waitForDisplay(t.id, "⏸ held: see @file:notes.md");
      writeFileSync(join(s.cwd, "notes.md"), "LATER-MARK\n");
      s.mock.reply(textReply("Read it."));
      await typeAndSend(s, "");
      await s.waitForDisplay(t.id, "Read it.\n── end_turn");
      const sent = sentBlocks(s, -1, -1).map(textOf);
      assert.equal(sent.length, 2, "the file's block and the text");
      assert.match(sent[0]!, /^<context kind="file" path="notes.md" lines="1">\nQUEUED-MARK\n/);
      assert.equal(sent[1], "see @file:notes.md");
      s.mock.release("h");
    });
  });

  it("a fork taken while messages wait starts without them; the source sends them when its turn ends", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(heldReply("h"), textReply("Fork answer."), textReply("Source got it."));
      const t = await openSidebar(s);
      await typeAndSend(s, "first");
      await s.mock.reached("h");
      await queue(s, t.id, "for the source", "⏳ queued: for the source");
      await typeAndSend(s, "@fork another way");
      await s.waitForDisplay(2, "Fork answer.\n── end_turn");
      assert.doesNotMatch(await s.display(2), /queued/);
      assert.deepEqual(texts(body(s, 1).messages), ["first|another way"]);
      s.mock.release("h");
      await s.waitForDisplay(t.id, "Source got it.\n── end_turn");
      assert.deepEqual(texts(body(s, 2).messages), ["first", "Working on it.", "for the source"]);
      assert.equal(bodies(s).length, 3);
    });
  });
});
