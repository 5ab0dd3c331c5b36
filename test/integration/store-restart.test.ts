/**
 * Threads that last: stored as they happen and back after quitting Neovim, a SIGKILL of the host
 * or a kill -9 of Neovim; a second Neovim reads them read-only; a corrupt transcript, a rejected
 * init and persist = false. Each test stands alone in its own Neovim.
 */
import assert from "node:assert/strict";
import { appendFileSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { SESSION_ENDED_BEFORE_TOOL_RAN } from "../../node/store/replay.ts";
import { blocks, body, exchange, resultOf, texts, typeAndSend } from "../helpers/chat-driver.ts";
import { oneExchange } from "../helpers/fixtures.ts";
import { alive, tempProjects, withNeovim } from "../helpers/neovim.ts";
import { dataDir, transcripts } from "../helpers/transcripts.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");

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
