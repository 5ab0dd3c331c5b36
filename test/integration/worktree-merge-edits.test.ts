/**
 * A promote's merge and the user's edits, in real Neovim, real git and real files: the merge held
 * at a known point (the test hook TINE_TEST_MERGE_HOLD), then the host killed (a real kill -9) or
 * a file changed. Undoing a merge cut off never overwrites a file the user fixed meanwhile, and
 * the merge itself never overwrites a file changed after it was planned: such files are kept and named.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { firstThread, SETUP } from "../helpers/code-session.ts";
import { gitProject } from "../helpers/git-project.ts";
import { changed, eventually, fileNames, forkChangingAll, original } from "../helpers/merge-fork.ts";
import { alive, tempProjects, withNeovim } from "../helpers/neovim.ts";

const nv = inject("nvim");
const project = tempProjects();

const FILES = 20;
const names = fileNames(FILES);
const FIXED = "fixed by hand";

describe(`a promote's merge and the user's edits (${nv.version})`, () => {
  it("kill -9 during the merge, then the user fixes a merged file in Neovim: the next start rolls back the others and leaves that one, naming it", async () => {
    const cwd = project();
    gitProject(cwd, Object.fromEntries(names.map((n) => [n, original(n)])));
    const hold = join(cwd, ".state", "merge-held");
    const env = { TINE_TEST_HOOKS: "1", TINE_TEST_MERGE_HOLD: `3:${hold}` };
    await withNeovim(
      nv,
      async (s) => {
        const root = await firstThread(s);
        const fork = await forkChangingAll(s, root);
        const host = await s.hostPid();
        const promoting = s.lua(`require("tine").promote(...)`, fork.id).catch(() => {});
        await eventually("the merge to be held after 3 files", () => existsSync(hold));
        process.kill(host, "SIGKILL");
        await eventually("the host to be gone", () => !alive(host));
        await promoting;
        assert.deepEqual(
          names.slice(0, 4).map((n) => readFileSync(join(cwd, n), "utf8")),
          [changed(names[0]!), changed(names[1]!), changed(names[2]!), original(names[3]!)],
        );

        // Before tine is back, the user fixes a half-merged file in Neovim and saves it.
        await s.until("the host's death to be noticed", async () => !(await s.lua<boolean>("return require('tine.host').running()")));
        await s.lua(
          `vim.cmd.edit(vim.fn.fnameescape(...)); vim.api.nvim_buf_set_lines(0, -1, -1, false, { "${FIXED}" }); vim.cmd.write()`,
          join(cwd, names[1]!),
        );
        const fixed = `${changed(names[1]!)}${FIXED}\n`;
        assert.equal(readFileSync(join(cwd, names[1]!), "utf8"), fixed);
        // What a tine that noted its conflicts before its merge was over left when killed between the two.
        const marker = join(fork.cwd, ".git", "tine-worktree");
        writeFileSync(marker, JSON.stringify({ ...JSON.parse(readFileSync(marker, "utf8")), merge: { into: cwd, files: [names[1]] } }));

        await s.cmd("Tine restart");
        const told = await s.notified(/cut off during its merge/);
        assert.match(told, new RegExp(`rolled back, 2 of its ${FILES} files put back as they were in ${cwd}`));
        assert.match(told, new RegExp(`changed since the merge wrote them, left alone: ${names[1]}[;]`));
        assert.equal(readFileSync(join(cwd, names[1]!), "utf8"), fixed);
        for (const n of names.filter((_, i) => i !== 1)) assert.equal(readFileSync(join(cwd, n), "utf8"), original(n));
        // The merge undone leaves nothing to accept: the fork's worktree stays for its next promote.
        await assert.rejects(s.lua(`require("tine.worktree").merge_done(true)`), /no merge waits to be accepted/);
        assert.ok(existsSync(fork.cwd));

        // The rollback can be undone like a restore: the files it put back are as the merge left them again.
        await s.cmd("Tine restore undo");
        await s.notified(/restore undone: 2 files/);
        assert.equal(readFileSync(join(cwd, names[0]!), "utf8"), changed(names[0]!));
        assert.equal(readFileSync(join(cwd, names[1]!), "utf8"), fixed);
        assert.equal(readFileSync(join(cwd, names[2]!), "utf8"), changed(names[2]!));
        assert.equal(readFileSync(join(cwd, names[3]!), "utf8"), original(names[3]!));
      },
      { cwd, env, setup: SETUP },
    );
  });

  it("a file the user changes after the merge was planned, before it is written, is kept, named as a conflict, and the fork's copy stays", async () => {
    const cwd = project();
    gitProject(cwd, Object.fromEntries(names.map((n) => [n, original(n)])));
    const hold = join(cwd, ".state", "merge-held");
    const env = { TINE_TEST_HOOKS: "1", TINE_TEST_MERGE_HOLD: `3:${hold}` };
    await withNeovim(
      nv,
      async (s) => {
        const root = await firstThread(s);
        const fork = await forkChangingAll(s, root);
        const promoting = s.lua(`require("tine").promote(...)`, fork.id);
        await eventually("the merge to be held after 3 files", () => existsSync(hold));
        // Not written yet: another editor (or the parent's agent) writes it while the merge runs.
        const edited = names[10]!;
        writeFileSync(join(cwd, edited), `${FIXED}\n`);
        writeFileSync(hold, "go");
        await promoting;

        const told = await s.notified(/its code is merged/);
        assert.match(told, new RegExp(`merged with 1 conflict \\(the quickfix list\\): ${edited}\\. Its worktree ${fork.cwd} stays`));
        assert.equal(readFileSync(join(cwd, edited), "utf8"), `${FIXED}\n`);
        for (const n of names.filter((n) => n !== edited)) assert.equal(readFileSync(join(cwd, n), "utf8"), changed(n));
        // The fork's copy is where the quickfix list says.
        const items = await s.lua<{ text: string }[]>("return vim.tbl_map(function(i) return { text = i.text } end, vim.fn.getqflist())");
        assert.deepEqual(items, [{ text: `changed here during the merge: yours kept; the fork's is ${join(fork.cwd, edited)}` }]);
        assert.equal(readFileSync(join(fork.cwd, edited), "utf8"), changed(edited));
      },
      { cwd, env, setup: SETUP },
    );
  });
});
