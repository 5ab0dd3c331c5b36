/**
 * Forks the agent drives with its tools: enter_fork with a topic and its limits, report_updates and
 * exit_fork, and hand-offs (@handoff, fork_thread) to a thread of its own. Each test stands alone in
 * its own Neovim.
 */
import assert from "node:assert/strict";
import { describe, inject, it } from "vitest";
import { body, exchange, resultOf, sentBlocks, textOf, texts, typeAndSend } from "../helpers/chat-driver.ts";
import { oneExchange, parentAndFork } from "../helpers/fixtures.ts";
import { withNeovim, withProject } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");

describe(`forks that come back (${nv.version})`, () => {
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
});
