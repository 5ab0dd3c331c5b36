/**
 * Threads that last: stored as they happen, back after a restart, a crash or in another Neovim.
 * Over 300 lines: one file per feature area, each test standing alone in its own Neovim; split
 * by area, not by length.
 */
import assert from "node:assert/strict";
import { appendFileSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { SESSION_ENDED_BEFORE_TOOL_RAN } from "../../node/store/replay.ts";
import { shortNames } from "../helpers/buffer-names.ts";
import { blocks, body, exchange, resultOf, texts, typeAndSend, waitingForkOfStreamingReply } from "../helpers/chat-driver.ts";
import { oneExchange, parentAndFork } from "../helpers/fixtures.ts";
import { alive, tempProjects, withNeovim } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");

const dataDir = (cwd: string) => join(cwd, ".data", "nvim", "tine");
function transcripts(cwd: string): string[] {
  const root = join(dataDir(cwd), "projects");
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((p) =>
    readdirSync(join(root, p))
      .filter((f) => f.endsWith(".jsonl"))
      .map((f) => join(root, p, f)),
  );
}

/** The text of the block still streaming, as a transcript's `streamed` records leave it. */
function streamedOnDisk(path: string): string {
  let text = "";
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (!line.startsWith('{"t":"streamed"')) continue;
    const r = JSON.parse(line) as { at: number; text: string };
    text = text.slice(0, r.at) + r.text;
  }
  return text;
}

const project = tempProjects();

