/**
 * Stored threads as the thread list handles them: rename, delete and resume, kept across a restart;
 * a stored thread forked without loading it; every project's threads (:Tine threads!); a fork that
 * waits for the reply (:ForkThread --wait). Each test stands alone in its own Neovim.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { shortNames } from "../helpers/buffer-names.ts";
import { body, exchange, texts, typeAndSend, waitingForkOfStreamingReply } from "../helpers/chat-driver.ts";
import { oneExchange, parentAndFork } from "../helpers/fixtures.ts";
import { tempProjects, withNeovim } from "../helpers/neovim.ts";
import { transcripts } from "../helpers/transcripts.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");

const project = tempProjects();

describe(`storage (${nv.version})`, () => {
  it("rename (list r, :Tine rename), delete with confirmation (list D), :Tine resume", async () => {
    await withNeovim(nv, async (s) => {
      await oneExchange(s, "alpha", "A.");
      await s.cmd("Tine new");
      await exchange(s, 2, "beta", "B.");
      // A title is one clean line: control characters (BEL, ESC, NUL) left out, at most 80 characters.
      await s.lua("require('tine').rename(..., 'Bell\\7 and \\27[31mred\\0 ' .. string.rep('x', 200))", (await s.thread(2)).id);
      const cleaned = (await s.thread(2)).title;
      assert.match(cleaned, /^Bell and \[31mred x+…$/);
      assert.equal(cleaned.length, 80);
      await s.cmd("Tine rename The beta thread");
      assert.equal((await s.thread(2)).title, "The beta thread");
      await s.until(
        "the buffer name",
        async () =>
          shortNames([await s.lua<string>("return vim.api.nvim_buf_get_name(...)", (await s.thread(2)).bufnr)])[0] ===
          "tine #2 The beta thread",
      );
      await s.openList();
      await s.answerInput("Alpha renamed");
      await s.onListLine("alpha", "r");
      await s.listLine("Alpha renamed");
      // D asks first: "Cancel" keeps the thread.
      await s.answerConfirm(2);
      await s.onListLine("Alpha renamed", "D");
      assert.equal((await s.threads()).length, 2);
      await s.answerConfirm(1);
      await s.keys("D");
      await s.waitForThreadCount(1, "the deletion");
      // The list is drawn again after the deletion's answer.
      await s.until("the list to drop it", async () => !(await s.listText()).includes("Alpha renamed"));
      // :Tine resume offers the threads, most recent first, and opens the one picked.
      await s.pick(1);
      await s.cmd("Tine resume");
      assert.match((await s.asked()).items?.[0] ?? "", /^#\d+ {2}The beta thread {2}\(2 msgs, idle/);
    });
  });

  it("renames and deletions are stored: after a restart the list matches; a deleted parent's fork keeps its history", async () => {
    const cwd = project();
    await withNeovim(
      nv,
      async (s) => {
        const { parent, fork } = await parentAndFork(s, {
          prompt: "root question",
          answer: "Root answer.",
          forkPrompt: "fork question",
          forkAnswer: "Fork answer.",
        });
        await s.lua("require('tine').rename(..., 'Named fork')", fork);
        await s.lua("require('tine').delete(...)", parent);
      },
      { cwd },
    );
    await withNeovim(
      nv,
      async (s) => {
        await s.openList();
        assert.deepEqual(
          (await s.threads()).map((t) => t.title),
          ["Named fork"],
        );
        assert.match((await s.listLines())[0]!, /^ {2}#\d+ {2}Named fork {2}○ stored · 4 msgs/);
        const id = (await s.threads())[0]!.id;
        await s.open(id);
        await exchange(s, id, "more", "Still whole.", { waitFor: "Still whole." });
        assert.deepEqual(texts(body(s, 0).messages), ["root question", "Root answer.", "fork question", "Fork answer.", "more"]);
      },
      { cwd },
    );
  });

  it("a stored thread is forked from the list without loading it", async () => {
    const cwd = project();
    await withNeovim(
      nv,
      async (s) => {
        await oneExchange(s, "stored question", "Stored answer.");
      },
      { cwd },
    );
    await withNeovim(
      nv,
      async (s) => {
        await s.openList();
        s.mock.reply(textReply("Branch of a stored thread."));
        await s.answerInput("branch it");
        await s.onListLine(1, "f");
        await s.waitForThreadCount(2, "the fork");
        const [source, fork] = await s.threads();
        await s.waitForDisplay(fork!.id, "Branch of a stored thread.");
        assert.equal(source!.status, "stored", "the source was not loaded");
        assert.equal(source!.bufnr, null);
        assert.equal(fork!.parent_id, source!.id);
        assert.deepEqual(texts(body(s, 0).messages), ["stored question", "Stored answer.", "branch it"]);
        // The fork's file is a pointer plus its own records, not a copy of the source.
        const forkFile = transcripts(cwd).find((f) => f.includes(fork!.id))!;
        assert.ok(!readFileSync(forkFile, "utf8").includes("Stored answer."));
      },
      { cwd },
    );
  });

  it(":Tine threads! lists every project's threads, grouped by project", async () => {
    const one = project();
    const two = project();
    const shared = join(one, ".data");
    for (const cwd of [one, two]) {
      await withNeovim(
        nv,
        async (s) => {
          await oneExchange(s, `work in ${cwd === one ? "one" : "two"}`, "ok");
        },
        { cwd, env: { XDG_DATA_HOME: shared } },
      );
    }
    await withNeovim(
      nv,
      async (s) => {
        await s.openList(true);
        await s.listLine("work in two");
        const shown = await s.listText();
        assert.match(shown, /^ {2}#1 {2}work in one {2}○ stored/);
        assert.ok(shown.includes(`── ${two} (another project`));
        assert.match(shown, /\n {6}work in two {2}○ stored · 2 msgs/, "no number: it is another project's");
      },
      { cwd: one, env: { XDG_DATA_HOME: shared } },
    );
  });

  it(":ForkThread --wait forks once the reply is complete; the list shows it waiting; a second :ForkThread or <C-c> cancels", async () => {
    await withNeovim(nv, async (s) => {
      await waitingForkOfStreamingReply(s);
      assert.equal((await s.threads()).length, 1, "nothing is forked while the reply streams");
      await s.openList();
      await s.listLine('⑂ ⏸ fork "look again" waits for this reply to finish');
      s.mock.release("h");
      await s.waitForDisplay(2, "Forked after.");
      assert.deepEqual(texts(body(s, 1).messages), ["go", "The whole reply, to the end.", "look again"]);
      assert.ok(!(await s.listText()).includes("⏸"));

      // Cancelled twice: by a second :ForkThread in the thread, and by <C-c> on the list line.
      s.mock.reply(response([{ text: "Another long one.", holdInside: { hold: "h2", afterDeltas: 1 } }]));
      await s.open((await s.thread(1)).id);
      await typeAndSend(s, "again");
      await s.waitForDisplay(1, "## Claude\nAnother");
      await s.cmd("ForkThread --wait not wanted");
      await s.cmd("ForkThread");
      await s.notified(/the fork waiting for "go" is cancelled/);
      await s.cmd("ForkThread --wait not wanted either");
      await s.openList();
      await s.onListLine("⏸", "<C-c>");
      await s.until("the waiting fork to go", async () => !(await s.listText()).includes("⏸"));
      assert.equal((await s.thread(1)).status, "streaming", "<C-c> on the waiting fork does not abort its source");
      s.mock.release("h2");
      await s.waitForStatus(1, "idle");
      assert.equal((await s.threads()).length, 2, "no fork was taken");
    });
  });
});
