/**
 * Tool calls in the chat, in real Neovim against the HTTP mock: approving and denying, tools that
 * run at once and answer together, edit_file's diff, web search blocks and the turn the server
 * pauses while it searches. Each test stands alone in its own Neovim.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { body, openSidebar, resultOf, sentBlocks, typeAndSend } from "../helpers/chat-driver.ts";
import { withNeovim } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");

describe(`chat (${nv.version})`, () => {
  it("bash_command waits for approval; `a` runs it and the result goes back", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(
        response([{ text: "Listing." }, { toolUse: { id: "t1", name: "bash_command", input: { command: "cat hello.txt" } } }]),
        textReply("Done listing."),
      );
      const t = await openSidebar(s);
      await typeAndSend(s, "list");
      const shown = await s.waitForDisplay(t.id, "awaiting approval");
      assert.match(shown, /🔧 bash_command: \$ cat hello.txt\n {3}⏳ awaiting approval/);
      assert.equal((await s.threads())[0]!.status, "waiting");
      assert.equal(s.mock.requests.length, 1, "nothing runs before approval");
      await s.onDisplayLine(t.id, "🔧 bash_command: $ cat hello.txt", "a");
      await s.waitForDisplay(t.id, "Done listing.");
      const result = sentBlocks(s, 1, 2)[0]!;
      assert.equal(result.type, "tool_result");
      assert.equal(result.tool_use_id, "t1");
      assert.equal(result.content, "hello from a fixture\n");
    });
  });

  it("denying a tool sends an error result", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(
        response([{ toolUse: { id: "t1", name: "bash_command", input: { command: "rm -rf /tmp/nothing" } } }]),
        textReply("Understood."),
      );
      const t = await openSidebar(s);
      await typeAndSend(s, "clean");
      await s.waitForDisplay(t.id, "awaiting approval");
      await s.lua(`vim.cmd("wincmd k")`);
      await s.keys("d");
      await s.waitForDisplay(t.id, "Understood.");
      assert.deepEqual(sentBlocks(s, 1, 2)[0], {
        type: "tool_result",
        tool_use_id: "t1",
        content: "The user denied this tool call.",
        is_error: true,
        cache_control: { type: "ephemeral" },
      });
    });
  });

  it("tools needing no approval run concurrently and answer in one user message", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(
        response([
          { toolUse: { id: "a", name: "get_file", input: { path: "hello.txt" } } },
          { toolUse: { id: "b", name: "list_directory", input: { path: "." } } },
        ]),
        textReply("Both read."),
      );
      const t = await openSidebar(s);
      await typeAndSend(s, "read");
      await s.waitForDisplay(t.id, "Both read.");
      const content = sentBlocks(s, 1, 2);
      assert.deepEqual(
        content.map((b) => ("tool_use_id" in b ? b.tool_use_id : undefined)),
        ["a", "b"],
      );
      assert.equal(resultOf(content[0]), "hello from a fixture\n");
      assert.match(resultOf(content[1]) as string, /hello\.txt/);
    });
  });

  it("edit_file shows a diff and edits the file once approved", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(
        response([{ toolUse: { id: "e1", name: "edit_file", input: { path: "hello.txt", find: "hello", replace: "goodbye" } } }]),
        textReply("Edited."),
      );
      const t = await openSidebar(s);
      await typeAndSend(s, "edit");
      const shown = await s.waitForDisplay(t.id, "awaiting approval");
      assert.match(shown, /🔧 edit_file: hello.txt\n```diff\n- hello\n\+ goodbye\n```/);
      await s.lua(`vim.cmd("wincmd k")`);
      await s.keys("a");
      await s.waitForDisplay(t.id, "Edited.");
      assert.equal(readFileSync(join(s.cwd, "hello.txt"), "utf8"), "goodbye from a fixture\n");
    });
  });

  it("web search blocks are shown and sent back as a pair", async () => {
    await withNeovim(
      nv,
      async (s) => {
        s.mock.reply(
          response([
            { serverToolUse: { id: "s1", query: "neovim" } },
            { searchResult: { toolUseId: "s1", title: "Neovim", url: "https://neovim.io" } },
            { text: "Found." },
          ]),
          textReply("ok"),
        );
        const t = await openSidebar(s);
        await typeAndSend(s, "search");
        await s.waitForDisplay(t.id, '🔎 web_search: "neovim"\n   → 1 result\nFound.');
        await typeAndSend(s, "thanks");
        await s.waitForDisplay(t.id, "ok");
        assert.ok(body(s, 0).tools!.some((tool) => tool.type === "web_search_20250305"));
        assert.deepEqual(
          sentBlocks(s, 1, 1).map((b) => b.type),
          ["server_tool_use", "web_search_tool_result", "text"],
        );
      },
      { setup: { web_search: true } },
    );
  });

  it("a turn paused by the server continues by itself and shows as one reply", async () => {
    await withNeovim(
      nv,
      async (s) => {
        s.mock.reply(
          response([{ text: "Looking it up." }, { serverToolUse: { id: "s1", query: "neovim" } }], {
            stopReason: "pause_turn",
            usage: { input_tokens: 100, output_tokens: 7 },
          }),
          response([{ searchResult: { toolUseId: "s1", title: "Neovim", url: "https://neovim.io" } }, { text: "Found it." }], {
            usage: { input_tokens: 120, output_tokens: 5 },
          }),
        );
        const t = await openSidebar(s);
        await typeAndSend(s, "search");
        const shown = await s.waitForDisplay(t.id, "── end_turn");
        assert.match(
          shown,
          /## Claude\nLooking it up\.\n🔎 web_search: "neovim"\n {3}→ 1 result\nFound it\.\n── end_turn · in 220 · out 12/,
        );
        assert.equal(shown.match(/## Claude/g)!.length, 1, "one reply, not two");
        assert.equal(body(s, 1).messages.at(-1)!.role, "assistant", "the paused turn is sent back last");
      },
      { setup: { web_search: true } },
    );
  });
});
