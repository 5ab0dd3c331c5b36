/**
 * Grafting from :Tine compare (issue #32), in real Neovim, real git and the mock: a file line of a
 * fork opens to its hunks (numbered as graft numbers them), gp on a hunk line grafts that hunk, gp
 * on a file line the whole file, into the source's files; the fork stays, the view redraws (from
 * the first fan-out after Neovim starts on) and fits its window to what it shows.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { HELLO, withGitProject } from "../helpers/code-session.ts";
import { gitProject } from "../helpers/git-project.ts";
import { type Session, tempProjects } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";
import type { RecordedRequest } from "../mock-anthropic/server.ts";

const nv = inject("nvim");
const project = tempProjects();

/** 20 lines: a change at line 2 and one at line 18 are two hunks of a diff (3 lines of context each). */
const LINES = Array.from({ length: 20 }, (_, i) => `line ${i + 1}\n`).join("");
const CHANGE = "sed -i 's/^line 2$/LINE 2/; s/^line 18$/LINE 18/' lines.txt && printf 'new\\n' > new.txt";

/** The fork's first request runs CHANGE; the one after its result gets "Done.". */
function forkChanges(s: Session): void {
  s.mock.otherwise((req: RecordedRequest) => {
    const last = req.body.messages.at(-1)!;
    const answered = Array.isArray(last.content) && last.content.some((b) => b.type === "tool_result");
    return answered ? textReply("Done.") : response([{ toolUse: { id: "b-change", name: "bash_command", input: { command: CHANGE } } }]);
  });
}

const drawn = (s: Session) => s.lua<number>(`return require("tine.compare").drawn`);

describe(`grafting from the compare view (${nv.version})`, () => {
  it("a file line opens to its hunks; gp on a hunk grafts that hunk, gp on a file the whole file; the fork stays", async () => {
    const cwd = project();
    gitProject(cwd, { "hello.txt": HELLO, "lines.txt": LINES });
    await withGitProject(nv, cwd, async (s) => {
      // The first fan-out since Neovim started, nothing having asked for the thread list yet (the
      // host pushes its changes, which redraw the view, only once asked): the view opened at once
      // redraws as the fork works and ends.
      await s.cmd("Tine");
      const id = await s.lua<string>(`return require("tine").current()`);
      forkChanges(s);
      const [fork] = await s.lua<string[]>(`return require("tine").fanout(..., "change the lines", { n = 1 })`, id);
      await s.cmd("Tine compare");
      const buf = await s.currentBuf();
      await s.until("the view shows the fork done", async () => / done {2}2 files \+3 −2 /.test((await s.lines(buf))[0] ?? ""));
      await s.keys("1G<Tab>");
      let lines: string[] = [];
      /** The view's window's height now. */
      const height = () => s.lua<number>("return vim.api.nvim_win_get_height(0)");
      /** Whether the view has `n` lines now (kept in `lines`). */
      const hasLines = async (n: number) => {
        lines = await s.lines(buf);
        return lines.length === n;
      };
      await s.until("the fork's files are shown", () => hasLines(3));
      // The window grew to show them (it opened one line high).
      assert.equal(await height(), 3);
      const at = (pattern: RegExp) => lines.findIndex((l) => pattern.test(l)) + 1;
      // A file the fork made has no hunks: Tab says gp grafts it whole.
      await s.keys(`${at(/ A new\.txt {2}\+1 −0$/)}G<Tab>`);
      await s.notified(/the fork made new\.txt: it has no hunks, gp grafts the whole file/);
      // Tab on lines.txt: its two hunks, as its diff since the fork point has them.
      await s.keys(`${at(/ M lines\.txt {2}\+2 −2$/)}G<Tab>`);
      await s.until("lines.txt's hunks are shown", () => hasLines(5));
      assert.deepEqual(
        lines.filter((l) => l.includes("@@")),
        ["          hunk 1 @@ -1,5 +1,5 @@  +1 −1", "          hunk 2 @@ -15,6 +15,6 @@  +1 −1"],
      );
      assert.equal(await height(), 5);
      assert.match(lines[at(/ lines\.txt /) - 1]!, /^ {4}▾ M lines\.txt/);
      // gg on new.txt's line only moves the cursor; gp on the second hunk: only line 18 changes in the source's file.
      await s.keys(`${at(/ A new\.txt /)}Ggg`);
      const before = await drawn(s);
      await s.keys(`${at(/@@ -15,6 \+15,6 @@/)}Ggp`);
      await s.notified(/grafted lines\.txt \(hunk 2\) from "change the lines/);
      await s.until("lines.txt has the second hunk", async () => readFileSync(join(s.cwd, "lines.txt"), "utf8") !== LINES);
      assert.equal(readFileSync(join(s.cwd, "lines.txt"), "utf8"), LINES.replace("line 18\n", "LINE 18\n"));
      assert.ok(!existsSync(join(s.cwd, "new.txt")), "only the hunk asked for");
      // The view redraws, the fork and its hunks still there.
      await s.until("the view redraws with the hunks", async () => (await drawn(s)) > before && (await s.lines(buf)).length === 5);
      // gp on new.txt's line: the whole file.
      lines = await s.lines(buf);
      await s.keys(`${at(/ A new\.txt /)}Ggp`);
      await s.notified(/grafted new\.txt from "change the lines/);
      await s.until("new.txt is in the source's files", async () => existsSync(join(s.cwd, "new.txt")));
      assert.equal(readFileSync(join(s.cwd, "new.txt"), "utf8"), "new\n");
      // The fork stays: live, in the view, its worktree with its own copy of the files.
      const forkCwd = (await s.thread(fork!)).cwd!;
      assert.equal(
        readFileSync(join(forkCwd, "lines.txt"), "utf8"),
        LINES.replace("line 2\n", "LINE 2\n").replace("line 18\n", "LINE 18\n"),
      );
      assert.deepEqual(
        (await s.lua<{ id: string }[]>(`return require("tine").compare(...)`, id)).map((f) => f.id),
        [fork],
      );
      assert.match((await s.lines(buf))[0]!, / done {2}2 files \+3 −2 /);
      // :Tine compare N shows thread N's fan-out in the same window (a new fan-out's view replaces this one).
      const win = await s.lua<number>("return vim.api.nvim_get_current_win()");
      const windows = await s.lua<number>("return #vim.api.nvim_list_wins()");
      const [again] = await s.lua<string[]>(`return require("tine").fanout(..., "again", { n = 1 })`, id);
      const num = (await s.thread(again!)).num;
      // <Tab> after `:Tine compare ` offers the threads, `N  title`.
      assert.ok(
        (await s.lua<string[]>(`return vim.fn.getcompletion("Tine compare ", "cmdline")`)).some((c) => c.startsWith(`${num}  again`)),
      );
      await s.cmd(`Tine compare ${num}`);
      assert.equal(await s.lua<string>("return vim.api.nvim_buf_get_name(0)"), `tine-compare://${again}`);
      assert.equal(await s.lua<number>("return vim.api.nvim_get_current_win()"), win);
      assert.equal(await s.lua<number>("return #vim.api.nvim_list_wins()"), windows);
      assert.equal(await s.lua<number>(`return vim.fn.bufexists(${buf})`), 0, "the old view is wiped");
      // Another argument is refused, saying why.
      await s.cmd("Tine compare 999");
      await s.notified(/:Tine compare 999: no thread #999/);
    });
  });
});
