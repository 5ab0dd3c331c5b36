/**
 * What a thread is after `:Tine restart` or a new Neovim, as it was before: unsent text of a
 * thread with no message stays its own, a failed turn can be sent again, a tool cut while it ran is
 * told to the model as such, a thread cut by a quit offers to go on, the list keeps its last
 * activity; and `@handoff` that did not happen says so and leaves a transcript that loads whole;
 * `:Tine ask` goes to the thread the user last sent in. Each test stands alone in its own Neovim.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { SESSION_ENDED_WHILE_TOOL_RAN } from "../../node/store/replay.ts";
import { body, exchange, resultOf, sentBlocks, texts, typeAndSend } from "../helpers/chat-driver.ts";
import { oneExchange } from "../helpers/fixtures.ts";
import { gitProject } from "../helpers/git-project.ts";
import { type Session, tempProjects, withNeovim } from "../helpers/neovim.ts";
import { windowRows } from "../helpers/screen.ts";
import { transcript } from "../helpers/transcripts.ts";
import { response, textReply } from "../mock-anthropic/script.ts";
import { errorReply } from "../mock-anthropic/server.ts";

const nv = inject("nvim");
const project = tempProjects();

/** A window's rows as one line of text: what wrapped there reads on. */
const shown = (rows: string[]) => rows.join(" ").replace(/\s+/g, " ");

/** From now on vim.fn.confirm answers `n`. */
const answerConfirm = (s: Session, n: number) => s.lua("local n = ...; vim.fn.confirm = function() return n end", n);

describe(`restart: drafts of threads with no message (${nv.version})`, () => {
  it("text typed in a :Tine new thread stays in a thread of its own after :Tine restart, and another thread's draft stays its own", async () => {
    await withNeovim(nv, async (s) => {
      const first = await oneExchange(s, "first", "First answer.");
      await s.setLines((await s.thread(first)).input_bufnr!, ["draft of the first"]);
      await s.cmd("Tine new");
      await s.until("the new thread's input", async () => (await s.threads()).length === 2);
      await s.setLines((await s.thread(2)).input_bufnr!, ["orphan two"]);
      await s.cmd("Tine restart");
      await s.until("an input shown", async () => s.lua<boolean>("return vim.api.nvim_buf_get_name(0):match(' %[input%]$') ~= nil"));
      assert.deepEqual(await s.lines(0), ["orphan two"], "the sidebar shows the thread the text was typed in");
      const shown = await s.lua<string>("return vim.b.tine_thread");
      assert.notEqual(shown, first, "not the other thread");
      await s.open(first);
      assert.deepEqual(await s.lines((await s.thread(first)).input_bufnr!), ["draft of the first"]);
    });
  });
});

describe(`restart: a failed turn (${nv.version})`, () => {
  it("comes back failed: the error line is shown and :Tine retry sends it again", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(errorReply(400, "invalid_request_error", "prompt is too long"), textReply("Works again."));
      await s.cmd("Tine");
      const id = (await s.thread(1)).id;
      await typeAndSend(s, "this will fail");
      await s.waitForDisplay(id, "prompt is too long");
      await s.cmd("Tine restart");
      await s.waitForDisplay(id, /⚠ Error: .*prompt is too long/);
      assert.equal((await s.thread(id)).status, "error");
      await s.cmd("Tine retry");
      await s.waitForDisplay(id, "Works again.");
      assert.deepEqual(texts(body(s, -1).messages), ["this will fail"]);
    });
  });
});

describe(`restart: a tool cut while it ran (${nv.version})`, () => {
  it("is answered to the model as cut off while it ran, not as never run", async () => {
    await withNeovim(
      nv,
      async (s) => {
        s.mock.reply(response([{ toolUse: { id: "b1", name: "bash_command", input: { command: "touch ran.marker; sleep 30" } } }]));
        await s.cmd("Tine");
        const id = (await s.thread(1)).id;
        await typeAndSend(s, "run it");
        await s.until("the command ran", async () => existsSync(join(s.cwd, "ran.marker")));
        await answerConfirm(s, 1);
        await s.cmd("Tine restart");
        await s.until("the thread back", async () => (await s.thread(id)).input_bufnr !== null);
        s.mock.reply(textReply("Noted."));
        await s.focus((await s.thread(id)).input_bufnr!);
        await typeAndSend(s, "what happened?");
        await s.waitForDisplay(id, "Noted.");
        assert.equal(resultOf(sentBlocks(s, -1, -1)[0]), SESSION_ENDED_WHILE_TOOL_RAN);
      },
      { setup: { tools_needing_approval: [] } },
    );
  });
});

