/**
 * Usage per thread and per branch, as a user sees it in real Neovim against the HTTP mock: the
 * display window's winbar, `require('tine').usage(id)`, the thread list, after a restart, and the
 * warning before a send that would not read the prompt cache.
 */
import assert from "node:assert/strict";
import { describe, inject, it } from "vitest";
import type { UsageInfo } from "../../node/usage/book.ts";
import { exchange, typeAndSend } from "../helpers/chat-driver.ts";
import type { Session } from "../helpers/neovim.ts";
import { withNeovim, withProject } from "../helpers/neovim.ts";
import { waitForWinbar, winbar } from "../helpers/winbar.ts";
import { response } from "../mock-anthropic/script.ts";

const nv = inject("nvim");

/** A model with rates of its own (setup's `prices`), so the cost is known exactly. */
const MODEL = "claude-test-1";
const PRICED = {
  model: MODEL,
  prices: { [MODEL]: { input: 3, output: 15, cache_write: 3.75, cache_read: 0.3, context_window: 200000 } },
};

/** `usage(id)` as Lua returns it: the host's own shape. */
type Usage = UsageInfo;

const usage = (s: Session, id: string) => s.lua<Usage>("return require('tine').usage(...)", id);

describe(`usage (${nv.version})`, () => {
  it("the winbar and usage(id) sum the requests exactly: message_start and message_delta, a pause_turn continuation, a retried request once, the attempt before it as billed", async () => {
    await withNeovim(
      nv,
      async (s) => {
        s.mock.reply(
          // Overloaded mid-stream after message_start: retried; that attempt was billed its input, counted once beside the turn.
          response([{ text: "cut" }, { error: { type: "overloaded_error", message: "Overloaded" } }], { usage: { input_tokens: 1000 } }),
          response([{ text: "First." }], { usage: { input_tokens: 1000, cache_creation_input_tokens: 2000, output_tokens: 50 } }),
          response([{ text: "Looking." }, { serverToolUse: { id: "s1", query: "q" } }], {
            stopReason: "pause_turn",
            usage: { input_tokens: 100, cache_read_input_tokens: 3000, output_tokens: 7, web_search_requests: 1 },
          }),
          response([{ searchResult: { toolUseId: "s1", title: "T", url: "https://example.com" } }, { text: "Found." }], {
            usage: { input_tokens: 120, cache_read_input_tokens: 3100, output_tokens: 5 },
          }),
        );
        await s.lua("vim.o.columns = 200"); // a sidebar wide enough for the whole winbar
        await s.cmd("Tine");
        const id = (await s.thread(1)).id;
        await typeAndSend(s, "one");
        await s.waitForDisplay(id, "First.\n── end_turn");
        await s.waitForStatus(id, "idle");
        await typeAndSend(s, "two");
        await s.waitForDisplay(id, "Found.\n── end_turn");
        await s.waitForStatus(id, "idle");
        assert.equal(s.mock.requests.length, 4);
        const u = await usage(s, id);
        assert.deepEqual(
          { ...u, cost_usd: undefined, cache_hit: undefined, subtree: undefined },
          {
            input: 1000 + 1000 + 100 + 120,
            output: 1 + 50 + 7 + 5,
            cache_read: 3000 + 3100,
            cache_write: 2000,
            web_searches: 1,
            requests: 4,
            cost_usd: undefined,
            // The last request alone: its prompt and its reply.
            context_tokens: 120 + 3100 + 5,
            context_window: 200000,
            cache_hit: undefined,
            cache_miss: null,
            subtree: undefined,
          },
        );
        // $3 in, $15 out, $3.75 cache writes, $0.30 cache reads per MTok; $0.01 a search.
        assert.ok(Math.abs(u.cost_usd! - ((2220 * 3 + 63 * 15 + 2000 * 3.75 + 6100 * 0.3) / 1e6 + 0.01)) < 1e-12);
        assert.ok(Math.abs(u.cache_hit! - 3100 / 3220) < 1e-12);
        assert.equal(await waitForWinbar(s, id, "ctx"), "claude-test-1  ·  ctx 3.2k / 200k  ·  10k tokens  ·  cache 96%  ·  $0.027");
        const listed = (await s.threads()).find((t) => t.id === id) as unknown as { usage: Usage };
        assert.equal(listed.usage.requests, 4, "threads() entries carry it");
      },
      { setup: { ...PRICED, web_search: true } },
    );
  });

  it("figures from the API that are not token counts are left out, said once under the reply: no negative or infinite cost, no compaction started by them", async () => {
    await withNeovim(
      nv,
      async (s) => {
        await s.pick(1); // an offer to compact would be accepted: none may be made
        s.mock.reply(
          // Both message_start and message_delta carry the figure: said once all the same.
          response([{ text: "Negative." }], { usage: { input_tokens: -500, output_tokens: 20 } }),
          response([{ text: "Huge." }], { usage: { input_tokens: 1e308, cache_read_input_tokens: 1.5, output_tokens: 30 } }),
          response([{ text: "Fine." }], { usage: { input_tokens: 100, output_tokens: 10 } }),
        );
        await s.lua("vim.o.columns = 200"); // a sidebar wide enough for the whole winbar
        await s.cmd("Tine");
        const id = (await s.thread(1)).id;
        const send = async (text: string, answer: string) => {
          await typeAndSend(s, text);
          await s.waitForDisplay(id, answer);
          await s.waitForStatus(id, "idle");
        };
        await send("one", "Negative.");
        const bad = /the API reported usage figures that are not token counts/g;
        const first = await s.waitForDisplay(id, "ℹ the API reported usage figures that are not token counts (input_tokens -500)");
        assert.equal(first.match(bad)?.length, 1, first);
        assert.doesNotMatch(await waitForWinbar(s, id, "$"), /\$-| -\d|Infinity|NaN/);
        // 1e308 tokens would fill any context window: a send past it compacts without asking.
        await send("two", "Huge.");
        await s.waitForDisplay(id, "(input_tokens 1e+308, cache_read_input_tokens 1.5)");
        await send(`three ${"x".repeat(6000)}`, "Fine.");
        assert.equal(s.mock.requests.length, 3, "no compaction request");
        assert.equal((await s.asked()).items, null, "no compaction offered");
        assert.equal((await s.threads()).length, 1);
        assert.equal((await s.display(id)).match(bad)?.length, 2, "once under each reply that had them");
        const u = await usage(s, id);
        assert.deepEqual([u.input, u.output, u.cache_read, u.requests], [100, 20 + 30 + 10, 0, 3]);
        assert.ok(Math.abs(u.cost_usd! - (100 * 3 + 60 * 15) / 1e6) < 1e-12);
        const bar = await waitForWinbar(s, id, "$0.0012");
        assert.doesNotMatch(bar, /\$-| -\d|Infinity|NaN/);
      },
      { setup: { ...PRICED, auto_compact: 0.8 } },
    );
  });

  it("a fork counts its own requests: its first shows the cache read the mock reports, a cold one is marked in the list, the parent shows the subtree", async () => {
    await withNeovim(
      nv,
      async (s) => {
        s.mock.reply(
          response([{ text: "Parent." }], { usage: { input_tokens: 10, cache_creation_input_tokens: 5000, output_tokens: 20 } }),
        );
        await s.lua("vim.o.columns = 260"); // three columns wide enough for the whole winbar
        await s.cmd("Tine");
        const parent = (await s.thread(1)).id;
        await typeAndSend(s, "start");
        await s.waitForDisplay(parent, "Parent.\n── end_turn");
        await s.waitForStatus(parent, "idle");
        s.mock.reply(response([{ text: "Warm." }], { usage: { input_tokens: 12, cache_read_input_tokens: 5000, output_tokens: 30 } }));
        await typeAndSend(s, "@fork warm");
        await s.waitForDisplay(2, "Warm.\n── end_turn");
        s.mock.reply(response([{ text: "Cold." }], { usage: { input_tokens: 5012, output_tokens: 30 } }));
        await s.focus((await s.thread(1)).input_bufnr!);
        await typeAndSend(s, "@fork cold");
        await s.waitForDisplay(3, "Cold.\n── end_turn");
        const warm = await usage(s, (await s.thread(2)).id);
        assert.deepEqual(
          [warm.input, warm.cache_read, warm.cache_write, warm.requests],
          [12, 5000, 0, 1],
          "its own request, not its parent's",
        );
        assert.equal(
          await waitForWinbar(s, (await s.thread(2)).id, "ctx"),
          "claude-test-1  ·  ctx 5k / 200k  ·  5k tokens  ·  cache 100%  ·  $0.0020",
        );
        const p = await usage(s, parent);
        assert.deepEqual([p.requests, p.subtree.requests, p.subtree.input, p.subtree.cache_read], [1, 3, 10 + 12 + 5012, 5000]);
        await s.openList();
        await s.listLine("first request read no cache");
        const lines = await s.listLines();
        const line = (n: number) => lines.find((l) => l.includes(`#${n}`))!;
        assert.match(line(3), /⚠ first request read no cache/);
        assert.doesNotMatch(line(2), /first request read no cache/);
        assert.match(line(1), /5k tok \$0\.019 · Σ 15k tok \$0\.037/);
      },
      { setup: PRICED },
    );
  });

  it("side requests count once, never in the context: the title request, a rewound @handoff request, a compaction's summary (in the new thread); after a restart too", async () => {
    await withNeovim(
      nv,
      async (s) => {
        s.mock.title(response([{ text: "Named" }], { usage: { input_tokens: 70, output_tokens: 4 } }));
        s.mock.reply(response([{ text: "One." }], { usage: { input_tokens: 10, output_tokens: 5 } }));
        await s.lua("vim.o.columns = 200"); // a sidebar wide enough for the whole winbar
        await s.cmd("Tine");
        const id = (await s.thread(1)).id;
        await typeAndSend(s, "one");
        await s.waitForDisplay(id, "One.\n── end_turn");
        await s.until("the model's title", async () => (await s.thread(id)).title === "Named");
        await s.until("the title request counted", async () => (await usage(s, id)).requests === 2);
        const figures = (u: Usage) => [u.input, u.output, u.cache_read, u.requests, u.context_tokens];
        assert.deepEqual(figures(await usage(s, id)), [80, 9, 0, 2, 15], "the title request in the thread it names");
        // @handoff: the agent's answer is rewound out of the history; its request was billed and stays counted.
        s.mock.reply(
          response([{ toolUse: { id: "h1", name: "fork_thread", input: { prompt: "Go on elsewhere." } } }], {
            usage: { input_tokens: 300, output_tokens: 20 },
          }),
        );
        await typeAndSend(s, "@handoff elsewhere");
        await s.waitForThreadCount(2, "the hand-off thread");
        await s.waitForStatus(id, "idle");
        await s.until("the rewound request counted", async () => (await usage(s, id)).requests === 3);
        assert.deepEqual(figures(await usage(s, id)), [380, 29, 0, 3, 15], "the context is still the last real turn's");
        assert.match(await waitForWinbar(s, id, "409 tokens"), /ctx 15 \/ 200k {2}· {2}409 tokens/);
        // A compaction's summary: the new thread's request, the source untouched.
        s.mock.reply(
          response([{ text: "The summary." }], { usage: { input_tokens: 500, cache_read_input_tokens: 40, output_tokens: 30 } }),
        );
        await s.focus((await s.thread(id)).input_bufnr!);
        await typeAndSend(s, "@compact");
        await s.waitForThreadCount(3, "the compacted thread");
        // The newest thread (the list is oldest first).
        const compacted = (await s.threads()).at(-1)!;
        assert.equal(compacted.parent_id, id);
        await s.until("the summary request counted", async () => (await usage(s, compacted.id)).requests === 1);
        assert.deepEqual(figures(await usage(s, compacted.id)), [500, 30, 40, 1, 0]);
        assert.deepEqual(figures(await usage(s, id)), [380, 29, 0, 3, 15], "the source counts none of it");
        const before = [await usage(s, id), await usage(s, compacted.id)];
        await s.cmd("Tine restart");
        await s.open(id);
        await s.open(compacted.id);
        const after = [await usage(s, id), await usage(s, compacted.id)];
        assert.deepEqual(
          after.map((u) => [...figures(u), u.cost_usd]),
          before.map((u) => [...figures(u), u.cost_usd]),
        );
      },
      { setup: { ...PRICED, auto_title: true } },
    );
  });

  it("stored threads show their figures in threads() and the list after a restart without being opened: the same as before, Σ too", async () => {
    await withProject(async (cwd) => {
      type Seen = { usage: Usage | null; num: number };
      let before: Map<string, Seen> = new Map();
      let listed: string[] = [];
      /** A list line's usage parts: its tokens and cost, the subtree's, a fork's cold start. */
      const usageParts = (line: string) =>
        line
          .split(" · ")
          .filter((p) => / tok\b/.test(p) || /first request/.test(p))
          .join(" · ");
      await withNeovim(
        nv,
        async (s) => {
          s.mock.reply(
            response([{ text: "Parent." }], { usage: { input_tokens: 10, cache_creation_input_tokens: 5000, output_tokens: 20 } }),
          );
          await s.cmd("Tine");
          const parent = (await s.thread(1)).id;
          await typeAndSend(s, "start");
          await s.waitForDisplay(parent, "Parent.\n── end_turn");
          await s.waitForStatus(parent, "idle");
          s.mock.reply(response([{ text: "Cold." }], { usage: { input_tokens: 5012, output_tokens: 30 } }));
          await typeAndSend(s, "@fork cold");
          await s.waitForDisplay(2, "Cold.\n── end_turn");
          await s.waitForStatus(2, "idle");
          await s.cmd("Tine new");
          s.mock.reply(response([{ text: "Other." }], { usage: { input_tokens: 77, cache_read_input_tokens: 900, output_tokens: 8 } }));
          await typeAndSend(s, "other");
          await s.waitForDisplay(3, "Other.\n── end_turn");
          await s.waitForStatus(3, "idle");
          before = new Map((await s.threads()).map((t) => [t.id, { usage: t.usage as unknown as Usage, num: t.num }]));
          await s.openList();
          await s.listLine("Σ");
          listed = await s.listLines();
        },
        { cwd, setup: PRICED },
      );
      await withNeovim(
        nv,
        async (s) => {
          const stored = await s.threads();
          assert.equal(stored.length, 3);
          assert.ok(
            stored.every((t) => t.status === "stored" && t.bufnr === null),
            "not loaded",
          );
          for (const t of stored) assert.deepEqual(t.usage, before.get(t.id)?.usage, `thread #${t.num}`);
          await s.openList();
          await s.listLine("Σ");
          const lines = await s.listLines();
          const line = (from: string[], n: number) => from.find((l) => l.includes(`#${n}`)) ?? "";
          for (const { num } of before.values()) {
            assert.notEqual(usageParts(line(listed, num)), "", `#${num} shows figures`);
            assert.equal(usageParts(line(lines, num)), usageParts(line(listed, num)), `#${num}`);
          }
          assert.ok(
            (await s.threads()).every((t) => t.status === "stored" && t.bufnr === null),
            "still not loaded",
          );
        },
        { cwd, setup: PRICED },
      );
    });
  });

  it("the figures survive a restart: usage(id) and the winbar are the same", async () => {
    await withNeovim(
      nv,
      async (s) => {
        s.mock.reply(response([{ text: "Kept." }], { usage: { input_tokens: 40, cache_creation_input_tokens: 900, output_tokens: 60 } }));
        await s.lua("vim.o.columns = 200"); // a sidebar wide enough for the whole winbar
        await s.cmd("Tine");
        const id = (await s.thread(1)).id;
        await typeAndSend(s, "keep");
        await s.waitForDisplay(id, "Kept.\n── end_turn");
        await s.waitForStatus(id, "idle");
        const before = await usage(s, id);
        const bar = await waitForWinbar(s, id, "ctx");
        await s.cmd("Tine restart");
        await s.open(id);
        assert.deepEqual(await usage(s, id), before);
        assert.equal(await waitForWinbar(s, id, "ctx"), bar);
      },
      { setup: PRICED },
    );
  });

  it("before a send that would not read the cache the winbar says why: the cache expired, the model changed", async () => {
    await withNeovim(
      nv,
      async (s) => {
        s.mock.reply(response([{ text: "Hi." }], { usage: { input_tokens: 40, output_tokens: 6 } }));
        await s.lua("vim.o.columns = 200"); // a sidebar wide enough for the whole winbar
        await s.cmd("Tine");
        const id = (await s.thread(1)).id;
        await typeAndSend(s, "hello");
        await s.waitForDisplay(id, "Hi.\n── end_turn");
        await waitForWinbar(s, id, "ctx");
        // cache_lifetime = 0.01 min: the winbar says so once it passes, with no send.
        const wide = await waitForWinbar(s, id, "⚠ cache expired");
        assert.equal((await usage(s, id)).cache_miss, "expired");
        // A narrow window keeps the warning longest, then the cost; the model's name goes before them.
        const display = (await s.thread(id)).bufnr!;
        await s.lua("vim.api.nvim_win_set_width(vim.fn.win_findbuf(...)[1], 50)", display);
        assert.match(await winbar(s, id), /^ctx 46 \/ 200k {2}· {2}\$0\.\d+ {2}· {2}⚠ cache expired$/, `wide: ${wide}`);
        await s.lua("vim.api.nvim_win_set_width(vim.fn.win_findbuf(...)[1], 34)", display);
        assert.match(await winbar(s, id), /^\$0\.\d+ {2}· {2}⚠ cache expired$/);
        await s.lua("vim.api.nvim_win_set_width(vim.fn.win_findbuf(...)[1], 80)", display);
        await s.lua(
          `require("tine").setup(vim.tbl_extend("force", require("tine.config").options, { model = "claude-test-2", cache_lifetime = 5 }))`,
        );
        await s.cmd("Tine restart");
        await s.open(id);
        await waitForWinbar(s, id, "⚠ no cache: model changed");
        assert.equal((await usage(s, id)).cache_miss, "model");
        await exchange(s, id, "again", "Again.");
        await s.waitForStatus(id, "idle");
        assert.doesNotMatch(await winbar(s, id), /⚠/);
      },
      { setup: { ...PRICED, cache_lifetime: 0.01 } },
    );
  });
});
