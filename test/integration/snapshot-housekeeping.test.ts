/**
 * Snapshot housekeeping as a user meets it: the next start drops the snapshots of a deleted
 * thread (no thread refers to them) and keeps the others, which still restore; `:checkhealth tine`
 * shows the store's size and how long snapshots are kept. A worktree fork's files, its git and
 * its fork point survive it, however old its snapshots are.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { typeAndSend } from "../helpers/chat-driver.ts";
import { editingTurn, HELLO, snapshotStore, storeGit, withGitProject } from "../helpers/code-session.ts";
import { gitIn } from "../helpers/git-project.ts";
import { type Session, tempProjects } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");
/** The host answers `test_housekeep`. */
const HOOKS = { TINE_TEST_HOOKS: "1" };
const project = tempProjects();

/** The owners (thread ids) the store keeps snapshots for. */
const owners = (cwd: string) =>
  new Set(
    storeGit(cwd, "for-each-ref", "--format=%(refname)", "refs/tine/")
      .split("\n")
      .filter(Boolean)
      .map((r) => r.split("/")[2]),
  );

/**
 * Makes the next start's housekeeping due (it runs once a day, a while after the start: the
 * tests run it at once through the host's test hook rather than wait for its timer).
 */
function housekeepingDue(cwd: string): void {
  const stamp = join(snapshotStore(cwd)!.gitDir, "tine-pruned");
  const then = new Date(Date.now() - 2 * 86_400_000);
  if (existsSync(stamp)) utimesSync(stamp, then, then);
}

/** A Neovim in `cwd` whose housekeeping was due and has run (the test hook), then `check` in it. */
async function afterHousekeeping(cwd: string, check: (s: Session) => Promise<void>, setup: Record<string, unknown> = {}): Promise<void> {
  housekeepingDue(cwd);
  await withGitProject(
    nv,
    cwd,
    async (s) => {
      await s.cmd("Tine");
      await s.lua("return require('tine.host').request('test_housekeep')");
      await check(s);
    },
    setup,
    HOOKS,
  );
}

describe(`snapshot housekeeping (${nv.version})`, () => {
  it("the next start drops a deleted thread's snapshots and keeps the others; :checkhealth shows the size and the limit", async () => {
    const cwd = project();
    let [kept, deleted] = ["", ""];
    await withGitProject(nv, cwd, async (s) => {
      kept = await editingTurn(s);
      await s.cmd("Tine new");
      await s.until("a second thread", async () => (await s.threads()).length === 2);
      deleted = (await s.threads()).find((t) => t.id !== kept)!.id;
      s.mock.reply(
        response([{ toolUse: { id: "b2", name: "bash_command", input: { command: "echo mine > other.txt" } } }]),
        textReply("Made."),
      );
      await s.lua(`require("tine").send(..., "make other.txt")`, deleted);
      await s.waitForDisplay(deleted, "▸ 1 file changed (+1 −0)");
      await s.until("its snapshots kept", async () => owners(cwd).has(deleted));
      await s.lua(`require("tine").delete(...)`, deleted);
    });
    assert.ok(owners(cwd).has(kept) && owners(cwd).has(deleted));
    await afterHousekeeping(cwd, async (s) => {
      assert.ok(!owners(cwd).has(deleted), "the deleted thread's snapshots dropped");
      assert.ok(owners(cwd).has(kept));
      await s.lua(`require("tine").restore(..., 0, { confirm = false })`, kept);
      assert.equal(readFileSync(join(cwd, "hello.txt"), "utf8"), HELLO);
      assert.match(await s.health(), /code snapshots[\s\S]*OK of .+, in .+\.git: \d+\.\d MiB \(kept 30 days\)/);
    });
  });

  it("a worktree fork's files, its own git's commits and its fork point survive housekeeping that drops all its snapshots", async () => {
    const cwd = project();
    let fork = { id: "", cwd: "" };
    await withGitProject(nv, cwd, async (s) => {
      s.mock.reply(textReply("Hi."));
      await s.cmd("Tine");
      const root = (await s.threads())[0]!.id;
      await typeAndSend(s, "hi");
      await s.waitForDisplay(root, "Hi.\n── end_turn");
      s.mock.reply(
        response([{ toolUse: { id: "e-A", name: "edit_file", input: { path: "hello.txt", find: "hello", replace: "A" } } }]),
        textReply("A done."),
      );
      const id = await s.lua<string>(`return require("tine").fork(..., "edit as A", { worktree = true })`, root);
      await s.waitForDisplay(id, "▸ 1 file changed (+1 −1)");
      fork = { id, cwd: (await s.thread(id)).cwd! };
      await s.until("its snapshots kept", async () => owners(cwd).has(id));
    });
    // The fork's work committed in its worktree, as its agent or the user would.
    gitIn(fork.cwd, "add", "-A");
    gitIn(fork.cwd, "commit", "-q", "-m", "the fork's work");
    // Kept for a moment only: every snapshot of the first session is past the limit.
    await afterHousekeeping(
      cwd,
      async (s) => {
        assert.equal(owners(cwd).size, 0, "every snapshot dropped");
        assert.match(storeGit(cwd, "count-objects", "-v"), /^count: 0$/m, "the store collected");
        gitIn(fork.cwd, "fsck", "--no-dangling");
        assert.equal(gitIn(fork.cwd, "status", "--porcelain"), "");
        // Its next turn is recorded, and its promote finds its fork point.
        await s.open(fork.id);
        s.mock.reply(
          response([{ toolUse: { id: "b1", name: "bash_command", input: { command: "printf 'later\\n' > later.txt" } } }]),
          textReply("later done."),
        );
        await typeAndSend(s, "once more");
        await s.waitForDisplay(fork.id, "▸ 1 file changed (+1 −0)");
        await s.lua(`require("tine").promote(...)`, fork.id);
        await s.notified(/its code is merged: 2 files changed/);
        assert.equal(readFileSync(join(cwd, "hello.txt"), "utf8"), "A from a fixture\n");
        assert.equal(readFileSync(join(cwd, "later.txt"), "utf8"), "later\n");
      },
      { snapshot_keep_days: 0.000001 },
    );
  });
});