describe(`storage (${nv.version})`, () => {
  it("threads and forks come back after quitting Neovim: tree, titles, histories; a send carries the full history", async () => {
    const cwd = project();
    let rootId = "";
    let forkId = "";
    await withNeovim(
      nv,
      async (s) => {
        rootId = await oneExchange(s, "plan the refactor\nwith details", "First answer.");
        await s.waitForStatus(1, "idle");
        await exchange(s, 2, "@fork try another way", "Fork answer.", { waitFor: "Fork answer." });
        forkId = (await s.thread(2)).id;
        assert.equal((await s.thread(1)).title, "plan the refactor", "titled from the first line of the first message");
      },
      { cwd },
    );
    // Its lock went with its host, which exited after Neovim (withNeovim waits for it).
    assert.equal(transcripts(cwd).length, 2);
    for (const f of transcripts(cwd)) {
      assert.equal(statSync(f).mode & 0o777, 0o600);
      assert.ok(!readFileSync(f, "utf8").includes("test-key"), "the API key never reaches a stored file");
    }
    assert.equal(statSync(join(dataDir(cwd), "projects")).mode & 0o777, 0o700);

    await withNeovim(
      nv,
      async (s) => {
        await s.openList();
        const lines = await s.listLines();
        // A stored thread's figures show without loading it: its own tokens, and its subtree's.
        assert.match(lines[0]!, /^ {2}#1 {2}plan the refactor {2}○ stored · 2 msgs · 30 tok \$\S+ · Σ 60 tok \$\S+ · \d\d:\d\d$/);
        assert.match(lines[1]!, /^ {2}#2 {4}⑂ try another way {2}○ stored · 4 msgs/);
        const threads = await s.threads();
        assert.deepEqual(
          threads.map((t) => [t.id, t.status, t.parent_id]),
          [
            [rootId, "stored", null],
            [forkId, "stored", rootId],
          ],
        );
        // Opening the fork from the list loads it with its whole history and the parent's prefix.
        await s.onListLine(2, "<CR>");
        await s.waitForDisplay(forkId, /^⑂ Forked from "plan the refactor" at Claude's reply "/);
        const shown = await s.waitForDisplay(forkId, "Fork answer.");
        assert.match(
          shown,
          /## You\nplan the refactor\nwith details\n\n## Claude\nFirst answer\.[\s\S]*## You\ntry another way\n\n## Claude\nFork answer\./,
        );
        assert.equal((await s.thread(forkId)).status, "idle");
        assert.equal((await s.thread(rootId)).status, "stored", "its parent is not loaded");
        await exchange(s, forkId, "and then?", "Continued.", { waitFor: "Continued." });
        assert.deepEqual(texts(body(s, 0).messages), [
          "plan the refactor\nwith details",
          "First answer.",
          "try another way",
          "Fork answer.",
          "and then?",
        ]);
      },
      { cwd },
    );
  });

  it("SIGKILL of the host mid-stream: after :Tine restart the reply is there as far as it had arrived, marked interrupted; the next send is valid", async () => {
    await withNeovim(nv, async (s) => {
      // One long text block, cut after all of this had arrived.
      const arrived = "A reply that is one long text block. ".repeat(40);
      s.mock.reply(
        response([
          { text: "Finished block." },
          { toolUse: { id: "t1", name: "get_file", input: { path: "hello.txt" } } },
          { text: `${arrived}never arrived`, chunk: 8, holdInside: { hold: "h", afterDeltas: arrived.length / 8 } },
        ]),
      );
      await s.cmd("Tine");
      await typeAndSend(s, "go");
      await s.mock.reached("h");
      await s.waitForDisplay(1, arrived.trimEnd());
      const id = (await s.thread(1)).id;
      // Streamed text is written now and then (about once a second), not per delta: wait for it on disk.
      await s.until("the streamed text on disk", async () => streamedOnDisk(transcripts(s.cwd)[0]!) === arrived);
      process.kill(await s.hostPid(), "SIGKILL");
      await s.until("the host's death to be noticed", async () => !(await s.lua<boolean>("return require('tine.host').running()")));
      await s.cmd("Tine restart");
      const shown = await s.waitForDisplay(id, "── interrupted (the session ended): the reply stops here");
      assert.ok(shown.includes(arrived.trimEnd()), "the text that had arrived is kept");
      assert.doesNotMatch(shown, /never arrived/);
      assert.deepEqual(texts(await s.messages(id)), ["go", `Finished block.|tool_use|${arrived}`, "tool_result"]);
      assert.equal(resultOf(blocks((await s.messages(id))[2])[0]), SESSION_ENDED_BEFORE_TOOL_RAN);
      await exchange(s, id, "continue", "Back again.", { waitFor: "Back again." });
      // The prompt joins the user message that answers the tool call.
      assert.deepEqual(texts(body(s, -1).messages), ["go", `Finished block.|tool_use|${arrived}`, "tool_result|continue"]);
      s.mock.release("h");
    });
  });

  it("kill -9 of Neovim while tools wait: the finished tool's result is kept, the other answered as never run", async () => {
    const cwd = project();
    let id = "";
    await withNeovim(
      nv,
      async (s) => {
        s.mock.reply(
          response([
            { toolUse: { id: "r1", name: "get_file", input: { path: "hello.txt" } } },
            { toolUse: { id: "b1", name: "bash_command", input: { command: "echo never" } } },
          ]),
        );
        await s.cmd("Tine");
        await typeAndSend(s, "read and run");
        await s.waitForDisplay(1, "awaiting approval");
        id = (await s.thread(1)).id;
        await s.waitForDisplay(1, "✓ done");
        const hostPid = await s.hostPid();
        await s.killNeovim();
        // Its host sees its input end and exits; until then it still holds the thread's lock.
        await s.until("the host to exit", async () => !alive(hostPid));
      },
      { cwd },
    );
    await withNeovim(
      nv,
      async (s) => {
        await s.open(id);
        await s.waitForDisplay(id, "read and run");
        const last = (await s.messages(id)).at(-1);
        assert.deepEqual(blocks(last), [
          { type: "tool_result", tool_use_id: "r1", content: "hello from a fixture\n" },
          { type: "tool_result", tool_use_id: "b1", content: SESSION_ENDED_BEFORE_TOOL_RAN, is_error: true },
        ]);
        await exchange(s, id, "go on", "Resumed.", { waitFor: "Resumed." });
      },
      { cwd },
    );
  });

  it("a second Neovim on the same project opens a thread the first is writing read-only, and can fork it", async () => {
    const cwd = project();
    await withNeovim(
      nv,
      async (first) => {
        const id = await oneExchange(first, "hello from one", "Written by the first.");
        const firstPid = await first.hostPid();
        await withNeovim(
          nv,
          async (second) => {
            await second.openList();
            assert.equal((await second.thread(id)).status, "stored");
            await second.open(id);
            await second.waitForDisplay(id, `Open for writing in another Neovim (pid ${firstPid})`);
            assert.equal((await second.thread(id)).status, "busy");
            assert.match(await second.lastNotification(), new RegExp(`pid ${firstPid}\\): it is read-only here`));
            // A send is refused with the reason and the text stays in the input.
            await typeAndSend(second, "may I?");
            assert.match(await second.lastNotification(), /read-only here; fork it to continue/);
            assert.deepEqual(await second.lines((await second.thread(id)).input_bufnr!), ["may I?"]);
            await second.openList();
            await second.listLine(`busy (pid ${firstPid})`);
            // Forking is allowed: the fork has its own file.
            second.mock.reply(textReply("Forked in two."));
            const fork = await second.lua<string>("return require('tine').fork(..., 'my own branch')", id);
            await second.waitForDisplay(fork, "Forked in two.");
            assert.deepEqual(texts(body(second, 0).messages), ["hello from one", "Written by the first.", "my own branch"]);
          },
          { cwd },
        );
      },
      { cwd },
    );
  });

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

  it("a corrupt transcript is reported in the list and by :checkhealth; the other threads load", async () => {
    const cwd = project();
    await withNeovim(
      nv,
      async (s) => {
        await oneExchange(s, "good thread", "Good answer.");
        await s.cmd("Tine new");
        await exchange(s, 2, "damaged thread", "Other answer.");
      },
      { cwd },
    );
    const [a, b] = transcripts(cwd).sort((x, y) => statSync(x).birthtimeMs - statSync(y).birthtimeMs);
    const damaged = readFileSync(b!, "utf8").includes("damaged thread") ? b! : a!;
    const lines = readFileSync(damaged, "utf8").split("\n");
    lines.splice(1, 0, "{this is not json");
    writeFileSync(damaged, lines.join("\n"));
    writeFileSync(join(damaged, "..", "00000000-0000-4000-8000-00000000dead.jsonl"), "garbage\n");
    appendFileSync(damaged, ""); // keep the mode
    await withNeovim(
      nv,
      async (s) => {
        await s.openList();
        const shown = await s.listText();
        assert.match(shown, /good thread {2}○ stored · 2 msgs/);
        assert.match(shown, /damaged thread {2}○ stored · 2 msgs · 30 tok \$\S+ · \S+ · ⚠ 1 unreadable line\(s\)/);
        assert.match(shown, /⚠ unreadable transcript .*00000000dead\.jsonl: not JSON/);
        const health = await s.health();
        assert.match(health, /damaged thread .*line 2: not JSON/);
        assert.match(health, /00000000dead\.jsonl: not JSON/);
        const id = (await s.threads()).find((t) => t.title === "damaged thread")!.id;
        await s.open(id);
        await s.waitForDisplay(id, "Other answer.");
        await s.notified(/damaged thread: some of its transcript could not be read and was skipped \(line 2/);
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

  it("a rejected init changes nothing: the open thread goes on being stored", async () => {
    const cwd = project();
    let id = "";
    await withNeovim(
      nv,
      async (s) => {
        id = await oneExchange(s, "before", "Stored before.");
        const refused = await s.lua<string>(`
          local ok, e = pcall(require("tine.host").request, "init", { bogus = 1 })
          return ok and "accepted" or e`);
        assert.match(refused, /^tine: config/);
        await exchange(s, id, "after", "Stored after.", { waitFor: "Stored after." });
      },
      { cwd },
    );
    await withNeovim(
      nv,
      async (s) => {
        await s.open(id);
        assert.deepEqual(texts(await s.messages(id)), ["before", "Stored before.", "after", "Stored after."]);
      },
      { cwd },
    );
  });

  it("persist = false writes nothing", async () => {
    const cwd = project();
    await withNeovim(
      nv,
      async (s) => {
        await oneExchange(s, "not kept", "Ephemeral.");
        await typeAndSend(s, "@fork");
        await s.waitForThreadCount(2, "the fork");
      },
      { cwd, setup: { persist: false } },
    );
    assert.equal(existsSync(dataDir(cwd)), false);
  });
});
