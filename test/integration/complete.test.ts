/**
 * Mentions completed as they are typed in a thread's input (Neovim's own <C-x><C-o>, read back
 * through complete_info()), and what is in a buffer brought into a thread: `:'<,'>Tine add`, the
 * `add` key, `:Tine add` and `:Tine ask`, with the HTTP mock recording what was sent.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, inject, it } from "vitest";
import { sentBlocks, textOf } from "../helpers/chat-driver.ts";
import type { Session } from "../helpers/neovim.ts";
import { withNeovim } from "../helpers/neovim.ts";
import { textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");

/** A git work tree in the session's folder, its XDG folders and `secret/` ignored. */
function gitProject(s: Session, files: Record<string, string>): void {
  const all = { ".gitignore": ".state/\n.config/\n.data/\n.claude-config/\nsecret/\n", ...files };
  for (const [path, text] of Object.entries(all)) {
    mkdirSync(dirname(join(s.cwd, path)), { recursive: true });
    writeFileSync(join(s.cwd, path), text);
  }
  execFileSync("git", ["init", "-q"], { cwd: s.cwd });
}

/** Types `keys` and stays in Insert mode, as a user between two keys. */
async function typeInsert(s: Session, keys: string): Promise<void> {
  await s.lua(`vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(..., true, false, true), "mt", false)`, keys);
}

type Item = { word: string; menu: string; kind: string };

/** The items of the completion menu once it shows `first` first. */
async function menuOnce(s: Session, what: string, holds: (items: Item[]) => boolean): Promise<Item[]> {
  let items: Item[] = [];
  await s.until(what, async () => {
    items = await s.lua<Item[]>(`return vim.fn.complete_info({ "items" }).items`);
    return holds(items);
  });
  return items;
}

const words = (items: Item[]) => items.map((i) => i.word);

const APP = ["export function add(a: number, b: number) {", "  return a + b;", "}", ""].join("\n");

describe(`completion of mentions (${nv.version})`, () => {
  it("<C-x><C-o> in the input lists the mentions after @, then the project's files after @file:, ignored ones left out", async () => {
    await withNeovim(nv, async (s) => {
      gitProject(s, { "src/app.ts": APP, "src/apple/pie.ts": "", "secret/apple.txt": "" });
      await s.cmd("set completeopt=menuone,noselect");
      await s.cmd("Tine");
      await typeInsert(s, "i@<C-x><C-o>");
      // At the message's start: the @-commands first (only there are they one), then the mentions.
      const names = await menuOnce(s, "the commands and mentions", (items) => items.length > 0);
      const MENTION_WORDS = ["file:", "buf", "bufs", "diag", "diag!", "qf", "diff", "staged", "drop:"];
      assert.deepEqual(words(names), ["fork", "fork×", "bg", "bg!", "handoff", "compact", "now", ...MENTION_WORDS]);
      assert.match(names[0]!.menu, /fork this thread beside it/);
      assert.match(names[7]!.menu, /a file's content/);
      // After other words: the mentions only.
      await typeInsert(s, "<C-e><C-u>look at @<C-x><C-o>");
      assert.deepEqual(words(await menuOnce(s, "the mentions", (items) => items.length > 0)), MENTION_WORDS);
      await typeInsert(s, "<C-e><C-u>@<C-x><C-o>");
      await menuOnce(s, "the menu again", (items) => items.length > 0);

      // The list follows each key typed (the host is asked again), fuzzy: `fi` is file: only.
      await typeInsert(s, "fi");
      await menuOnce(s, "file: alone", (items) => words(items).join() === "file:");

      await typeInsert(s, "<C-e><C-u>@file:ap<C-x><C-o>");
      const files = await menuOnce(s, "the project's files", (items) => items.length > 0);
      assert.deepEqual(words(files), ["src/app.ts", "src/apple/pie.ts"], "secret/ is ignored by git: not offered");
      await typeInsert(s, "pi");
      await menuOnce(s, "the list narrowed to pie", (items) => words(items).join() === "src/apple/pie.ts");
      await typeInsert(s, "<C-n><C-y>");
      await s.until(
        "the path in the input",
        async () => (await s.lua<string>("return vim.api.nvim_get_current_line()")) === "@file:src/apple/pie.ts",
      );
    });
  });

  it(":Tine ask completes mentions on the command line too", async () => {
    await withNeovim(nv, async (s) => {
      gitProject(s, { "src/app.ts": APP });
      const got = await s.lua<string[]>(`return vim.fn.getcompletion("Tine ask explain @file:sapp", "cmdline")`);
      assert.deepEqual(got, ["@file:src/app.ts"]);
    });
  });
});

describe(`:Tine add and :Tine ask (${nv.version})`, () => {
  it("the add key on a selection puts it in the input as a block headed by path:from-to; the cursor stays in the file", async () => {
    await withNeovim(nv, async (s) => {
      gitProject(s, { "src/app.ts": APP });
      await s.cmd("filetype on");
      await s.cmd("edit src/app.ts");
      await s.keys("2GVj\\ta");
      const t = (await s.threads())[0]!;
      await s.until("the block in the input", async () => (await s.lines(t.input_bufnr!)).length > 1);
      assert.deepEqual(await s.lines(t.input_bufnr!), ["src/app.ts:2-3", "```typescript", "  return a + b;", "}", "```", ""]);
      assert.match(await s.lua<string>("return vim.api.nvim_buf_get_name(0)"), /src\/app\.ts$/);
      assert.equal(await s.lua<string>("return vim.api.nvim_get_mode().mode"), "n");
      assert.ok(
        (await s.windows()).some((w) => w.endsWith(" [input]")),
        "the sidebar shows the input",
      );

      // Without a range: the file, as a mention, where the user goes on writing.
      await s.cmd("Tine add");
      assert.equal((await s.lines(t.input_bufnr!)).at(-1), "@file:src/app.ts");
    });
  });

  it(":'<,'>Tine ask sends the lines and the question at once; from tine's own buffer, :Tine add says why not", async () => {
    await withNeovim(nv, async (s) => {
      gitProject(s, { "src/app.ts": APP });
      s.mock.reply(textReply("It adds two numbers."));
      await s.cmd("edit src/app.ts");
      await s.cmd("1,3Tine ask what does this do?");
      const t = (await s.threads())[0]!;
      await s.waitForDisplay(t.id, "It adds two numbers.");
      const sent = textOf(sentBlocks(s, 0, -1)[0]);
      assert.ok(
        sent?.includes(`src/app.ts:1-3\n\`\`\`\n${APP.split("\n").slice(0, 3).join("\n")}\n\`\`\`\n\nwhat does this do?`),
        `sent: ${sent}`,
      );
      assert.match(await s.lua<string>("return vim.api.nvim_buf_get_name(0)"), /src\/app\.ts$/);

      await s.focus(t.input_bufnr!);
      await s.cmd("Tine add");
      assert.match(await s.lastNotification(), /not in tine's own/);
    });
  });
});
