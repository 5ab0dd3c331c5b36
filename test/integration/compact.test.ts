/**
 * Compaction as a branch (`@compact`, `C`, `auto_compact`) and a model per thread (`:Tine model`):
 * what the requests carry, what the new thread holds, and that the source stays whole on disk
 * and in its requests.
 */
import assert from "node:assert/strict";
import { describe, inject, it } from "vitest";
import { body, exchange, textOf, texts, typeAndSend } from "../helpers/chat-driver.ts";
import { oneExchange } from "../helpers/fixtures.ts";
import { type Session, tempProjects, withNeovim } from "../helpers/neovim.ts";
import { transcript } from "../helpers/transcripts.ts";
import { waitForWinbar } from "../helpers/winbar.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");
const project = tempProjects();

const SUMMARY = "The user asked about hello.txt; it says hello.\n\nOpen points\n- write the tests";

/** A thread that follows hello.txt, with two exchanges; its id. */
async function followingThread(s: Session): Promise<string> {
  const id = await oneExchange(s, "read @file:hello.txt", "It says hello.");
  await exchange(s, id, "second question", "Second answer.");
  return id;
}

describe(`compaction (${nv.version})`, () => {
  it("@compact: one summary request, a new thread under the old one opening with the summary and the files followed; the old thread is byte-identical", async () => {
    await withNeovim(nv, async (s) => {
      const source = await followingThread(s);
      await s.waitForStatus(source, "idle");
      const before = await s.messages(source);
      const onDisk = transcript(s.cwd, source);
      const sent = s.mock.requests.length;
      s.mock.reply(textReply(SUMMARY));
      await typeAndSend(s, "@compact keep the file's greeting");
      await s.waitForThreadCount(2, "the compacted thread");
      const compacted = (await s.threads())[1]!;
      assert.equal(compacted.parent_id, source, "listed under its source");
      assert.equal(s.mock.requests.length, sent + 1, "one summary request");
      // The summary request is the source's history and the prompt: it reads the source's cache.
      const summaryRequest = body(s, -1);
      assert.deepEqual(texts(summaryRequest.messages.slice(0, -1)), texts(before));
      assert.match(
        texts(summaryRequest.messages).at(-1)!,
        /Open points[\s\S]*The user's instructions for this summary: keep the file's greeting$/,
      );
      // The new thread: the file followed (as last sent), then the summary.
      const [first, ...rest] = await s.messages(compacted.id);
      assert.equal(rest.length, 0);
      const firstTexts = first!.content.map((b) => (b.type === "text" ? b.text : b.type));
      assert.match(firstTexts[0]!, /^<context kind="file" path="hello.txt"[\s\S]*hello from a fixture/);
      assert.match(firstTexts[1]!, /^This thread continues "read hello.txt", compacted: its first 4 messages are summarized here/);
      assert.ok(firstTexts[1]!.endsWith(SUMMARY));
      await s.waitForDisplay(
        compacted.id,
        /^⇣ Compacted from "read hello.txt": its first 4 messages summarized below; that thread is kept whole/,
      );
      // In the list it hangs under its source by its own mark (⇣), not a fork's.
      await s.openList();
      assert.match((await s.listLines())[1]!, /^. #\d+ {4}⇣ read hello\.txt {2}/);
      await s.keys("q");
      // A fork of it is a fork, not a compaction: its own mark only.
      const forkOfIt = await s.lua<string>(`return require("tine").fork(..., "")`, compacted.id);
      await s.openList();
      const num = (await s.thread(forkOfIt)).num;
      assert.match((await s.listLines())[2]!, new RegExp(`^. #${num} {6}⑂ read hello\\.txt ⑂${num} {2}`));
      await s.keys("q");
      await s.lua(`require("tine").discard(...)`, forkOfIt);
      await s.waitForGone(forkOfIt);
      await s.open(compacted.id);
      // The source: the same history, the same bytes on disk.
      assert.deepEqual(await s.messages(source), before);
      assert.equal(transcript(s.cwd, source), onDisk, "the source's transcript is byte-identical");
      // The new thread goes on from the summary; the source's next request is the one it would have sent.
      await exchange(s, compacted.id, "go on", "Going on.");
      assert.deepEqual(texts(body(s, -1).messages), [`${firstTexts[0]}|${firstTexts[1]}|go on`]);
      await s.open(source);
      await exchange(s, source, "third question", "Third answer.");
      // The same blocks (the cache breakpoint aside; key order is not compared: Lua's tables keep none).
      const withoutBreakpoints = (content: unknown) =>
        JSON.parse(JSON.stringify(content), (k, v) => (k === "cache_control" ? undefined : v));
      assert.deepEqual(
        body(s, -1)
          .messages.slice(0, -1)
          .map((m) => withoutBreakpoints(m.content)),
        before.map((m) => m.content),
      );
    });
  });

  it(":Tine resume names each thread by its number and counts its messages, one as '1 msg'", async () => {
    await withNeovim(nv, async (s) => {
      const source = await oneExchange(s, "first question", "First answer.");
      s.mock.reply(textReply(SUMMARY));
      await typeAndSend(s, "@compact");
      await s.waitForThreadCount(2, "the compacted thread");
      const compacted = (await s.threads())[1]!;
      await s.pick(1);
      await s.cmd("Tine resume");
      const items = (await s.asked()).items ?? [];
      const of = (num: number) => items.find((i) => i.startsWith(`#${num}  `)) ?? items.join("\n");
      assert.match(of(compacted.num), /^#\d+ {2}⇣ first question {2}\(1 msg, idle, /);
      assert.match(of((await s.thread(source)).num), /^#1 {2}first question {2}\(2 msgs, idle, /);
    });
  });

  it("C on a message: the summary covers what came before it; it and the later messages are kept verbatim", async () => {
    await withNeovim(nv, async (s) => {
      const source = await oneExchange(s, "first question", "First answer.");
      await exchange(s, source, "second question", "Second answer.");
      await exchange(s, source, "third question", "Third answer.");
      await s.waitForStatus(source, "idle");
      const before = await s.messages(source);
      s.mock.reply(textReply(SUMMARY));
      await s.onDisplayLine(source, "second question", "C");
      await s.waitForThreadCount(2, "the compacted thread");
      // Summarized: the first exchange only.
      assert.deepEqual(texts(body(s, -1).messages).slice(0, 2), ["first question", "First answer."]);
      assert.equal(body(s, -1).messages.length, 3);
      const compacted = (await s.threads())[1]!.id;
      const after = await s.messages(compacted);
      assert.equal(after.length, 4);
      assert.match(textOf(after[0]!.content[0] as never)!, /its first 2 messages are summarized here/);
      assert.deepEqual(after[0]!.content.slice(1), before[2]!.content, "the message C was on, verbatim after the summary");
      assert.deepEqual(after.slice(1), before.slice(3), "the later messages verbatim");
      // A kept reply was the source's request: its line says why it stopped, no figures (never zeros).
      const shown = await s.waitForDisplay(compacted, "Third answer.");
      assert.match(shown, /\nSecond answer\.\n── end_turn\n[\s\S]*\nThird answer\.\n── end_turn\n/);
      assert.match(await s.display(source), /\nSecond answer\.\n── end_turn · in \d/, "the source keeps its figures");
      assert.deepEqual(await s.messages(source), before);
    });
  });

  it("auto_compact: crossing the mark offers a compaction; a send that would overflow compacts without asking and goes to the new thread", async () => {
    await withNeovim(
      nv,
      async (s) => {
        await s.pick(2); // "Not now"
        await s.cmd("Tine");
        s.mock.reply(response([{ text: "Big answer." }], { usage: { input_tokens: 850_000 } }));
        await typeAndSend(s, "a big question");
        const source = (await s.thread(1)).id;
        await s.waitForDisplay(source, "Big answer.");
        await s.until("the offer", async () => (await s.asked()).items !== null);
        assert.deepEqual((await s.asked()).items, ["Compact into a new thread", "Not now"]);
        assert.equal((await s.threads()).length, 1, "declined: nothing compacted");
        await s.pick(1); // accept the next offer (none is made: the mark is crossed once)
        s.mock.reply(response([{ text: "Bigger answer." }], { usage: { input_tokens: 999_000 } }));
        await typeAndSend(s, "another question");
        await s.waitForDisplay(source, "Bigger answer.");
        await s.waitForStatus(source, "idle");
        assert.equal((await s.threads()).length, 1, "past the mark already: not offered again");
        // About 1,500 tokens more would overflow the model's 1M window (node/usage/prices.ts): compacted first, then sent there.
        s.mock.reply(textReply(SUMMARY), textReply("Carrying on."));
        const long = `go on ${"x".repeat(6000)}`;
        await typeAndSend(s, long);
        await s.waitForThreadCount(2, "the compaction made before the send");
        const compacted = (await s.threads())[1]!.id;
        await s.waitForDisplay(compacted, "Carrying on.");
        assert.match(texts(body(s, -2).messages).at(-1)!, /Open points/);
        const first = texts(body(s, -1).messages)[0]!;
        assert.ok(first.includes(SUMMARY) && first.endsWith(long), "the message went to the new thread, after the summary");
        assert.equal((await s.messages(source)).length, 4, "the source never got it");
      },
      { setup: { auto_compact: 0.8 } },
    );
  });

  it("auto_compact: accepting the offer compacts the thread", async () => {
    await withNeovim(nv, async (s) => {
      await s.pick(1);
      await s.cmd("Tine");
      s.mock.reply(response([{ text: "Big answer." }], { usage: { input_tokens: 750_000, cache_read_input_tokens: 100_000 } }));
      s.mock.reply(textReply(SUMMARY));
      await typeAndSend(s, "a big question");
      await s.waitForThreadCount(2, "the compacted thread");
      assert.match(texts(body(s, -1).messages).at(-1)!, /Open points/);
      assert.equal((await s.threads())[1]!.parent_id, (await s.thread(1)).id);
    });
  });
});

describe(`a model per thread (${nv.version})`, () => {
  it(":Tine model changes this thread's next request (model and thinking) only; a fork inherits it; a restart keeps it", async () => {
    const cwd = project();
    let id = "";
    await withNeovim(
      nv,
      async (s) => {
        id = await oneExchange(s, "first question", "First answer.");
        assert.equal(body(s, -1).model, "claude-sonnet-5-5");
        // claude-haiku-4-5, then effort "low" (after "as in setup" and "none").
        await s.lua("local n = { 2, 3 }; vim.ui.select = function(items, _, cb) cb(items[table.remove(n, 1)]) end");
        await s.cmd("Tine model");
        await s.notified(/now uses claude-haiku-4-5 · thinking low: its next request will not read the prompt cache/);
        await s.waitForDisplay(id, "model: claude-haiku-4-5 · thinking low (:Tine model)");
        // Its short form: the window is too narrow for all the winbar's parts whole.
        await waitForWinbar(s, id, "haiku-4-5 · low");
        assert.equal((await s.thread(id)).model, "claude-haiku-4-5");
        await exchange(s, id, "second question", "Second answer.");
        assert.equal(body(s, -1).model, "claude-haiku-4-5");
        assert.deepEqual(body(s, -1).thinking, { type: "enabled", budget_tokens: 4096 });
        // A fork inherits it.
        s.mock.reply(textReply("Fork answer."));
        await typeAndSend(s, "@fork try another way");
        await s.waitForThreadCount(2);
        const fork = (await s.threads())[1]!.id;
        await s.waitForDisplay(fork, "Fork answer.");
        assert.equal(body(s, -1).model, "claude-haiku-4-5");
        // Another thread keeps setup's.
        await s.cmd("Tine new");
        await exchange(s, 3, "elsewhere", "Elsewhere answer.");
        assert.equal(body(s, -1).model, "claude-sonnet-5-5");
        assert.deepEqual(body(s, -1).thinking, { type: "adaptive", display: "summarized" });
        // :Tine model <name> uses the name, no picker: one setup lacks is refused, as model() refuses it.
        await s.lua("_G.tine_picked = 0; vim.ui.select = function() _G.tine_picked = _G.tine_picked + 1 end");
        await s.cmd("Tine model gpt-bogus");
        await s.notified(/^tine: no model "gpt-bogus" in setup: the models are /);
        await s.cmd("Tine model claude-haiku-4-5");
        await s.notified(/now uses claude-haiku-4-5/);
        assert.equal(await s.lua<number>("return _G.tine_picked"), 0);
        assert.equal((await s.thread(3)).model, "claude-haiku-4-5");
      },
      { cwd },
    );
    await withNeovim(
      nv,
      async (s) => {
        await s.open(id);
        await exchange(s, id, "after the restart", "Still here.");
        assert.equal(body(s, -1).model, "claude-haiku-4-5");
        assert.equal((await s.thread(id)).model, "claude-haiku-4-5");
      },
      { cwd },
    );
  });

  it(":Tine model marks what the thread uses now, and offers setup's thinking to go back to", async () => {
    await withNeovim(nv, async (s) => {
      const id = await oneExchange(s, "first question", "First answer.");
      // Each picker's items as shown, and the item picked (by its place) from `answers`.
      const answer = (...answers: number[]) =>
        s.lua(
          `local answers = ...
          _G.model_selects = {}
          vim.ui.select = function(items, opts, cb)
            table.insert(_G.model_selects, vim.tbl_map((opts or {}).format_item or tostring, items))
            cb(items[table.remove(answers, 1)])
          end`,
          answers,
        );
      await answer(2, 3); // claude-haiku-4-5, thinking low
      await s.cmd("Tine model");
      let [models, efforts] = await s.lua<string[][]>("return _G.model_selects");
      assert.deepEqual(models, ["claude-sonnet-5-5  (now)", "claude-haiku-4-5"]);
      assert.deepEqual(efforts, ["as in setup: adaptive  (now)", "none", "low", "medium", "high"]);
      await s.waitForDisplay(id, "model: claude-haiku-4-5 · thinking low (:Tine model)");
      await answer(2, 1); // the same model, setup's thinking again
      await s.cmd("Tine model");
      [models, efforts] = await s.lua<string[][]>("return _G.model_selects");
      assert.deepEqual(models, ["claude-sonnet-5-5", "claude-haiku-4-5  (now)"]);
      assert.deepEqual(efforts, ["as in setup: adaptive", "none", "low  (now)", "medium", "high"]);
      await s.waitForDisplay(id, "model: claude-haiku-4-5 · thinking as in setup (:Tine model)");
      await exchange(s, id, "second question", "Second answer.");
      assert.equal(body(s, -1).model, "claude-haiku-4-5");
      assert.deepEqual(body(s, -1).thinking, { type: "adaptive", display: "summarized" }, "setup's thinking, as a new thread sends it");
    });
  });
});
