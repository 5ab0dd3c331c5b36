/**
 * Forks that come back: discard, promote, report; background forks; idle time-outs; branch diff.
 * Over 300 lines: one file per feature area, each test standing alone in its own Neovim; split
 * by area, not by length.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { describe, inject, it } from "vitest";
import { isTine } from "../helpers/buffer-names.ts";
import { body, exchange, resultOf, sentBlocks, textOf, texts, typeAndSend } from "../helpers/chat-driver.ts";
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
        await parentAndFork(s);
        s.mock.reply(textReply("Wrapping up: the tangent showed X."));
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

  it("the agent's enter_fork with a topic opens a fork when its response ends and sends the topic", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(
        response([{ toolUse: { id: "ef1", name: "enter_fork", input: { topic: "try the recursive version" } } }]),
        textReply("I opened a fork for that."),
        textReply("Recursive version: done."),
      );
      await s.cmd("Tine");
      await typeAndSend(s, "solve it");
      await s.waitForDisplay(2, "Recursive version: done.");
      assert.match(await s.display(1), /I opened a fork for that\./);
      // Opened by the agent, not by the user at this moment: beside its source, the cursor left where the user is.
      await s.notified(/the fork .* opened beside .* \(the cursor stays where it is\)/);
      assert.equal(await s.currentBuf(), (await s.thread(1)).input_bufnr);
      assert.ok(
        (await s.windows()).some((w) => w.endsWith("[input]") && w.includes("#2")),
        "the fork is in sight",
      );
      assert.match(resultOf(sentBlocks(s, 1, -1)[0]) as string, /A fork of this thread opens when this response ends, with the topic/);
      assert.deepEqual(texts(body(s, 2).messages).at(-1), "try the recursive version");
      assert.equal((await s.thread(2)).parent_id, (await s.thread(1)).id);
      // Every thread is offered the same tools, so a fork's requests keep its parent's cached prefix.
      const toolNames = (i: number) => body(s, i).tools!.map((t) => ("name" in t ? t.name : undefined));
      assert.deepEqual(toolNames(2), toolNames(0));
    });
  });

  it("an agent that calls enter_fork in every fork cannot multiply them: its forks open none, at most agent_fork_limit are open, each refusal says why", async () => {
    await withNeovim(nv, async (s) => {
      // Every response that does not answer a tool call calls enter_fork (the fork bomb of issue 16).
      let calls = 0;
      s.mock.otherwise((req) => {
        const last = req.body.messages.at(-1);
        const answersATool = Array.isArray(last?.content) && last.content.some((b) => b.type === "tool_result");
        return answersATool
          ? textReply("Noted.")
          : response([{ toolUse: { id: `ef${++calls}`, name: "enter_fork", input: { topic: "go deeper" } } }]);
      });
      await s.cmd("Tine");
      const root = (await s.thread(1)).id;
      /**
       * Each round: the user sends in the root thread once; waits until every thread is idle with
       * `requests` made, and a fork it opened is shown (it takes the focus when its window opens,
       * which may be after its turn ended: the next round's send must not go there).
       */
      const round = async (n: number, requests: number) => {
        const before = (await s.threads()).length;
        await s.open(root);
        await typeAndSend(s, `round ${n}`);
        await s.until(`round ${n}: ${requests} requests, every thread idle, a fork it opened shown`, async () => {
          const threads = await s.threads();
          const opened = threads.length > before ? threads.reduce((a, b) => (b.num > a.num ? b : a)) : null;
          const shown = !opened || (opened.bufnr != null && (await s.lua<number>("return #vim.fn.win_findbuf(...)", opened.bufnr)) > 0);
          return s.mock.requests.length === requests && threads.every((t) => t.status === "idle") && shown;
        });
      };
      // The root's enter_fork opens a fork; the fork's own enter_fork is refused.
      await round(1, 4);
      assert.equal((await s.threads()).length, 2);
      assert.equal(
        resultOf(sentBlocks(s, 3, -1)[0]),
        "enter_fork is refused: this fork was opened by the agent, and a fork the agent opened cannot open another until the user " +
          "sends a message in it. Go on here, or end this fork (report_updates).",
      );
      await round(2, 8);
      await round(3, 12);
      // A fourth from the same thread is past agent_fork_limit (3): refused, and no thread is made.
      await round(4, 14);
      const threads = await s.threads();
      assert.equal(threads.length, 4);
      assert.deepEqual(
        threads.filter((t) => t.id !== root).map((t) => t.parent_id),
        [root, root, root],
      );
      assert.match(
        resultOf(sentBlocks(s, 13, -1)[0]) as string,
        /^enter_fork is refused: 3 forks the agent opened from this thread are still open, the most the user allows \(agent_fork_limit = 3\)/,
      );
      assert.equal(s.mock.requests.length, 14, "no request after the user's last send was answered");
    });
  });

  it("report_updates called by the agent in a fork lands in the parent; exit_fork outside a fork is refused with why", async () => {
    await withNeovim(nv, async (s) => {
      const { parent, fork } = await parentAndFork(s);
      s.mock.reply(
        response([{ toolUse: { id: "ru1", name: "report_updates", input: { message: "The tangent found a 2x speed-up." } } }]),
        textReply("Reported back."),
      );
      await typeAndSend(s, "wrap it up");
      await s.waitForGone(fork, "the fork to end");
      await s.waitForDisplay(parent, '📨 Report from "explore a tangent" goes with your next message: The tangent found a 2x speed-up.');
      s.mock.reply(response([{ toolUse: { id: "xf1", name: "exit_fork", input: {} } }]), textReply("Understood."));
      await s.open(parent);
      await typeAndSend(s, "carry on");
      await s.waitForDisplay(parent, "Understood.");
      const sent = sentBlocks(s, -2, -1).map(textOf);
      assert.deepEqual(sent, ['<fork-report from="explore a tangent">\nThe tangent found a 2x speed-up.\n</fork-report>', "carry on"]);
      assert.deepEqual(sentBlocks(s, -1, -1)[0], {
        type: "tool_result",
        tool_use_id: "xf1",
        content: "exit_fork works only in a fork, and this thread is not one.",
        is_error: true,
        cache_control: { type: "ephemeral" },
      });
    });
  });

  it("@handoff: the agent's fork_thread prompt opens a new thread's input; the source's next request is the one it would have sent", async () => {
    await withNeovim(nv, async (s) => {
      const source = await oneExchange(s, "first question", "First answer.");
      const before = await s.messages(source);
      s.mock.reply(
        // The agent does something else first, then hands off.
        response([{ text: "Let me check." }, { toolUse: { id: "g1", name: "get_file", input: { path: "hello.txt" } } }]),
        response([{ toolUse: { id: "h1", name: "fork_thread", input: { prompt: "Write tests for hello.txt: it says hello." } } }]),
      );
      await typeAndSend(s, "@handoff write the tests elsewhere");
      await s.waitForThreadCount(2, "the new thread");
      const fresh = (await s.threads())[1]!;
      // Listed before its buffers are made: its input buffer is looked up until there is one.
      await s.until("its input", async () => {
        const { input_bufnr } = await s.thread(fresh.id);
        return input_bufnr != null && (await s.lines(input_bufnr)).join("\n") === "Write tests for hello.txt: it says hello.";
      });
      assert.equal(fresh.parent_id, source);
      assert.equal((await s.messages(fresh.id)).length, 0, "a fresh thread, not a clone");
      await s.waitForStatus(source, "idle");
      assert.deepEqual(await s.messages(source), before, "the source is as it was before @handoff");
      await s.open(source);
      await exchange(s, source, "second question", "Second answer.", { waitFor: "Second answer." });
      assert.deepEqual(texts(body(s, -1).messages), ["first question", "First answer.", "second question"]);
    });
  });

  it("a hand-off thread is a thread of its own under its source: its banner says so, it cannot be promoted over its source, and a restart keeps it apart", async () => {
    await withProject(async (cwd) => {
      let ids = { source: "", handoff: "" };
      await withNeovim(
        nv,
        async (s) => {
          const source = await oneExchange(s, "first question", "First answer.");
          await exchange(s, source, "second question", "Second answer.", { waitFor: "Second answer." });
          const before = await s.messages(source);
          s.mock.reply(response([{ toolUse: { id: "h1", name: "fork_thread", input: { prompt: "Carry on with the plan." } } }]));
          await typeAndSend(s, "@handoff carry on");
          await s.waitForThreadCount(2, "the hand-off thread");
          const handoff = (await s.threads())[1]!.id;
          ids = { source, handoff };
          await s.waitForStatus(source, "idle");
          // threads() lists it as soon as it exists; its window takes the focus once its buffers are made.
          await s.until(
            "the hand-off's input to have the focus",
            async () => (await s.lua<string>("return vim.b.tine_thread")) === handoff,
          );
          await exchange(s, handoff, "Carry on with the plan.", "Carrying on.", { waitFor: "Carrying on." });
          const display = await s.display(handoff);
          assert.match(display, /^↪ Handed off from "first question": a thread of its own · gp: go to it/);
          assert.ok(!display.includes("Forked from"), display);
          const refused = await s.lua<string>("local ok, e = pcall(require('tine').promote, ...); return ok and 'promoted' or e", handoff);
          assert.match(refused, /was handed off, not forked: it is a thread of its own and does not end into its source/);
          assert.deepEqual(await s.messages(source), before, "the source keeps its history");
          assert.equal((await s.threads()).length, 2);
        },
        { cwd },
      );
      await withNeovim(
        nv,
        async (s) => {
          await s.openList();
          const after = Object.fromEntries((await s.threads()).map((t) => [t.id, t]));
          assert.equal(after[ids.handoff]!.parent_id, ids.source, "still listed under its source");
          assert.equal(after[ids.handoff]!.messages, 2, "only its own messages, none of its source's");
          await s.open(ids.handoff);
          assert.deepEqual(texts(await s.messages(ids.handoff)), ["Carry on with the plan.", "Carrying on."]);
          await s.waitForDisplay(ids.handoff, /^↪ Handed off from/);
        },
        { cwd },
      );
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
