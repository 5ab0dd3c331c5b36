/**
 * A promote's merge when things go wrong, in real Neovim, real git and real files: the host killed
 * (a real kill -9) in the middle of a merge of many files, and a full disk (a real small tmpfs)
 * under the project or under the worktrees. No file is left empty or half-written, what a merge
 * cut off wrote is rolled back when tine next starts (and the user told), and a fork whose code
 * could not be merged stays as it was, reachable, to be promoted again.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, inject, it } from "vitest";
import { texts } from "../helpers/chat-driver.ts";
import { editingFork, firstThread, HELLO, SETUP } from "../helpers/code-session.ts";
import { gitProject } from "../helpers/git-project.ts";
import { changed, eventually, fileNames, forkChangingAll, original } from "../helpers/merge-fork.ts";
import { alive, tempProjects, withNeovim } from "../helpers/neovim.ts";
import { mountTmpfs, type Tmpfs, tmpfsRefused } from "../helpers/tmpfs.ts";

const nv = inject("nvim");
const project = tempProjects();

let cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup.reverse()) c();
  cleanup = [];
});

const FILES = 600;
const names = fileNames(FILES);

describe(`a promote's merge cut off (${nv.version})`, () => {
  it("kill -9 during the merge of many files: no file half-written; the next start rolls it back and says so; the fork stays and is promoted again", async () => {
    const cwd = project();
    gitProject(cwd, Object.fromEntries(names.map((n) => [n, original(n)])));
    const hold = join(cwd, ".state", "merge-held");
    const env = { TINE_TEST_HOOKS: "1", TINE_TEST_MERGE_HOLD: `3:${hold}` };
    await withNeovim(
      nv,
      async (s) => {
        const root = await firstThread(s);
        const fork = await forkChangingAll(s, root);
        assert.equal(readFileSync(join(fork.cwd, names[0]!), "utf8"), changed(names[0]!));
        const rootMessages = texts(await s.messages(root));
        const host = await s.hostPid();
        // Neovim waits for the promote's answer: the test watches the files, then kills the host.
        const promoting = s.lua(`require("tine").promote(...)`, fork.id).then(
          () => "answered",
          (e: Error) => e.message,
        );
        await eventually("the merge to be held after 3 files", () => existsSync(hold));
        process.kill(host, "SIGKILL");
        await eventually("the host to be gone", () => !alive(host));
        assert.doesNotMatch(await promoting, /^answered$/);
        // Each file is as it was or as the merge made it, whole: 3 written, none empty or cut.
        const now = names.map((n) => readFileSync(join(cwd, n), "utf8"));
        assert.equal(now.filter((text, i) => text === changed(names[i]!)).length, 3);
        assert.equal(now.filter((text, i) => text === original(names[i]!)).length, FILES - 3);
        assert.deepEqual(
          readdirSync(join(cwd, "f")).filter((n) => !n.endsWith(".txt")),
          [],
          "no temporary file is left",
        );

        await s.until("the host's death to be noticed", async () => !(await s.lua<boolean>("return require('tine.host').running()")));
        await s.cmd("Tine restart");
        const told = await s.notified(/cut off during its merge/);
        assert.match(told, new RegExp(`rolled back, 3 of its ${FILES} files put back as they were in ${cwd}`));
        assert.match(told, /"change them all" is as it was before it: promote it again/);
        for (const n of names) assert.equal(readFileSync(join(cwd, n), "utf8"), original(n));
        // The fork is still a fork of the root, with its worktree; the root's conversation did not move.
        const listed = await s.thread(fork.id);
        assert.equal(listed.parent_id, root);
        assert.ok(existsSync(fork.cwd));
        await s.open(root);
        assert.deepEqual(texts(await s.messages(root)), rootMessages);

        await s.open(fork.id);
        await s.lua(`require("tine").promote(...)`, fork.id);
        await s.notified(new RegExp(`its code is merged: ${FILES} files changed`));
        for (const n of names) assert.equal(readFileSync(join(cwd, n), "utf8"), changed(n));
        await s.waitForGone(fork.id, "the promoted fork to leave the list");
        assert.equal(existsSync(fork.cwd), false);
      },
      { cwd, env, setup: SETUP },
    );
  });
});

describe.skipIf(tmpfsRefused !== null)(
  `a promote or a worktree on a full disk (${nv.version})${tmpfsRefused ? ` (skipped: ${tmpfsRefused})` : ""}`,
  () => {
    function fullDisk(): Tmpfs {
      const disk = mountTmpfs("4m");
      cleanup.push(() => disk.close());
      return disk;
    }
    function dataDir(): string {
      const dir = mkdtempSync(join(tmpdir(), "tine-data-"));
      cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
      return dir;
    }

    it("the project's disk full: the promote is refused saying so, the fork stays as it was, and is promoted once there is room", async () => {
      const disk = fullDisk();
      const cwd = join(disk.dir, "project");
      gitProject(cwd, { "hello.txt": HELLO });
      await withNeovim(
        nv,
        async (s) => {
          const root = await firstThread(s);
          const a = await editingFork(s, root, "A");
          const rootMessages = texts(await s.messages(root));
          disk.fill();
          await assert.rejects(
            s.lua(`require("tine").promote(...)`, a.id),
            new RegExp(`edit as A is not promoted: no space left on ${disk.dir} \\(writing ${cwd}\\).*It stays as it was`),
          );
          // Nothing moved: the fork is open, with its conversation and worktree; the files are as they were.
          assert.equal((await s.thread(a.id)).status, "idle");
          assert.deepEqual(texts(await s.messages(root)), rootMessages);
          assert.equal(readFileSync(join(cwd, "hello.txt"), "utf8"), HELLO);
          assert.equal(existsSync(join(cwd, "A.txt")), false);
          assert.equal(readFileSync(join(a.cwd, "hello.txt"), "utf8"), "A from a fixture\n");

          disk.free();
          await s.lua(`require("tine").promote(...)`, a.id);
          await s.notified(/edit as A: its code is merged: 2 files changed/);
          assert.equal(readFileSync(join(cwd, "hello.txt"), "utf8"), "A from a fixture\n");
          assert.equal(readFileSync(join(cwd, "A.txt"), "utf8"), "A\n");
        },
        { cwd, setup: { ...SETUP, data_dir: dataDir() } },
      );
    });

    it("the worktrees' disk full: a worktree fork is refused naming the disk and the folder", async () => {
      const disk = fullDisk();
      const cwd = project();
      gitProject(cwd, { "hello.txt": HELLO });
      await withNeovim(
        nv,
        async (s) => {
          const root = await firstThread(s);
          disk.fill();
          await assert.rejects(
            s.lua(`require("tine").fork(..., "x", { worktree = true })`, root),
            new RegExp(`no worktree made: no space left on ${disk.dir} \\(writing ${disk.dir}/[^)]+/\\d+-[0-9a-f]{8}\\)`),
          );
          assert.equal((await s.threads()).length, 1);
        },
        { cwd, setup: { ...SETUP, worktree_dir: disk.dir } },
      );
    });
  },
);
