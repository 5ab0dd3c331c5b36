/**
 * Thread titles as a user sees them: a fork named from its prompt (its source's title kept in its
 * banner), a fork without a prompt named once from its first message, the model's title after a
 * thread's first reply (a request of its own, scripted apart in the mock), and a rename that wins.
 */
import assert from "node:assert/strict";
import { basename } from "node:path";
import { describe, inject, it } from "vitest";
import { TITLE_SYSTEM_PROMPT } from "../../node/providers/title.ts";
import { exchange, typeAndSend } from "../helpers/chat-driver.ts";
import { oneExchange, twoExchanges } from "../helpers/fixtures.ts";
import { withNeovim } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");

describe(`titles (${nv.version})`, () => {
  it("a fork is titled from its prompt, its banner names its source; without a prompt it is titled once from its first message", async () => {
    await withNeovim(nv, async (s) => {
      await twoExchanges(s);
      s.mock.reply(textReply("Hash map answer."));
      await typeAndSend(s, "@fork try a hash map");
      await s.waitForDisplay(2, "Hash map answer.");
      assert.equal((await s.thread(2)).title, "try a hash map");
      assert.match(await s.display(2), /^⑂ Forked from "first question" at /);
      // Without a prompt: the source's title and the fork's number, one mark however deep.
      await typeAndSend(s, "@fork");
      await s.waitForThreadCount(3);
      assert.equal((await s.thread(3)).title, "try a hash map ⑂3");
      await s.until("the fork's input", async () => (await s.currentBuf()) === (await s.thread(3)).input_bufnr);
      await typeAndSend(s, "@fork");
      await s.waitForThreadCount(4);
      assert.equal((await s.thread(4)).title, "try a hash map ⑂4", "no nested marks");
      await s.until("the fork's input", async () => (await s.currentBuf()) === (await s.thread(4)).input_bufnr);
      await exchange(s, 4, "what about a trie", "Trie answer.");
      assert.equal((await s.thread(4)).title, "what about a trie", "titled from its first message");
      assert.match(await s.display(4), /^⑂ Forked from "try a hash map ⑂3" at /);
      await s.openList();
      await s.listLine("⑂ what about a trie");
    });
  });

  it("auto_title: after the first reply the model names the thread, in a request of its own; once, and never over a rename", async () => {
    await withNeovim(
      nv,
      async (s) => {
        s.mock.title("Greeting the assistant");
        const id = await oneExchange(s, "hello there, how are you", "Fine, thanks.");
        await s.until("the model's title", async () => (await s.thread(id)).title === "Greeting the assistant");
        assert.equal(s.mock.titleRequests.length, 1);
        const asked = s.mock.titleRequests[0]!.body;
        assert.equal(asked.system, TITLE_SYSTEM_PROMPT);
        assert.ok(asked.max_tokens <= 64 && !asked.tools, "a small request without tools");
        assert.match(JSON.stringify(asked.messages), /hello there, how are you.*Fine, thanks\./);
        assert.equal(s.mock.requests.length, 1, "the thread's own requests are untouched");
        await s.until("the title in the buffer name", async () =>
          (await s.windows()).some((n) => /^tine #\d+ Greeting the assistant$/.test(basename(n))),
        );
        // A second reply asks nothing.
        await exchange(s, id, "and now?", "Still fine.");
        assert.equal(s.mock.titleRequests.length, 1);
        // A fork from its prompt is retitled after its first reply too; a rename while asked wins.
        s.mock.title(response([{ hold: "title" }, { text: "Hash maps versus tries" }]));
        s.mock.reply(textReply("Hash map answer."));
        await typeAndSend(s, "@fork try a hash map");
        await s.waitForDisplay(2, "Hash map answer.");
        await s.until("the fork's title request", async () => s.mock.titleRequests.length === 2);
        const fork = await s.thread(2);
        await s.lua("require('tine').rename(...)", fork.id, "my own name");
        s.mock.release("title");
        await s.until("the second title reply handled", async () => (await s.thread(2)).title === "my own name");
        await exchange(s, fork.id, "more", "More.", { waitFor: "More." });
        await s.waitForStatus(fork.id, "idle");
        assert.equal((await s.thread(2)).title, "my own name", "the user's title stays");
        assert.equal(s.mock.titleRequests.length, 2);
      },
      { setup: { auto_title: true } },
    );
  });
});
