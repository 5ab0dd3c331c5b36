/**
 * Snapshot housekeeping as a user meets it: the next start drops the snapshots of a deleted
 * thread (no thread refers to them) and keeps the others, which still restore; `:checkhealth tine`
 * shows the store's size and how long snapshots are kept.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { editingTurn, HELLO, snapshotStore, storeGit, withGitProject } from "../helpers/code-session.ts";
import { tempProjects } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");
const project = tempProjects();

/** The owners (thread ids) the store keeps snapshots for. */
const owners = (cwd: string) =>
  new Set(
    storeGit(cwd, "for-each-ref", "--format=%(refname)", "refs/tine/")
      .split("\n")
      .filter(Boolean)
      .map((r) => r.split("/")[2]),
  );

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
    // As if the last housekeeping were two days ago (it runs once a day, a while after the start).
    const stamp = join(snapshotStore(cwd)!.gitDir, "tine-pruned");
    if (existsSync(stamp)) utimesSync(stamp, new Date(Date.now() - 2 * 86_400_000), new Date(Date.now() - 2 * 86_400_000));
    await withGitProject(nv, cwd, async (s) => {
      await s.cmd("Tine");
      await s.until("the deleted thread's snapshots dropped", async () => !owners(cwd).has(deleted), 30_000);
      assert.ok(owners(cwd).has(kept));
      await s.lua(`require("tine").restore(..., 0, { confirm = false })`, kept);
      assert.equal(readFileSync(join(cwd, "hello.txt"), "utf8"), HELLO);
      assert.match(await s.health(), /code snapshots[\s\S]*OK of .+, in .+\.git: \d+\.\d MiB \(kept 30 days\)/);
    });
  });
});
