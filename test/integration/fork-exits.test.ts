/** Forks that come back: discard, promote, report; background forks; idle time-outs; branch diff. */
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { describe, inject, it } from "vitest";
import { bodies, texts, typeAndSend } from "../helpers/chat-driver.ts";
import { projectDir, type Session, withNeovim } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");

const lastNote = async (s: Session) => (await s.notifications()).at(-1)?.msg ?? "";

/** A thread with one exchange and a fork of it that answered once; returns their ids. */
async function parentAndFork(s: Session): Promise<{ parent: string; fork: string }> {
  s.mock.reply(textReply("Parent answer."), textReply("Fork answer."));
  await s.cmd("Tine");
  await typeAndSend(s, "main question");
  await s.waitForDisplay(1, "Parent answer.\n── end_turn");
  await typeAndSend(s, "@fork explore a tangent");
  await s.waitForDisplay(2, "Fork answer.\n── end_turn");
  return { parent: (await s.thread(1)).id, fork: (await s.thread(2)).id };
}

describe(`forks that come back (${nv.version})`, () => {
  it("a fork's banner names its exits; gD discards it; :Tine threads! shows it and <CR> restores it", async () => {
    await withNeovim(nv, async (s) => {
      const { fork } = await parentAndFork(s);
      const shown = await s.display(fork);
      assert.match(
        shown,
        /^⑂ Forked from "main question" at message 2 · gp: go to parent\n {2}ends with: gR report to it · gP promote into it · gD discard/,
      );
      await s.lua("vim.api.nvim_set_current_win(vim.fn.win_findbuf(...)[1])", (await s.thread(fork)).bufnr);
      await s.keys("gD");
      await s.until("the fork to go", async () => !(await s.threads()).some((t) => t.id === fork));
      assert.match(await lastNote(s), /main question ⑂1 was discarded/);
      assert.ok(
        !(await s.lua<string[]>("return vim.tbl_map(vim.api.nvim_buf_get_name, vim.api.nvim_list_bufs())")).some((n) =>
          n.startsWith("tine://2/"),
        ),
        "its buffers are gone",
      );
      await s.cmd("Tine threads!");
      const list = await s.lua<number>("return vim.api.nvim_get_current_buf()");
      const lines = await s.lines(list);
      const at = lines.findIndex((l) => l.includes("main question ⑂1  ○ ended"));
      assert.ok(at > 0, lines.join("\n"));
      await s.lua("vim.api.nvim_win_set_cursor(0, { ..., 0 })", at + 1);
      await s.keys("<CR>");
      await s.until("the fork back in the tree", async () => (await s.threads()).some((t) => t.id === fork && t.status === "stored"));
    });
  });

  it("promote from the list: the parent shows and continues the fork's history; its old tail is a new branch", async () => {
    await withNeovim(nv, async (s) => {
      const { parent, fork } = await parentAndFork(s);
      // The parent goes on after the fork point: that tail must not be lost.
      s.mock.reply(textReply("Parent goes on."));
      await s.lua("require('tine').open(...)", parent);
      await typeAndSend(s, "parent continues");
      await s.waitForDisplay(parent, "Parent goes on.\n── end_turn");
      await s.cmd("Tine threads");
      const list = await s.lua<number>("return vim.api.nvim_get_current_buf()");
      const lines = await s.lines(list);
      await s.lua("vim.api.nvim_win_set_cursor(0, { ..., 0 })", lines.findIndex((l) => l.includes("⑂ main question ⑂1")) + 1);
      await s.keys("gP");
      await s.until("the promote", async () => !(await s.threads()).some((t) => t.id === fork));
      const shown = await s.waitForDisplay(parent, "Fork answer.");
      assert.doesNotMatch(shown, /Parent goes on/);
      const threads = await s.threads();
      const branch = threads.find((t) => t.parent_id === parent)!;
      assert.ok(branch, "the old tail is a fork of the parent");
      assert.deepEqual(texts(await s.lua<any[]>("return require('tine').messages(...)", branch.id)), [
        "main question",
        "Parent answer.",
        "parent continues",
        "Parent goes on.",
      ]);
      s.mock.reply(textReply("Continued from the fork."));
      await s.lua("require('tine').open(...)", parent);
      await typeAndSend(s, "next");
      await s.waitForDisplay(parent, "Continued from the fork.");
      assert.deepEqual(texts(bodies(s).at(-1).messages), ["main question", "Parent answer.", "explore a tangent", "Fork answer.", "next"]);
    });
  });

  it("report: with text (Lua) it is queued at once; without (:Tine fork report) the fork is asked first; both go with the parent's next message", async () => {
    await withNeovim(nv, async (s) => {
      const { parent, fork } = await parentAndFork(s);
      s.mock.reply(textReply("Second fork answer."));
      await s.lua("require('tine').open(...)", parent);
      await typeAndSend(s, "@fork another tangent");
      await s.waitForDisplay(3, "Second fork answer.\n── end_turn");
      const second = (await s.thread(3)).id;
      await s.lua("require('tine').report(..., 'Tangent one: the cache is the bottleneck.')", fork);
      await s.waitForDisplay(
        parent,
        '📨 Report from "main question ⑂1" goes with your next message: Tangent one: the cache is the bottleneck.',
      );
      s.mock.reply(textReply("Summary: tangent two found nothing new."));
      await s.lua("require('tine').open(...)", second);
      await s.cmd("Tine fork report");
      await s.until("the second fork to report", async () => !(await s.threads()).some((t) => t.id === second));
      assert.match(texts(bodies(s).at(-1).messages).at(-1)!, /reports back to the thread it came from/);
      s.mock.reply(textReply("Thanks for both."));
      await s.lua("require('tine').open(...)", parent);
      await typeAndSend(s, "what did the forks find?");
      await s.waitForDisplay(parent, "Thanks for both.");
      const last = bodies(s)
        .at(-1)
        .messages.at(-1)
        .content.map((b: any) => b.text);
      assert.deepEqual(last, [
        '<fork-report from="main question ⑂1">\nTangent one: the cache is the bottleneck.\n</fork-report>',
        '<fork-report from="main question ⑂2">\nSummary: tangent two found nothing new.\n</fork-report>',
        "what did the forks find?",
      ]);
      assert.doesNotMatch(await s.display(parent), /📨/, "sent: no longer waiting");
    });
  });

  it("@bg runs two forks at once without windows; both report into the parent's next request", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(textReply("Parent answer."));
      await s.cmd("Tine");
      await typeAndSend(s, "main question");
      await s.waitForDisplay(1, "Parent answer.\n── end_turn");
      const parent = (await s.thread(1)).id;
      s.mock.reply(
        response([{ text: "Background A result.", holdInside: { hold: "a", afterDeltas: 1 } }]),
        response([{ text: "Background B result.", holdInside: { hold: "b", afterDeltas: 1 } }]),
      );
      const windowsBefore = await s.lua<number>("return #vim.api.nvim_list_wins()");
      await typeAndSend(s, "@bg look at A");
      await typeAndSend(s, "@bg look at B");
      await s.mock.reached("a");
      await s.mock.reached("b");
      assert.equal(await s.lua<number>("return #vim.api.nvim_list_wins()"), windowsBefore, "no window opened");
      await s.cmd("Tine threads");
      const list = await s.lua<number>("return vim.api.nvim_get_current_buf()");
      await s.until(
        "both running in the list",
        async () => (await s.lines(list)).filter((l) => l.includes("streaming (background)")).length === 2,
      );
      assert.equal(await s.lua("return require('tine').current()"), parent, "the parent stays the active thread");
      s.mock.release("b");
      s.mock.release("a");
      await s.until("both reported", async () => (await s.threads()).length === 1);
      s.mock.reply(textReply("Got both."));
      await s.lua("require('tine').open(...)", parent);
      await typeAndSend(s, "and?");
      await s.waitForDisplay(parent, "Got both.");
      const sent = bodies(s)
        .at(-1)
        .messages.at(-1)
        .content.map((b: any) => b.text)
        .join("\n");
      assert.match(sent, /<fork-report from="main question ⑂\d">\nBackground A result\.\n<\/fork-report>/);
      assert.match(sent, /<fork-report from="main question ⑂\d">\nBackground B result\.\n<\/fork-report>/);
    });
  });

  it("a fork idle past fork_idle_timeout gets the wrap-up prompt in its next request", async () => {
    await withNeovim(
      nv,
      async (s) => {
        await parentAndFork(s);
        s.mock.reply(textReply("Wrapping up: the tangent showed X."));
        await s.until("the wrap-up request", async () => s.mock.requests.length === 3, 10_000);
        const asked = texts(bodies(s)[2].messages).at(-1)!;
        assert.match(asked, /^\[tine\] This fork has been idle for 0\.01 minutes\. Wrap up/);
        await s.waitForDisplay(2, "Wrapping up: the tangent showed X.");
      },
      { setup: { fork_idle_timeout: 0.01 } },
    );
  });

  it(":Tine diff in a fork opens both branches from their common ancestor side by side, in diff mode", async () => {
    await withNeovim(nv, async (s) => {
      await parentAndFork(s);
      await s.lua("require('tine').open(...)", (await s.thread(2)).id);
      await s.cmd("Tine diff");
      const panes = await s.lua<{ name: string; diff: boolean; lines: string[] }[]>(`
        return vim.tbl_map(function(w)
          local b = vim.api.nvim_win_get_buf(w)
          return { name = vim.api.nvim_buf_get_name(b), diff = vim.wo[w].diff, lines = vim.api.nvim_buf_get_lines(b, 0, -1, false) }
        end, vim.api.nvim_tabpage_list_wins(0))`);
      assert.equal(panes.length, 2);
      assert.ok(panes.every((p) => p.diff));
      assert.deepEqual(panes[0]!.lines.slice(0, 5), [
        "main question ⑂1 · after 2 shared messages",
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
      assert.match(bodies(s)[1].messages.at(-1).content[0].content, /A fork of this thread opens when this response ends, with the topic/);
      assert.deepEqual(texts(bodies(s)[2].messages).at(-1), "try the recursive version");
      assert.equal((await s.thread(2)).parent_id, (await s.thread(1)).id);
      // Every thread is offered the same tools, so a fork's requests keep its parent's cached prefix.
      assert.deepEqual(
        bodies(s)[2].tools.map((t: any) => t.name),
        bodies(s)[0].tools.map((t: any) => t.name),
      );
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
      await s.until("the fork to end", async () => !(await s.threads()).some((t) => t.id === fork));
      await s.waitForDisplay(parent, '📨 Report from "main question ⑂1" goes with your next message: The tangent found a 2x speed-up.');
      s.mock.reply(response([{ toolUse: { id: "xf1", name: "exit_fork", input: {} } }]), textReply("Understood."));
      await s.lua("require('tine').open(...)", parent);
      await typeAndSend(s, "carry on");
      await s.waitForDisplay(parent, "Understood.");
      const sent = bodies(s)
        .at(-2)
        .messages.at(-1)
        .content.map((b: any) => b.text);
      assert.deepEqual(sent, ['<fork-report from="main question ⑂1">\nThe tangent found a 2x speed-up.\n</fork-report>', "carry on"]);
      assert.deepEqual(bodies(s).at(-1).messages.at(-1).content[0], {
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
      s.mock.reply(textReply("First answer."));
      await s.cmd("Tine");
      await typeAndSend(s, "first question");
      await s.waitForDisplay(1, "First answer.\n── end_turn");
      const source = (await s.thread(1)).id;
      const before = await s.messages(source);
      s.mock.reply(
        // The agent does something else first, then hands off.
        response([{ text: "Let me check." }, { toolUse: { id: "g1", name: "get_file", input: { path: "hello.txt" } } }]),
        response([{ toolUse: { id: "h1", name: "fork_thread", input: { prompt: "Write tests for hello.txt: it says hello." } } }]),
      );
      await typeAndSend(s, "@handoff write the tests elsewhere");
      await s.until("the new thread", async () => (await s.threads()).length === 2);
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
      s.mock.reply(textReply("Second answer."));
      await s.lua("require('tine').open(...)", source);
      await typeAndSend(s, "second question");
      await s.waitForDisplay(source, "Second answer.");
      assert.deepEqual(texts(bodies(s).at(-1).messages), ["first question", "First answer.", "second question"]);
    });
  });

  it("a background fork that needs an approval waits, shows it in the list and says so once; opened, it is an ordinary fork", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(
        textReply("Parent answer."),
        response([{ toolUse: { id: "b1", name: "bash_command", input: { command: "echo bg" } } }]),
        textReply("Background done."),
      );
      await s.cmd("Tine");
      await typeAndSend(s, "main question");
      await s.waitForDisplay(1, "Parent answer.\n── end_turn");
      await typeAndSend(s, "@bg run something");
      await s.until("the notice", async () => /\(in the background\) waits for your approval/.test(await lastNote(s)));
      await s.cmd("Tine threads");
      const list = await s.lua<number>("return vim.api.nvim_get_current_buf()");
      const line = await s
        .until("waiting in the list", async () => (await s.lines(list)).some((l) => l.includes("waiting (background)")))
        .then(async () => (await s.lines(list)).findIndex((l) => l.includes("waiting (background)")));
      await s.lua("vim.api.nvim_win_set_cursor(0, { ..., 0 })", line + 1);
      await s.keys("<CR>");
      const bg = (await s.threads())[1]!;
      await s.waitForDisplay(bg.id, "awaiting approval");
      await s.lua("vim.api.nvim_set_current_win(vim.fn.win_findbuf(...)[1])", (await s.thread(bg.id)).input_bufnr);
      await s.until("the input to know", () => s.lua<boolean>("return vim.b.tine_pending == true"));
      await s.keys("a");
      await s.waitForDisplay(bg.id, "Background done.");
      assert.equal((await s.threads()).length, 2, "opened, it no longer reports back by itself");
      assert.equal((await s.notifications()).filter((n) => /waits for your approval/.test(n.msg)).length, 1);
    });
  });

  it("each exit from each entry: discard from Lua, report from the list (gR), promote from the fork's buffer (gP)", async () => {
    await withNeovim(nv, async (s) => {
      const { parent, fork } = await parentAndFork(s);
      s.mock.reply(textReply("Second fork."), textReply("Third fork."), textReply("Summary of the second."));
      await s.lua("require('tine').open(...)", parent);
      await typeAndSend(s, "@fork two");
      await s.waitForDisplay(3, "Second fork.\n── end_turn");
      await s.lua("require('tine').open(...)", parent);
      await typeAndSend(s, "@fork three");
      await s.waitForDisplay(4, "Third fork.\n── end_turn");
      const [second, third] = [(await s.thread(3)).id, (await s.thread(4)).id];
      await s.lua("require('tine').discard(...)", fork);
      await s.until("discarded", async () => !(await s.threads()).some((t) => t.id === fork));
      await s.cmd("Tine threads");
      const list = await s.lua<number>("return vim.api.nvim_get_current_buf()");
      await s.lua(
        "vim.api.nvim_win_set_cursor(0, { ..., 0 })",
        (await s.lines(list)).findIndex((l) => l.includes("⑂ main question ⑂2")) + 1,
      );
      await s.keys("gR");
      await s.until("reported", async () => !(await s.threads()).some((t) => t.id === second));
      await s.waitForDisplay(parent, '📨 Report from "main question ⑂2" goes with your next message: Summary of the second.');
      await s.lua("require('tine').open(...)", third);
      await s.lua("vim.api.nvim_set_current_win(vim.fn.win_findbuf(...)[1])", (await s.thread(third)).bufnr);
      await s.keys("gP");
      await s.until("promoted", async () => !(await s.threads()).some((t) => t.id === third));
      await s.waitForDisplay(parent, "Third fork.");
    });
  });

  it("after a promote and a restart, the tree is the same: the old tail's forks under the new branch, the fork's under the parent", async () => {
    const cwd = projectDir();
    try {
      let ids: Record<string, string> = {};
      await withNeovim(
        nv,
        async (s) => {
          const { parent, fork } = await parentAndFork(s);
          s.mock.reply(textReply("Grandchild answer."), textReply("Parent goes on."), textReply("Late fork answer."));
          await typeAndSend(s, "@fork deeper");
          await s.waitForDisplay(3, "Grandchild answer.\n── end_turn");
          await s.lua("require('tine').open(...)", parent);
          await typeAndSend(s, "parent continues");
          await s.waitForDisplay(parent, "Parent goes on.\n── end_turn");
          await typeAndSend(s, "@fork late");
          await s.waitForDisplay(4, "Late fork answer.\n── end_turn");
          ids = { parent, fork, grandchild: (await s.thread(3)).id, late: (await s.thread(4)).id };
          await s.lua("require('tine').promote(...)", fork);
          await s.until("the promote", async () => !(await s.threads()).some((t) => t.id === fork));
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
          await s.cmd("Tine threads");
          const tree = Object.fromEntries((await s.threads()).map((t) => [t.id, t.parent_id]));
          assert.equal(tree[ids["grandchild"]!], ids["parent"], "the fork's fork follows its history into the parent");
          assert.equal(tree[ids["late"]!], ids["branch"], "the old tail's fork stays with the old tail");
          assert.equal(tree[ids["branch"]!], ids["parent"]);
          assert.ok(!(ids["fork"]! in tree), "the promoted fork has ended");
          const id = ids["parent"]!;
          s.mock.reply(textReply("Continued."));
          await s.lua("require('tine').open(...)", id);
          await typeAndSend(s, "next");
          await s.waitForDisplay(id, "Continued.");
          assert.deepEqual(texts(bodies(s).at(-1).messages), [
            "main question",
            "Parent answer.",
            "explore a tangent",
            "Fork answer.",
            "next",
          ]);
        },
        { cwd },
      );
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
