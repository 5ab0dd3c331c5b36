/**
 * When the API or the connection fails in daily use: R sends again, a 503 retried with a countdown,
 * a refused connection, a stalled stream, a block of an unknown type; the thread goes on after
 * each. Each test stands alone in its own Neovim.
 */
import assert from "node:assert/strict";
import { readFileSync, statSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { describe, inject, it } from "vitest";
import { bodies, sentBlocks, textOf, typeAndSend } from "../helpers/chat-driver.ts";
import { withNeovim } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";
import { errorReply } from "../mock-anthropic/server.ts";

const nv = inject("nvim");

describe(`daily use (${nv.version})`, () => {
  it("R (and :Tine retry) sends the failed turn again, as it was", async () => {
    await withNeovim(nv, async (s) => {
      // The server says not to retry: tine does not try again by itself, the user does.
      const lasting = errorReply(500, "api_error", "internal", { "x-should-retry": "false" });
      s.mock.reply(lasting, lasting, textReply("Third time lucky."));
      await s.cmd("Tine");
      await typeAndSend(s, "hello");
      await s.waitForDisplay(1, "⚠ Error:");
      await s.cmd("Tine retry");
      await s.until("the second failure", async () => s.mock.requests.length === 2 && (await s.thread(1)).status === "error");
      await s.onDisplayLine(1, "⚠ Error:", "R");
      await s.waitForDisplay(1, "Third time lucky.");
      for (const b of bodies(s))
        assert.deepEqual(b.messages, [{ role: "user", content: [{ type: "text", text: "hello", cache_control: { type: "ephemeral" } }] }]);
    });
  });

  it("a transient 503 is tried again by itself: the thread shows what failed and when it tries again, then the reply", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(errorReply(503, "api_error", "Service unavailable", { "retry-after": "2" }), textReply("Back again."));
      await s.cmd("Tine");
      await typeAndSend(s, "hello");
      const host = new URL(s.mock.url).host;
      await s.waitForDisplay(
        1,
        new RegExp(
          `↻ ${host.replace(/\./g, "\\.")} answered HTTP 503 api_error: Service unavailable.*\n  trying again in [0-2] s \\(attempt 2\\) · <C-c> aborts`,
        ),
      );
      await s.waitForDisplay(1, "Back again.\n── end_turn");
      assert.ok(!(await s.display(1)).includes("⚠ Error"));
      assert.equal(s.mock.requests.length, 2);
    });
  });

  it("a refused connection says where and why, and the log (readable by the user alone) holds the error with its stack", async () => {
    // A port nothing listens on: taken from the system, then let go.
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as AddressInfo).port;
    await new Promise((r) => server.close(r));
    await withNeovim(
      nv,
      async (s) => {
        await s.cmd("Tine");
        await typeAndSend(s, "anyone there?");
        const shown = await s.waitForDisplay(1, "⚠ Error:");
        assert.ok(shown.includes(`⚠ Error: could not reach 127.0.0.1:${port}: the connection was refused (is the server running?)`), shown);
        const log = await s.lua<string>("return require('tine.host').log_path()");
        await s.until("the log", async () =>
          new RegExp(`request failed: could not reach 127\\.0\\.0\\.1:${port}[\\s\\S]*\\n\\S+ +at `).test(readFileSync(log, "utf8")),
        );
        assert.equal(statSync(log).mode & 0o777, 0o600, "the log holds stack traces, paths and titles");
      },
      { env: { ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}` } },
    );
  });

  it("a stalled stream ends after stream_idle_timeout with a clear message; the partial text stays; the thread goes on", async () => {
    await withNeovim(
      nv,
      async (s) => {
        s.mock.reply(response([{ text: "Half a thought that never", holdInside: { hold: "stall", afterDeltas: 2 } }]), textReply("Back."));
        await s.cmd("Tine");
        await typeAndSend(s, "think");
        const shown = await s.waitForDisplay(1, "⚠ Error: no data from the API for 1 s");
        assert.match(shown, /## Claude\nHalf a th[^\n]*\n── interrupted \(the request failed\)/);
        s.mock.release("stall");
        await typeAndSend(s, "again");
        await s.waitForDisplay(1, "Back.");
        assert.match(textOf(sentBlocks(s, 1, 1)[0]) as string, /^Half a th/);
      },
      { setup: { stream_idle_timeout: 1 } },
    );
  });

  it("a content block of an unknown type is skipped with a notice; the reply goes on", async () => {
    await withNeovim(nv, async (s) => {
      s.mock.reply(
        response([
          { text: "Before." },
          {
            steps: [
              {
                event: {
                  type: "content_block_start",
                  index: 1,
                  content_block: { type: "fancy_new_tool_result", tool_use_id: "x", content: [] },
                },
              },
              { event: { type: "content_block_stop", index: 1 } },
            ],
          },
          { text: "After." },
        ]),
        textReply("Next."),
      );
      await s.cmd("Tine");
      await typeAndSend(s, "go");
      const shown = await s.waitForDisplay(1, "── end_turn");
      assert.match(shown, /Before\.\nAfter\.\nℹ skipped a "fancy_new_tool_result" block this version of tine does not know/);
      await typeAndSend(s, "more");
      await s.waitForDisplay(1, "Next.");
      assert.deepEqual(sentBlocks(s, 1, 1).map(textOf), ["Before.", "After."]);
    });
  });
});
