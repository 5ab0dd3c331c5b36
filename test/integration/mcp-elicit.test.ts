/**
 * An MCP server asking the user in the middle of a tool call (elicitation), in real Neovim: tine's
 * stdio test server (test/mcp-servers/, on the SDK) asks through its `ask` tool, the model's call is
 * scripted on the mock, and the user answers the form with vim.ui.select / vim.ui.input as they
 * would (picking items by what they show, typing, pressing Enter on what is filled in, <Esc>).
 * What the server got back is in its log.
 */
import assert from "node:assert/strict";
import { describe, inject, it } from "vitest";
import { openSidebar, typeAndSend } from "../helpers/chat-driver.ts";
import { oneExchange } from "../helpers/fixtures.ts";
import { logLines, resultFor, shows, testServer, told } from "../helpers/mcp.ts";
import { type Session, tempProjects, withNeovim } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");
const project = tempProjects();

/** The user's next moves, in order: pick the item showing this text, type this (replacing what is filled in), Enter on what is filled in, <Esc>. */
type Move = { pick: string } | { type: string } | "enter" | "esc";

/**
 * From now on vim.ui.select and vim.ui.input take `moves` in order; each question is kept (`asks`).
 * Past the last move a question is left open, its callback kept in `_G.tine_held` (the user is away).
 */
async function userWill(s: Session, moves: Move[]): Promise<void> {
  await s.lua(
    `_G.tine_moves = ...
    _G.tine_asks = _G.tine_asks or {}
    _G.tine_held = nil
    vim.ui.select = function(items, opts, cb)
      local shown = vim.tbl_map(opts.format_item or tostring, items)
      table.insert(_G.tine_asks, { prompt = opts.prompt, items = shown })
      local move = table.remove(_G.tine_moves, 1)
      if move == nil then
        _G.tine_held = function(text) for i, t in ipairs(shown) do if t == text then return cb(items[i], i) end end end
        return
      end
      if move == "esc" then return cb(nil) end
      for i, t in ipairs(shown) do
        if t == move.pick then return cb(items[i], i) end
      end
      error("no item " .. move.pick .. " among " .. table.concat(shown, " | "))
    end
    vim.ui.input = function(opts, cb)
      table.insert(_G.tine_asks, { prompt = opts.prompt, default = opts.default or "" })
      local move = table.remove(_G.tine_moves, 1)
      if move == nil then _G.tine_held = cb; return end
      if move == "esc" then return cb(nil) end
      if move == "enter" then return cb(opts.default or "") end
      cb(move.type)
    end`,
    moves,
  );
}

type Ask = { prompt: string; items?: string[]; default?: string };
const asks = (s: Session) => s.lua<Ask[]>("local a = _G.tine_asks or {}; _G.tine_asks = {}; return a");
const movesLeft = (s: Session) => s.lua<number>("return #(_G.tine_moves or {})");

/** The answers the test server logged, in order. */
const answers = (cwd: string) =>
  logLines(cwd)
    .filter((l) => l.startsWith("elicit-answer "))
    .map((l) => JSON.parse(l.slice("elicit-answer ".length)));

const ask = (id: string, server = "test") => response([{ toolUse: { id, name: `mcp__${server}__ask`, input: {} } }]);

/** Every kind of field, each with a default (SEP-1034), and a titled enum and a multi-select (SEP-1330). */
const FORM = {
  message: "Who is deploying?",
  requestedSchema: {
    type: "object",
    properties: {
      name: { type: "string", title: "Name", description: "As on your badge", default: "John Doe" },
      age: { type: "integer", title: "Age", minimum: 0, default: 30 },
      score: { type: "number", title: "Score", default: 95.5 },
      verified: { type: "boolean", title: "Verified", default: true },
      status: {
        type: "string",
        title: "Status",
        oneOf: [
          { const: "active", title: "Active" },
          { const: "inactive", title: "Inactive" },
        ],
        default: "active",
      },
      tags: {
        type: "array",
        title: "Tags",
        items: {
          anyOf: [
            { const: "a", title: "Alpha" },
            { const: "b", title: "Beta" },
          ],
        },
        default: ["a"],
      },
    },
    required: ["name", "age"],
  },
};

