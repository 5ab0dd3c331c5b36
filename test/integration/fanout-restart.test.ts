/**
 * A fan-out survives a restart: each fork's transcript keeps its place in its fan-out and its
 * check's end, so after the host restarts the list still shows the forks together with their
 * places and verdicts, compare() and :Tine compare work from the source, a fork or the list, the
 * source's display still notes the fan-out, and a stored fork's file grafts. Real Neovim, real git, the real sandbox.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { firstThread, withGitProject } from "../helpers/code-session.ts";
import { byFile, compare, confirmAnswering, forksWrite, whenDone } from "../helpers/fan-out.ts";
import { tempProjects } from "../helpers/neovim.ts";

const nv = inject("nvim");
const project = tempProjects();

describe(`a fan-out after a restart (${nv.version})`, () => {
  it("the list groups its stored forks with their places and checks; compare() and :Tine compare work from the source, a fork and the list", async () => {
    await withGitProject(nv, project(), async (s) => {
      const id = await firstThread(s);
      forksWrite(s, ["A", "B", "C"]);
      const ids = await s.lua<string[]>(
        `return require("tine").fanout(..., "make your file", { n = 3, check = "test -f A.txt && echo passed" })`,
        id,
      );
      const before = await whenDone(s, id);
      await s.cmd("Tine restart");
      // From the source: the same forks, in their order, done, with their files and their checks' ends as they were.
      const after = await compare(s, id);
      assert.deepEqual(
        after.map((f) => f.id),
        ids,
      );
      for (const f of after) {
        const was = before.find((b) => b.id === f.id)!;
        assert.equal((await s.thread(f.id)).status, "stored");
        assert.equal(f.state, "done");
        assert.deepEqual(
          [f.fanout, f.num, f.title, f.cwd, f.files, f.added, f.removed],
          [ids[0], was.num, was.title, was.cwd, was.files, 2, 0],
        );
        // Its model as it was (the one its last request named), not none.
        assert.equal(typeof was.model, "string");
        assert.equal(f.model, was.model);
        assert.deepEqual(f.check, was.check);
        assert.equal(typeof f.cost_usd, "number");
      }
      const [a, b, c] = [byFile(after, "A.txt"), byFile(after, "B.txt"), byFile(after, "C.txt")];
      assert.deepEqual(a.check, { ok: true, code: 0, output: "passed\n" });
      assert.deepEqual([b.check?.ok, b.check?.code], [false, 1]);
      // From a fork, and from a list of forks.
      assert.deepEqual(
        (await compare(s, ids[1]!)).map((f) => f.id),
        ids,
      );
      assert.deepEqual(
        (await compare(s, [ids[1]!])).map((f) => f.id),
        [ids[1]],
      );
      // The list shows them together under their source, each with its place and its check's verdict.
      await s.openList();
      const rows = await s.listLines();
      const at = (f: { num: number }) => rows.findIndex((l) => l.includes(`#${f.num} `));
      const source = rows.findIndex((l) => l.includes(" hi "));
      // In the order of their numbers, as they were made.
      const byNum = [a, b, c].sort((x, y) => x.num - y.num);
      assert.deepEqual(byNum.map(at), [source + 1, source + 2, source + 3], rows.join("\n"));
      assert.match(rows[at(a)]!, new RegExp(`⑂×3 ${ids.indexOf(a.id) + 1}/3 check ✓ · `));
      assert.match(rows[at(b)]!, new RegExp(`⑂×3 ${ids.indexOf(b.id) + 1}/3 check ✗ 1 · `));
      // :Tine compare on a fork's line of the list shows its fan-out, each fork done with its verdict.
      await s.onListLine(`#${b.num} `, ":Tine compare<CR>");
      await s.until("the compare view of the list line's fan-out opens", async () => {
        const name = await s.lua<string>("return vim.api.nvim_buf_get_name(0)");
        const lines = await s.lines(await s.currentBuf());
        return (
          name === `tine-compare://${ids[0]}` && lines.length === 3 && lines.every((l) => / done {2}2 files \+2 −0 {2}check [✓✗]/.test(l))
        );
      });
      // The source's display still notes the fan-out.
      await s.open(id);
      await s.waitForDisplay(id, "⑂×3 fan-out: make your file · :Tine compare");
      // A stored fork's file grafts (g in the view): the fork is opened for it, the source takes the note.
      assert.deepEqual(await s.lua(`return require("tine").graft(..., "A.txt")`, a.id), { path: "A.txt", conflicts: 0 });
      assert.equal(readFileSync(join(s.cwd, "A.txt"), "utf8"), "A\n");
      await s.waitForDisplay(id, `⇡ grafted A.txt from "${a.title}"`);
      // A stored fork ends from the list (gD) and from :Tine compare (P): asked first, then opened for its end, with no error.
      await s.lua(confirmAnswering(1));
      await s.openList();
      await s.onListLine(`#${c.num} `, "gD");
      await s.waitForGone(c.id, "the stored fork discarded with gD");
      assert.match(await s.lua<string>("return _G.tine_confirmed[1]"), new RegExp(`^tine: discard fork #${c.num} `));
      await s.lua(`require("tine.compare").open(...)`, id);
      const bLine = await s.lua<number>(
        `for i, l in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do if l:find(..., 1, true) then return i end end`,
        `#${b.num} `,
      );
      await s.keys(`${bLine}GP`);
      await s.waitForGone(b.id, "the stored fork promoted with P");
      assert.equal(readFileSync(join(s.cwd, "B.txt"), "utf8"), "B\n");
      const errors = (await s.notifications()).filter((n) => n.level >= 4).map((n) => n.msg);
      assert.deepEqual(errors, []);
    });
  });
});
