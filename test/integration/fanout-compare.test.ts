/**
 * A fan-out's checks and its comparison, as a user meets them in real Neovim, real git and the
 * real sandbox: each fork's check runs in its worktree when its turn ends (in the sandbox when it
 * is unattended, bounded by bash_timeout), compare() lines the forks up against the snapshot they
 * started from, and :Tine compare shows them with keys to open, promote and discard.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { firstThread, withGitProject } from "../helpers/code-session.ts";
import { byFile, type Compared, compare, confirmAnswering, forksWrite, whenDone } from "../helpers/fan-out.ts";
import { tempProjects } from "../helpers/neovim.ts";
import { response } from "../mock-anthropic/script.ts";

const nv = inject("nvim");
const project = tempProjects();

describe(`fan-out checks and compare (${nv.version})`, () => {
  it("each fork's check runs in its worktree, in the sandbox, when its turn ends; compare() gives files, +/−, check and state", async () => {
    await withGitProject(nv, project(), async (s) => {
      const id = await firstThread(s);
      forksWrite(s, ["A", "B"]);
      // Passes where A.txt was made; else prints 3000 lines and fails. Its write outside the worktree is the sandbox's to refuse.
      const check = `touch ${s.cwd}/escaped 2>/dev/null; test -f A.txt && echo passed || { seq 1 3000; echo failed-last; exit 4; }`;
      const ids = await s.lua<string[]>(`return require("tine").fanout(..., "make your file", { n = 2, check = "${check}" })`, id);
      assert.equal(ids.length, 2);
      const forks = await whenDone(s, id);
      assert.deepEqual(
        forks.map((f) => f.id),
        ids,
      );
      const [a, b] = [byFile(forks, "A.txt"), byFile(forks, "B.txt")];
      assert.deepEqual([...a.files].sort(), ["A.txt", "hello.txt"]);
      assert.deepEqual([...b.files].sort(), ["B.txt", "hello.txt"]);
      assert.deepEqual([a.added, a.removed, b.added, b.removed], [2, 0, 2, 0]);
      assert.deepEqual(a.check, { ok: true, code: 0, output: "passed\n" });
      assert.equal(b.check?.ok, false);
      assert.equal(b.check?.code, 4);
      // The tail is kept: the last lines, not the first.
      assert.match(b.check!.output, /\n2999\n3000\nfailed-last\n$/);
      assert.ok(b.check!.output.length <= 4200 && !b.check!.output.startsWith("1\n"), b.check!.output.slice(0, 40));
      const model = await s.lua<string>(`return require("tine.config").options.model`);
      for (const f of forks) {
        assert.equal(f.model, model);
        assert.notEqual(f.cwd, s.cwd);
        assert.equal(typeof f.cost_usd, "number");
        assert.ok((await s.thread(f.id)).unattended);
      }
      // The checks ran confined: nothing written outside the worktrees, the user's files untouched.
      assert.equal(existsSync(join(s.cwd, "escaped")), false);
      assert.equal(readFileSync(join(s.cwd, "hello.txt"), "utf8"), "hello from a fixture\n");
      // The list shows the forks together under their source, each with its place and its check's verdict; the source's display notes the fan-out.
      await s.openList();
      const rows = await s.listLines();
      const at = (f: Compared) => rows.findIndex((l) => l.includes(`#${f.num} `));
      const source = rows.findIndex((l) => l.includes(" hi "));
      assert.deepEqual([at(forks[0]!), at(forks[1]!)].sort(), [source + 1, source + 2], rows.join("\n"));
      assert.match(rows[at(a)]!, new RegExp(`⑂×2 ${ids.indexOf(a.id) + 1}/2 check ✓ · `));
      assert.match(rows[at(b)]!, new RegExp(`⑂×2 ${ids.indexOf(b.id) + 1}/2 check ✗ 4 · `));
      await s.waitForDisplay(id, "⑂×2 fan-out: make your file · :Tine compare");
      // :Tine compare on a fork's line of the list shows its fan-out.
      await s.onListLine(`#${a.num} `, ":Tine compare<CR>");
      await s.until("the compare view of the list line's fan-out opens", async () => {
        const name = await s.lua<string>("return vim.api.nvim_buf_get_name(0)");
        return name === `tine-compare://${ids[0]}` && (await s.lines(await s.currentBuf())).length === 2;
      });
      // A fork's id, the fan-out's, or the list of ids give the same forks.
      assert.deepEqual(
        (await compare(s, ids[1]!)).map((f) => f.id),
        ids,
      );
      assert.deepEqual(
        (await compare(s, [ids[1]!])).map((f) => f.id),
        [ids[1]],
      );
      await assert.rejects(compare(s, [id]), /is not a live fork of a fan-out/);
    });
  });

  it("a check that hangs is stopped at bash_timeout; the fork is checking while it runs, then done with the check failed; a fork cut off is interrupted, not done", async () => {
    await withGitProject(
      nv,
      project(),
      async (s) => {
        const id = await firstThread(s);
        forksWrite(s, ["A"]);
        // One fork's reply holds until it is aborted: it is cut off.
        s.mock.reply(response([{ text: "Working on it" }, { hold: "cut" }]));
        const ids = await s.lua<string[]>(
          `return require("tine").fanout(..., "make your file", { n = 2, check = "echo started; sleep 600" })`,
          id,
        );
        await s.mock.reached("cut");
        // The other's turn ends (the held one's cannot), and its check runs (3s at most): not done yet, and the list says it is checking, not idle.
        let fork = "";
        await s.until("a fork's turn ends", async () => {
          for (const f of ids) if ((await s.thread(f)).status === "idle") fork = f;
          return fork !== "";
        });
        const cut = ids.find((f) => f !== fork)!;
        assert.equal((await s.thread(cut)).status, "streaming");
        await s.lua(`require("tine").abort(...)`, cut);
        assert.equal((await compare(s, [fork]))[0]!.state, "checking");
        await s.openList();
        const num = (await s.thread(fork!)).num;
        await s.until("the list shows the fork checking", async () =>
          (await s.listLines()).some((l) => l.includes(`#${num} `) && l.includes("checking (background)")),
        );
        let done: Compared | undefined;
        await s.until("the fork is done and the cut one interrupted", async () => {
          const now = await compare(s, id);
          done = now.find((f) => f.id === fork);
          return done?.state === "done" && now.find((f) => f.id === cut)?.state === "interrupted";
        });
        assert.equal(done!.check?.ok, false);
        assert.equal(done!.check?.code, null);
        assert.equal(done!.check!.output, "started\n(the check ran past bash_timeout: stopped after 3s)");
        // Every fork done: said once, with where to look.
        const allDone = /^tine: fan-out ".*": \d+ of \d+ done/;
        assert.equal(
          await s.notified(allDone),
          'tine: fan-out "make your file": 1 of 2 done, 1 interrupted (0 checks passed) · :Tine compare',
        );
        await s.until("the list shows it idle once its check ended", async () =>
          (await s.listLines()).some((l) => l.includes(`#${num} `) && l.includes("idle (background)")),
        );
        assert.equal((await s.notifications()).filter((n) => allDone.test(n.msg)).length, 1, "said once");
      },
      { bash_timeout: 3 },
    );
  });

  it(":Tine compare shows a line per fork; P promotes one and the other stays, X discards the others, <CR> opens one", async () => {
    await withGitProject(nv, project(), async (s) => {
      const id = await firstThread(s);
      forksWrite(s, ["A", "B", "C"]);
      // Each check waits for the test's go (a file in its worktree, which it takes away), then passes where A.txt was made.
      const check = "while [ ! -f go ]; do sleep 0.05; done; rm go; test -f A.txt";
      const ids = await s.lua<string[]>(`return require("tine").fanout(..., "make your file", { n = 3, check = "${check}" })`, id);
      // Opened while the forks work: it redraws as their turns end and as their checks do.
      await s.open(id);
      await s.cmd("Tine compare");
      const buf = await s.currentBuf();
      await s.until("the view shows every fork checking", async () => {
        const now = await s.lines(buf);
        return now.length === 3 && now.every((l) => / checking {2}2 files \+2 −0 {2}check … /.test(l));
      });
      // A fork opened (in a tab of its own) while its check runs: its display notes the check running, then its verdict.
      await s.cmd("tabnew");
      await s.open(ids[0]!);
      await s.waitForDisplay(ids[0]!, "⑂×3 1/3 check … · :Tine compare");
      await s.cmd("tabclose");
      assert.equal(await s.currentBuf(), buf);
      for (const f of ids) writeFileSync(join((await s.thread(f)).cwd!, "go"), "");
      const forks = await whenDone(s, id);
      await s.waitForDisplay(ids[0]!, /⑂×3 1\/3 check [✓✗]( 1)? · :Tine compare/);
      let lines: string[] = [];
      await s.until("the view shows every fork done with its check", async () => {
        lines = await s.lines(buf);
        return lines.length === 3 && lines.every((l) => / done .* check [✓✗]/.test(l));
      });
      // The view's asks can be answered out of order (a done fork's compare is quick, a working
      // one's takes a snapshot): an answer older than one drawn is never drawn over it.
      await s.lua(
        `local host, compare = require("tine.host"), require("tine.compare")
        local real = host.request_async
        host.request_async = function(method, args, done) _G.tine_held = done; host.request_async = real end
        compare.refresh(...)
        _G.tine_drawn = compare.drawn
        compare.refresh(...)`,
        buf,
      );
      await s.until("the newer answer is drawn", () => s.lua<boolean>(`return require("tine.compare").drawn > _G.tine_drawn`));
      await s.lua(
        `local stale = require("tine").compare(...); for _, f in ipairs(stale) do f.state = "running" end; _G.tine_held(nil, stale)`,
        id,
      );
      assert.ok(
        (await s.lines(buf)).every((l) => / done .* check [✓✗]/.test(l)),
        "the older answer is not drawn",
      );
      for (const [i, f] of forks.entries()) {
        const verdict = f.files.includes("A.txt") ? "check ✓" : "check ✗ 1";
        // Each one's title is the prompt and its place among its siblings, `(1/3)`.
        assert.match(f.title, new RegExp(`\\(${i + 1}/3\\)$`));
        const title = f.title.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
        // The model it runs, beside its cost.
        assert.match(
          lines[i]!,
          new RegExp(`^ ▸ #${f.num} ${title}  done  2 files \\+2 −0  ${verdict}  ${f.model}  \\$\\d+\\.\\d{4}  cache \\d`),
        );
      }
      // g? lists the view's keys.
      await s.keys("g?");
      await s.until("g? lists the view's keys", async () => {
        const keys = (await s.lines(await s.currentBuf())).join("\n");
        return keys.includes("graft the file's (or the hunk's) change into the source") && keys.includes("discard every other fork");
      });
      await s.keys("q");
      await s.until("back in the view", async () => (await s.currentBuf()) === buf);
      // gp on a fork's line asks for a file; d shows the fork beside the next one (:Tine diff, in a tab).
      await s.keys("1Ggp");
      await s.notified(/graft takes a file or a hunk: put the cursor on one of the fork's files/);
      await s.keys("1Gd");
      await s.until("the diff opens in a tab", async () => (await s.lua<number>("return #vim.api.nvim_list_tabpages()")) === 2);
      // Its buffers' names keep the titles' `(1/3)` whole, no `/` a tab line reads as a folder.
      const names = await s.lua<string[]>(
        "return vim.tbl_map(function(w) return vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(w)) end, vim.api.nvim_tabpage_list_wins(0))",
      );
      assert.ok(names.includes(`tine-diff://${forks[0]!.title.replace("/", "∕")}`), names.join("\n"));
      await s.cmd("tabclose");
      await s.until("back in the view", async () => (await s.currentBuf()) === buf);
      // <Tab> shows a fork's files.
      await s.keys("1G<Tab>");
      await s.until("the first fork's files are shown", async () => (await s.lines(buf)).some((l) => /^ {6}A \S+\.txt {2}\+1 −0$/.test(l)));
      // g on a file line grafts it (require("tine").graft); where graft is not there yet, it says so.
      if (await s.lua<boolean>(`return require("tine").graft == nil`)) {
        await s.keys("2Ggp");
        await s.notified(/graft is not available in this version of tine/);
      }
      // P on the line of the fork that made B.txt: its files come into the source's, the others stay.
      const b = byFile(forks, "B.txt");
      const drawn = await s.lua<number>(`return require("tine.compare").drawn`);
      const bLine = (await s.lines(buf)).findIndex((l) => l.includes(`#${b.num} `)) + 1;
      await s.keys(`${bLine}GP`);
      await s
        .until("B's code is in the project", async () => existsSync(join(s.cwd, "B.txt")))
        .catch(async (e) => {
          throw new Error(`${e.message}\n${JSON.stringify(await s.notifications())}\n${(await s.lines(buf)).join("\n")}`);
        });
      await s.until("the view is drawn without B", async () => {
        const now = await s.lines(buf);
        return (
          (await s.lua<number>(`return require("tine.compare").drawn`)) > drawn &&
          now.filter((l) => l.startsWith(" ▸") || l.startsWith(" ▾")).length === 2
        );
      });
      const left = ids.filter((f) => f !== b.id);
      assert.deepEqual(
        (await compare(s, id)).map((f) => f.id),
        left,
      );
      for (const f of left) assert.ok(existsSync((await s.thread(f)).cwd!));
      // X on the first line left asks first, as gD does (the forks have messages of their own); Cancel keeps them.
      const other = await s.thread(left[1]!);
      await s.lua(confirmAnswering(2));
      await s.keys("1GX");
      await s.until("X asks", async () => (await s.lua<number>("return #_G.tine_confirmed")) === 1);
      assert.match(
        await s.lua<string>("return _G.tine_confirmed[1]"),
        new RegExp(`^tine: discard fork #${other.num} ".*"\\? It has \\d+ messages of its own \\(\`:Tine threads!\` brings it back\\)\\.$`),
      );
      assert.ok(existsSync(other.cwd!), "Cancel keeps the fork");
      // Discard: the other fork is discarded.
      await s.lua(confirmAnswering(1));
      await s.keys("1GX");
      await s.waitForGone(left[1]!, "the other fork is discarded");
      await s.until(
        "one fork is left in the view",
        async () => (await s.lines(buf)).filter((l) => / (done|running|checking) /.test(l)).length === 1,
      );
      // D asks too (Cancel: it stays).
      await s.lua(confirmAnswering(2));
      await s.keys("1GD");
      await s.until("D asks", async () => (await s.lua<number>("return #_G.tine_confirmed")) === 1);
      assert.match(await s.lua<string>("return _G.tine_confirmed[1]"), /^tine: discard fork #\d+ /);
      // <CR> opens the fork on the line.
      await s.keys("1G<CR>");
      await s.until("the fork is the current thread", async () => (await s.lua<string>(`return require("tine").current()`)) === left[0]);
      // Its display notes its place in the fan-out and its check's verdict, as the list does.
      await s.waitForDisplay(left[0]!, /⑂×\d \d\/\d check [✓✗][ \d]* · :Tine compare/);
    });
  });
});