describe(`restart: a thread cut off by a quit (${nv.version})`, () => {
  it(":Tine in the next Neovim reopens it with a line that offers to go on (keys typed at once are not eaten); R there goes on; the list shows its last activity", async () => {
    const cwd = project();
    let id = "";
    await withNeovim(
      nv,
      async (s) => {
        id = await oneExchange(s, "alpha", "Alpha answer.");
        s.mock.reply(response([{ text: "Streaming on", holdInside: { hold: "h", afterDeltas: 1 } }]));
        await typeAndSend(s, "go on streaming");
        await s.mock.reached("h");
        await s.until("Neovim told", async () => s.lua<boolean>("return #require('tine.quit').working() == 1"));
        await answerConfirm(s, 1);
        await s.cmd("qa").catch(() => {});
        await s.waitForExit();
      },
      { cwd },
    );
    // The host wrote what the quit cut as it exited, after Neovim (withNeovim waits for it).
    await withNeovim(
      nv,
      async (s) => {
        // A screen, as a user has: a dialog would wait there for keys.
        await s.nvim.uiAttach(100, 30, { ext_linegrid: true });
        s.mock.reply(textReply("Going on from there."));
        await s.cmd("Tine");
        // Typed as the thread opens (as typeahead, as a user's keys arrive): nothing asks, so the
        // keys go where they were typed.
        await s.nvim.input("idraft typed at once<Esc>");
        const t = await s.thread(id);
        let draft: string[] = [];
        await s
          .until("the keys typed into the input", async () => {
            draft = await s.lines(t.input_bufnr!);
            return draft.join("") === "draft typed at once" && (await s.lua<string>("return vim.fn.mode()")) === "n";
          })
          .catch((e: Error) => {
            throw new Error(`${e.message}: the input holds ${JSON.stringify(draft)}`);
          });
        const offer = /⏸ tine stopped and cut this turn off: R goes on with it[ ·]+or write your next message/;
        await s.until("the offer under the display's end", async () => offer.test(shown(await windowRows(s, t.bufnr!))));
        assert.equal(s.mock.requests.length, 0, "nothing sent before R");
        await s.focus(t.bufnr!);
        await s.keys("R");
        await s.waitForDisplay(id, "Going on from there.");
        assert.match(JSON.stringify(body(s, 0).messages.at(-1)), /cut your turn off\. Go on from where you stopped/);
        await s.until("the offer gone", async () => !offer.test(shown(await windowRows(s, t.bufnr!))));
        assert.deepEqual(await s.lines(t.input_bufnr!), ["draft typed at once"], "the draft stays");
        assert.notEqual((await s.thread(id)).updated, null, "its last activity is known");
      },
      { cwd },
    );
  });

  it("the thread :Tine restart reopens keeps its last activity in the list", async () => {
    await withNeovim(nv, async (s) => {
      const id = await oneExchange(s, "alpha", "Alpha answer.");
      await s.cmd("Tine restart");
      await s.until("the thread back", async () => (await s.thread(id)).input_bufnr !== null);
      assert.notEqual((await s.thread(id)).updated, null);
      await s.openList();
      assert.match((await s.listLines()).find((l) => l.includes("alpha"))!, /\d\d:\d\d/);
    });
  });
});

describe(`@handoff that does not happen (${nv.version})`, () => {
  it("says why, and the transcript loads whole after a restart (no snapshot record of the rolled-back turn)", async () => {
    const cwd = project();
    gitProject(cwd, { "hello.txt": "hello\n" });
    await withNeovim(
      nv,
      async (s) => {
        const id = await oneExchange(s, "first question", "First answer.");
        s.mock.reply(
          response([{ toolUse: { id: "g1", name: "get_file", input: { path: "hello.txt" } } }]),
          textReply("I read it instead."),
        );
        await typeAndSend(s, "@handoff write the tests elsewhere");
        const note = await s.notified(/was not handed off/);
        assert.match(note, /the model ran get_file instead and ended its turn without calling fork_thread/);
        await s.waitForStatus(id, "idle");
        // Snapshots are taken one at a time: once this turn's are on disk, the hand-off turn's were answered.
        s.mock.reply(response([{ toolUse: { id: "g2", name: "get_file", input: { path: "hello.txt" } } }]), textReply("Read again."));
        await typeAndSend(s, "read it");
        await s.waitForDisplay(id, "Read again.");
        await s.until("the turn's end snapshot on disk", async () => /"t":"code"[^\n]*"from"[^\n]*\n$/.test(transcript(cwd, id)));
        // Every code record describes a message the history holds where it stands.
        let messages = 0;
        for (const line of transcript(cwd, id).trim().split("\n").slice(1)) {
          const r = JSON.parse(line) as { t: string; n?: number; at?: number };
          if (r.t === "append") messages++;
          if (r.t === "truncate") messages = r.n!;
          if (r.t === "code") assert.ok(r.at! <= messages, `a code snapshot at ${r.at} of ${messages} messages`);
        }
        await s.cmd("Tine restart");
        await s.waitForDisplay(id, "Read again.");
        assert.ok(!(await s.notifications()).some((n) => /could not be read/.test(n.msg)));
      },
      { cwd },
    );
  });
});

describe(`:Tine ask (${nv.version})`, () => {
  it("goes to the thread the user last sent in, not the fork opened last", async () => {
    await withNeovim(nv, async (s) => {
      const alpha = await oneExchange(s, "alpha", "Alpha answer.");
      s.mock.reply(textReply("Fork answer."));
      await typeAndSend(s, "@fork look elsewhere");
      await s.waitForThreadCount(2, "the fork");
      const fork = (await s.threads()).find((t) => t.id !== alpha)!;
      await s.waitForDisplay(fork.id, "Fork answer.");
      await s.focus((await s.thread(alpha)).input_bufnr!);
      await exchange(s, alpha, "back in alpha", "Alpha again.", { waitFor: "Alpha again." });
      await s.cmd("topleft split hello.txt");
      s.mock.reply(textReply("About hello."));
      await s.cmd("Tine ask what is this file?");
      await s.waitForDisplay(alpha, "About hello.");
      assert.equal((await s.messages(fork.id)).length, 4, "the fork got nothing more");
    });
  });
});