const elicitServer = (cwd: string, form: unknown, env: Record<string, string> = {}) =>
  testServer(cwd, { MCP_TEST_ELICIT: JSON.stringify(form), ...env });

describe(`MCP elicitation (${nv.version})`, () => {
  it("shows the server's form field by field with its defaults filled in; Enter keeps them, an answer that does not fit is asked again; decline and <Esc> go back as such", async () => {
    const cwd = project();
    await withNeovim(
      nv,
      async (s) => {
        s.mock.reply(ask("e1"), ask("e2"), ask("e3"), ask("e4"), textReply("All asked."));
        // The defaults, kept: Enter on each input, the first (filled-in) item of each pick.
        await userWill(s, [
          { pick: "Fill in the form" },
          "enter",
          "enter",
          "enter",
          { pick: "yes (default)" },
          { pick: "Active (default)" },
          { pick: "Done" },
          // The second form: changed, with an age that is not a number first.
          { pick: "Fill in the form" },
          { type: "Ann" },
          { type: "thirty" },
          "enter",
          { pick: "no" },
          { pick: "Inactive" },
          { pick: "[ ] Beta" },
          { pick: "Done" },
          // Asked again with what was entered.
          "enter",
          { type: "31" },
          "enter",
          { pick: "no (default)" },
          { pick: "Inactive (default)" },
          { pick: "Done" },
          // The third: declined; the fourth: <Esc> in the middle of the form.
          { pick: "Decline" },
          { pick: "Fill in the form" },
          "enter",
          "esc",
        ]);
        const t = await openSidebar(s);
        await typeAndSend(s, "ask me");
        await shows(s, t.id, "All asked.");
        assert.deepEqual(answers(cwd), [
          { action: "accept", content: { name: "John Doe", age: 30, score: 95.5, verified: true, status: "active", tags: ["a"] } },
          { action: "accept", content: { name: "Ann", age: 31, score: 95.5, verified: false, status: "inactive", tags: ["a", "b"] } },
          { action: "decline" },
          { action: "cancel" },
        ]);
        assert.equal(await movesLeft(s), 0, "every move was asked for");
        const asked = await asks(s);
        assert.deepEqual(asked[0], { prompt: "MCP server test asks: Who is deploying?", items: ["Fill in the form", "Decline", "Cancel"] });
        assert.deepEqual(asked[1], { prompt: "Name (required) — As on your badge: ", default: "John Doe" });
        assert.deepEqual(asked[2], { prompt: "Age (required) [integer]: ", default: "30" });
        assert.deepEqual(asked[3], { prompt: "Score [number]: ", default: "95.5" });
        assert.deepEqual(asked[4], { prompt: "Verified", items: ["yes (default)", "no", "(leave empty)"] });
        assert.deepEqual(asked[5], { prompt: "Status", items: ["Active (default)", "Inactive", "(leave empty)"] });
        assert.deepEqual(asked[6], {
          prompt: "Tags (pick to check or uncheck, then Done)",
          items: ["[x] Alpha", "[ ] Beta", "Done"],
        });
        assert.ok(
          (await s.notifications()).some((n) => n.msg === "tine: Age: not a number: answer again"),
          "the age that is not a number is said",
        );
        assert.equal(asked[16]!.default, "thirty", "asked again with what was entered");
        assert.equal(resultFor(s, 1, "e1"), `answer: ${JSON.stringify(answers(cwd)[0])}`, "the model gets the server's result");
      },
      { cwd, setup: { mcp_servers: { test: elicitServer(cwd, FORM) }, mcp_auto_approve: ["test"] } },
    );
  });

  it("a background fork's question waits, shows in the list and is never answered for the user; opening the fork shows the form", async () => {
    const cwd = project();
    await withNeovim(
      nv,
      async (s) => {
        await oneExchange(s, "main question", "Parent answer.");
        s.mock.reply(ask("b1"), textReply("Background done."));
        await userWill(s, []);
        await typeAndSend(s, "@bg ask the server");
        await told(s, /^tine: .* waits for your answer to an MCP server's question: open it from :Tine threads$/);
        await s.openList();
        await s.until("the fork to wait in the list", async () => (await s.listLines()).some((l) => l.includes("waiting (background)")));
        assert.deepEqual(await asks(s), [], "nothing is asked of a fork out of sight");
        assert.deepEqual(answers(cwd), [], "nor answered for the user");
        await userWill(s, [
          { pick: "Fill in the form" },
          { type: "Bea" },
          { type: "7" },
          "enter",
          { pick: "yes (default)" },
          { pick: "Active (default)" },
          { pick: "Done" },
        ]);
        await s.onListLine("waiting (background)", "<CR>");
        const bg = (await s.threads())[1]!;
        await shows(s, bg.id, "Background done.");
        assert.deepEqual(answers(cwd), [
          { action: "accept", content: { name: "Bea", age: 7, score: 95.5, verified: true, status: "active", tags: ["a"] } },
        ]);
      },
      { cwd, setup: { mcp_servers: { test: elicitServer(cwd, FORM) }, mcp_auto_approve: ["test"] } },
    );
  });

  it("a form too big, or malformed, is refused with a message and declined; the thread goes on", async () => {
    const cwd = project();
    const many = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`f${i}`, { type: "string" }]));
    const big = { message: "Fill all these", requestedSchema: { type: "object", properties: many } };
    const bad = { message: "Nested", requestedSchema: { type: "object", properties: { where: { type: "object", properties: {} } } } };
    await withNeovim(
      nv,
      async (s) => {
        s.mock.reply(ask("g1", "big"), ask("g2", "bad"), textReply("Went on."));
        await userWill(s, []);
        const t = await openSidebar(s);
        await typeAndSend(s, "ask badly");
        await shows(s, t.id, "Went on.");
        const messages = (await s.notifications()).map((n) => n.msg);
        assert.ok(
          messages.includes(
            'tine: the MCP server big asked a question tine cannot show: it asks for 25 fields, over the 20 a form may have. It was answered "decline".',
          ),
          messages.join("\n"),
        );
        assert.ok(
          messages.some((m) =>
            m.startsWith('tine: the MCP server bad asked a question tine cannot show: field "where": its type "object"'),
          ),
          messages.join("\n"),
        );
        assert.equal(resultFor(s, 1, "g1"), 'answer: {"action":"decline"}');
        assert.equal(resultFor(s, 2, "g2"), 'answer: {"action":"decline"}');
        assert.deepEqual(await asks(s), [], "the user was asked nothing");
      },
      {
        cwd,
        setup: {
          mcp_servers: { big: elicitServer(cwd, big), bad: elicitServer(cwd, bad) },
          mcp_auto_approve: ["big", "bad"],
        },
      },
    );
  });

  it("a question the server withdraws while the form is open: the call goes on, a late answer is told it is no longer wanted, the thread stays usable", async () => {
    const cwd = project();
    await withNeovim(
      nv,
      async (s) => {
        s.mock.reply(ask("w1"), textReply("After the withdrawal."), textReply("Still here."));
        await userWill(s, []);
        const t = await openSidebar(s);
        await typeAndSend(s, "ask and withdraw");
        await s.until("the form to be shown", async () => s.lua<boolean>("return _G.tine_held ~= nil"), 30_000);
        await shows(s, t.id, "After the withdrawal.");
        assert.equal(resultFor(s, 1, "w1"), "withdrawn");
        await s.lua('_G.tine_held("Decline")');
        await told(s, /^tine: test no longer waits for this answer \(it withdrew the question, or its call ended\)$/);
        assert.deepEqual(answers(cwd), [], "nothing was answered");
        await s.focus((await s.thread(t.id)).input_bufnr!);
        await typeAndSend(s, "still there?");
        await shows(s, t.id, "Still here.");
      },
      {
        cwd,
        setup: { mcp_servers: { test: elicitServer(cwd, FORM, { MCP_TEST_ELICIT_WITHDRAW_MS: "1500" }) }, mcp_auto_approve: ["test"] },
      },
    );
  });
});
