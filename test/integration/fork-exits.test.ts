/**
 * Forks that come back, as the user ends them: discard, promote, report (from Lua, the list and the
 * fork's buffer); background forks; idle time-outs; the branch diff; the tree after a promote and a
 * restart. Each test stands alone in its own Neovim.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { describe, inject, it } from "vitest";
import { isTine } from "../helpers/buffer-names.ts";
import { body, exchange, sentBlocks, textOf, texts, typeAndSend } from "../helpers/chat-driver.ts";
import { oneExchange, parentAndFork } from "../helpers/fixtures.ts";
import { withNeovim, withProject } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");

describe(`forks that come back (${nv.version})`, () => {
  it("a fork's banner names its exits; gD discards it; :Tine threads! shows it and <CR> restores it", async () => {
    await withNeovim(nv, async (s) => {
      const { fork } = await parentAndFork(s);
      const shown = await s.display(fork);
      assert.match(
        shown,
        /^⑂ Forked from "main question" at Claude's reply "Parent answer\." · gp: go to parent\n {2}ends with, keys in this display: gR report to it · gP promote into it · gD discard · anywhere: :Tine fork report\|promote\|discard/,
      );
      await s.answerConfirm(1); // it has messages of its own: gD asks (fork-discard.test.ts)
      await s.focus((await s.thread(fork)).bufnr!);
      await s.keys("gD");
      await s.waitForGone(fork, "the fork to go");
      await s.notified(/explore a tangent was discarded/);
      assert.ok(!(await s.bufferNames()).some((n) => isTine(n, 2)), "its buffers are gone");
      await s.openList(true);
      const at = await s.listLine("explore a tangent  ○ ended");
      assert.ok(at > 1, await s.listText());
      await s.onListLine(at, "<CR>");
      await s.until("the fork back in the tree, open", async () => (await s.lua("return require('tine').current()")) === fork);
    });
  });

  it("promote from the list: the parent shows and continues the fork's history; its old tail is a new branch; the cursor stays in the list", async () => {
    await withNeovim(nv, async (s) => {
      const { parent, fork } = await parentAndFork(s);
      // The parent goes on after the fork point: that tail must not be lost.
      await s.open(parent);
      await exchange(s, parent, "parent continues", "Parent goes on.");
      const list = await s.openList();
      await s.onListLine("⑂ explore a tangent", "gP");
      await s.waitForGone(fork, "the promote");
      const shown = await s.waitForDisplay(parent, "Fork answer.");
      assert.equal(await s.currentBuf(), list, "gP keeps the cursor in the list, as gD does");
      assert.doesNotMatch(shown, /Parent goes on/);
      const threads = await s.threads();
      const branch = threads.find((t) => t.parent_id === parent)!;
      assert.ok(branch, "the old tail is a fork of the parent");
      assert.deepEqual(texts(await s.messages(branch.id)), ["main question", "Parent answer.", "parent continues", "Parent goes on."]);
      await s.open(parent);
      await exchange(s, parent, "next", "Continued from the fork.", { waitFor: "Continued from the fork." });
      assert.deepEqual(texts(body(s, -1).messages), ["main question", "Parent answer.", "explore a tangent", "Fork answer.", "next"]);
    });
  });

  it("report: with text (Lua) it is queued at once; without (:Tine fork report) the fork is asked first; both go with the parent's next message", async () => {
    await withNeovim(nv, async (s) => {
      const { parent, fork } = await parentAndFork(s);
      await s.open(parent);
      await exchange(s, 3, "@fork another tangent", "Second fork answer.");
      const second = (await s.thread(3)).id;
      await s.lua("require('tine').report(..., 'Tangent one: the cache is the bottleneck.')", fork);
      await s.waitForDisplay(
        parent,
        '📨 Report from "explore a tangent" goes with your next message: Tangent one: the cache is the bottleneck.',
      );
      s.mock.reply(textReply("Summary: tangent two found nothing new."));
      await s.open(second);
      await s.cmd("Tine fork report");
      await s.waitForGone(second, "the second fork to report");
      assert.match(texts(body(s, -1).messages).at(-1)!, /reports back to the thread it came from/);
      await s.open(parent);
      await exchange(s, parent, "what did the forks find?", "Thanks for both.", { waitFor: "Thanks for both." });
      const last = sentBlocks(s, -1, -1).map(textOf);
      assert.deepEqual(last, [
        '<fork-report from="explore a tangent">\nTangent one: the cache is the bottleneck.\n</fork-report>',
        '<fork-report from="another tangent">\nSummary: tangent two found nothing new.\n</fork-report>',
        "what did the forks find?",
      ]);
      // The display shows each report under a line naming its fork, never the markup the API gets.
      const shown = await s.display(parent);
      assert.match(
        shown,
        /## You\n📨 Report from "explore a tangent":\nTangent one: the cache is the bottleneck\.\n\n📨 Report from "another tangent":\nSummary: tangent two found nothing new\.\n\nwhat did the forks find\?\n/,
      );
      assert.doesNotMatch(shown, /fork-report/);
      assert.doesNotMatch(shown, /goes with your next message/, "sent: no longer waiting");
    });
  });

  it("@bg runs two forks at once without windows; both report into the parent's next request", async () => {
    await withNeovim(nv, async (s) => {
      const parent = await oneExchange(s, "main question", "Parent answer.");
      s.mock.reply(
        response([{ text: "Background A result.", holdInside: { hold: "a", afterDeltas: 1 } }]),
        response([{ text: "Background B result.", holdInside: { hold: "b", afterDeltas: 1 } }]),
      );
      const windowsBefore = (await s.windows({ allTabs: true })).length;
      await typeAndSend(s, "@bg look at A");
      await typeAndSend(s, "@bg look at B");
      await s.mock.reached("a");
      await s.mock.reached("b");
      assert.equal((await s.windows({ allTabs: true })).length, windowsBefore, "no window opened");
      await s.openList();
      await s.until(
        "both running in the list",
        async () => (await s.listLines()).filter((l) => l.includes("streaming (background)")).length === 2,
      );
      assert.equal(await s.lua("return require('tine').current()"), parent, "the parent stays the active thread");
      s.mock.release("b");
      s.mock.release("a");
      await s.until("both reported", async () => (await s.threads()).length === 1);
      await s.open(parent);
      await exchange(s, parent, "and?", "Got both.", { waitFor: "Got both." });
      const sent = sentBlocks(s, -1, -1).map(textOf).join("\n");
      assert.match(sent, /<fork-report from="look at A">\nBackground A result\.\n<\/fork-report>/);
      assert.match(sent, /<fork-report from="look at B">\nBackground B result\.\n<\/fork-report>/);
    });
  });

  it("a fork idle past fork_idle_timeout gets the wrap-up prompt in its next request", async () => {
    await withNeovim(
      nv,
      async (s) => {
        await parentAndFork(s, undefined, [textReply("Wrapping up: the tangent showed X.")]);
        await s.until("the wrap-up request", async () => s.mock.requests.length === 3, 10_000);
        const asked = texts(body(s, 2).messages).at(-1)!;
        assert.match(asked, /^\[tine\] This fork has been idle for 0\.01 minutes\. Wrap up/);
        await s.waitForDisplay(2, "Wrapping up: the tangent showed X.");
      },
      { setup: { fork_idle_timeout: 0.01 } },
    );
  });

  it("a fork_idle_timeout beyond what a timer holds (1e6 minutes) arms no timer that fires at once: the host does not spin", async () => {
    await withNeovim(
      nv,
      async (s) => {
        await parentAndFork(s);
        // A further exchange in the fork: time for an overflowed timer to have fired and re-armed many times.
        await exchange(s, 2, "and then?", "Then nothing.");
        const log = await s.lua<string>("return require('tine.host').log_path()");
        // The log is made when the host first writes to it.
        const written = existsSync(log) ? readFileSync(log, "utf8") : "";
        assert.ok(!written.includes("TimeoutOverflowWarning"), `the host's log holds TimeoutOverflowWarning:\n${written.slice(0, 500)}`);
        assert.equal((await s.thread(2)).status, "idle");
        assert.equal(s.mock.requests.length, 3, "no wrap-up request");
      },
      { setup: { fork_idle_timeout: 1e6 } },
    );
  });

  it(":Tine diff in a fork opens both branches from their common ancestor side by side, in diff mode", async () => {
    await withNeovim(nv, async (s) => {
      await parentAndFork(s);
      await s.open((await s.thread(2)).id);
      await s.cmd("Tine diff");
      const panes = await s.lua<{ name: string; diff: boolean; lines: string[] }[]>(`
        return vim.tbl_map(function(w)
          local b = vim.api.nvim_win_get_buf(w)
          return { name = vim.api.nvim_buf_get_name(b), diff = vim.wo[w].diff, lines = vim.api.nvim_buf_get_lines(b, 0, -1, false) }
        end, vim.api.nvim_tabpage_list_wins(0))`);
      assert.equal(panes.length, 2);
      assert.ok(panes.every((p) => p.diff));
      assert.deepEqual(panes[0]!.lines.slice(0, 5), [
        "explore a tangent · after 2 shared messages",
        "",
        "── message 3 · You ──",
        "explore a tangent",
        "",
      ]);
      assert.deepEqual(panes[1]!.lines, ["main question · after 2 shared messages", ""]);
    });
  });

  it("a background fork that needs an approval waits, shows it in the list and says so once; opened, it is an ordinary fork", async () => {
    await withNeovim(nv, async (s) => {
      await oneExchange(s, "main question", "Parent answer.");
      s.mock.reply(
        response([{ toolUse: { id: "b1", name: "bash_command", input: { command: "echo bg" } } }]),
        textReply("Background done."),
      );
      await typeAndSend(s, "@bg run something");
      await s.notified(/\(in the background\) waits for your approval/);
      await s.openList();
      await s.onListLine("waiting (background)", "<CR>");
      const bg = (await s.threads())[1]!;
      await s.waitForDisplay(bg.id, "awaiting approval");
      await s.focus((await s.thread(bg.id)).input_bufnr!);
      await s.until("the input to know", () => s.lua<boolean>("return vim.b.tine_pending == true"));
      await s.keys("<C-y>");
      await s.waitForDisplay(bg.id, "Background done.");
      assert.equal((await s.threads()).length, 2, "opened, it no longer reports back by itself");
      assert.equal((await s.notifications()).filter((n) => /waits for your approval/.test(n.msg)).length, 1);
    });
  });

  it("each exit from each entry: discard from Lua, report from the list (gR), promote from the fork's buffer (gP)", async () => {
    await withNeovim(nv, async (s) => {
      const { parent, fork } = await parentAndFork(s);
      await s.open(parent);
      await exchange(s, 3, "@fork two", "Second fork.");
      await s.open(parent);
      await exchange(s, 4, "@fork three", "Third fork.");
      const [second, third] = [(await s.thread(3)).id, (await s.thread(4)).id];
      await s.lua("require('tine').discard(...)", fork);
      await s.waitForGone(fork, "discarded");
      s.mock.reply(textReply("Summary of the second."));
      await s.openList();
      await s.onListLine("⑂ two", "gR");
      await s.waitForGone(second, "reported");
      await s.waitForDisplay(parent, '📨 Report from "two" goes with your next message: Summary of the second.');
      await s.open(third);
      await s.focus((await s.thread(third)).bufnr!);
      await s.keys("gP");
      await s.waitForGone(third, "promoted");
      await s.waitForDisplay(parent, "Third fork.");
    });
  });

  it("after a promote and a restart, the tree is the same: the old tail's forks under the new branch, the fork's under the parent", async () => {
    await withProject(async (cwd) => {
      let ids: Record<string, string> = {};
      await withNeovim(
        nv,
        async (s) => {
          const { parent, fork } = await parentAndFork(s);
          await exchange(s, 3, "@fork deeper", "Grandchild answer.");
          await s.open(parent);
          await exchange(s, parent, "parent continues", "Parent goes on.");
          await exchange(s, 4, "@fork late", "Late fork answer.");
          ids = { parent, fork, grandchild: (await s.thread(3)).id, late: (await s.thread(4)).id };
          await s.lua("require('tine').promote(...)", fork);
          await s.waitForGone(fork, "the promote");
          const tree = Object.fromEntries((await s.threads()).map((t) => [t.id, t.parent_id]));
          ids["branch"] = (await s.threads()).find((t) => t.parent_id === parent && t.id !== ids["late"] && t.id !== ids["grandchild"])!.id;
          assert.equal(tree[ids["grandchild"]!], parent);
          assert.equal(tree[ids["late"]!], ids["branch"]);
        },
        { cwd },
      );
      await withNeovim(
        nv,
        async (s) => {
          await s.openList();
          const tree = Object.fromEntries((await s.threads()).map((t) => [t.id, t.parent_id]));
          assert.equal(tree[ids["grandchild"]!], ids["parent"], "the fork's fork follows its history into the parent");
          assert.equal(tree[ids["late"]!], ids["branch"], "the old tail's fork stays with the old tail");
          assert.equal(tree[ids["branch"]!], ids["parent"]);
          assert.ok(!(ids["fork"]! in tree), "the promoted fork has ended");
          const id = ids["parent"]!;
          await s.open(id);
          await exchange(s, id, "next", "Continued.", { waitFor: "Continued." });
          assert.deepEqual(texts(body(s, -1).messages), ["main question", "Parent answer.", "explore a tangent", "Fork answer.", "next"]);
        },
        { cwd },
      );
    });
  });
});
