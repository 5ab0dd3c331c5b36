/**
 * The store against what it cannot trust: a damaged index, a tool input nested too deep for the
 * host's recursion, and another Neovim on the same project (its numbers, its locks, its exit).
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { blocks, body, exchange, resultOf, texts, typeAndSend } from "../helpers/chat-driver.ts";
import { oneExchange } from "../helpers/fixtures.ts";
import { alive, tempProjects, withNeovim } from "../helpers/neovim.ts";
import { response, type Step } from "../mock-anthropic/script.ts";

const nv = inject("nvim");

/** The one project folder of the store under `cwd`. */
function storeDir(cwd: string): string {
  const root = join(cwd, ".data", "nvim", "tine", "projects");
  const [only] = readdirSync(root);
  return join(root, only!);
}

const project = tempProjects();

describe(`files and instances the store cannot trust (${nv.version})`, () => {
  it("an index entry of the wrong shape is rebuilt: the list still shows the project's threads", async () => {
    const cwd = project();
    await withNeovim(
      nv,
      async (s) => {
        await oneExchange(s, "kept thread", "Kept answer.");
        await s.openList();
      },
      { cwd },
    );
    const index = join(storeDir(cwd), "index.json");
    const parsed = JSON.parse(readFileSync(index, "utf8"));
    for (const entry of Object.values(parsed.files) as { summary: unknown }[]) entry.summary = { title: { bad: true } };
    writeFileSync(index, JSON.stringify(parsed));
    await withNeovim(
      nv,
      async (s) => {
        await s.openList();
        await s.listLine("kept thread  ○ stored · 2 msgs");
        assert.ok(!(await s.notifications()).some((n) => /could not list/.test(n.msg)));
        assert.ok(!(await s.listText()).includes("[object Object]"));
      },
      { cwd },
    );
  });

  it("a tool call nested thousands of levels deep is answered as refused; the thread stays usable and stored", async () => {
    const cwd = project();
    await withNeovim(
      nv,
      async (s) => {
        const deep = `{"path":${"[".repeat(6000)}${"]".repeat(6000)}}`;
        const ev = (event: Record<string, unknown>): Step => ({ event });
        s.mock.reply(
          response(
            [
              { text: "Reading." },
              {
                steps: [
                  ev({
                    type: "content_block_start",
                    index: 1,
                    content_block: { type: "tool_use", id: "deep1", name: "get_file", input: {} },
                  }),
                  ev({ type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: deep } }),
                  ev({ type: "content_block_stop", index: 1 }),
                ],
              },
            ],
            { stopReason: "tool_use" },
          ),
        );
        await s.cmd("Tine");
        await typeAndSend(s, "read it");
        await s.waitForDisplay(1, "nested more than 64 levels deep");
        await s.waitForStatus(1, "idle");
        assert.equal(s.mock.requests.length, 1, "nothing is sent on the model's behalf");
        await exchange(s, 1, "go on", "Flatter next time.");
        const sent = body(s, 1).messages;
        assert.deepEqual(texts(sent), ["read it", "Reading.|tool_use", "tool_result|go on"]);
        assert.match(String(resultOf(blocks(sent[2])[0])), /input was refused \(nested more than 64 levels deep\); it did not run/);
        const file = readdirSync(storeDir(cwd)).find((f) => f.endsWith(".jsonl"))!;
        assert.match(readFileSync(join(storeDir(cwd), file), "utf8"), /Flatter next time\./);
      },
      { cwd },
    );
  });

  it("two Neovims on one project give their new threads different numbers, before either is written", async () => {
    const cwd = project();
    await withNeovim(
      nv,
      async (first) => {
        await first.cmd("Tine");
        assert.equal((await first.threads())[0]!.num, 1);
        await withNeovim(
          nv,
          async (second) => {
            await second.cmd("Tine");
            assert.equal((await second.threads())[0]!.num, 2, "the first's thread 1 is not on disk yet, yet 1 is taken");
            await second.cmd("Tine new");
            // Thread 2, empty and left, leaves the list; its number is not given again.
            assert.deepEqual(
              (await second.threads()).map((t) => t.num),
              [3],
            );
          },
          { cwd },
        );
        await first.cmd("Tine new");
        assert.deepEqual(
          (await first.threads()).map((t) => t.num),
          [4],
        );
      },
      { cwd },
    );
  });

  it("another Neovim's thread is busy in the list before it is opened, cannot be renamed here, and is taken over once that Neovim quits", async () => {
    const cwd = project();
    await withNeovim(
      nv,
      async (second) => {
        let id = "";
        let firstPid = 0;
        await withNeovim(
          nv,
          async (first) => {
            id = await oneExchange(first, "hello from one", "Written by the first.");
            firstPid = await first.hostPid();
            await second.openList();
            await second.listLine(`hello from one  🔒 busy (pid ${firstPid})`);
            await second.open(id);
            await second.waitForDisplay(id, `Open for writing in another Neovim (pid ${firstPid})`);
            const [ok, why] = await second.lua<[boolean, string]>("return { pcall(require('tine').rename, ...) }", id, "Mine now");
            assert.equal(ok, false);
            assert.match(
              why,
              new RegExp(`hello from one is open for writing in another Neovim \\(pid ${firstPid}\\): it cannot be renamed here`),
            );
            assert.equal((await second.thread(id)).title, "hello from one");
            // The first goes on writing after the second read it.
            await exchange(first, id, "one more", "Later answer of the first.");
          },
          { cwd },
        );
        await second.until("the first Neovim's host to exit", async () => !alive(firstPid));
        // The input still has the focus: the next send takes the thread over, with what the first wrote last.
        await exchange(second, id, "my turn", "Now written here.");
        assert.deepEqual(texts(body(second, 0).messages), [
          "hello from one",
          "Written by the first.",
          "one more",
          "Later answer of the first.",
          "my turn",
        ]);
        assert.equal((await second.thread(id)).status, "idle");
        await second.lua("require('tine').rename(...)", id, "Mine now");
        const file = join(storeDir(cwd), `${id}.jsonl`);
        await second.until("the reply, then the rename, on disk", async () =>
          /Now written here\.[\s\S]*\{"t":"title","title":"Mine now"\}/.test(readFileSync(file, "utf8")),
        );
      },
      { cwd },
    );
  });
});
