/**
 * Restores across restarts: `:Tine restore undo` after the host or Neovim was restarted (the last
 * restore's undo is kept on disk beside the project's snapshot store, so it gives back the exact
 * bytes either way, once), and a restore from a stored thread that was never opened.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { editingTurn, HELLO, withGitProject } from "../helpers/code-session.ts";
import { type Session, tempProjects } from "../helpers/neovim.ts";

const nv = inject("nvim");
const project = tempProjects();

/** The files as the turn left them, then restored to the first message (without asking). */
async function editThenRestore(s: Session): Promise<{ hello: Buffer; added: Buffer }> {
  const id = await editingTurn(s);
  const after = { hello: readFileSync(join(s.cwd, "hello.txt")), added: readFileSync(join(s.cwd, "new.txt")) };
  await s.lua(`require("tine").restore(..., 0, { confirm = false })`, id);
  assert.equal(readFileSync(join(s.cwd, "hello.txt"), "utf8"), HELLO);
  assert.equal(existsSync(join(s.cwd, "new.txt")), false);
  return after;
}

function assertUndone(s: Session, after: { hello: Buffer; added: Buffer }): void {
  assert.deepEqual(readFileSync(join(s.cwd, "hello.txt")), after.hello);
  assert.deepEqual(readFileSync(join(s.cwd, "new.txt")), after.added);
}

describe(`restore undo across restarts (${nv.version})`, () => {
  it(":Tine restore undo after :Tine restart gives back the exact bytes, once", async () => {
    await withGitProject(nv, project(), async (s) => {
      const after = await editThenRestore(s);
      const pid = await s.hostPid();
      await s.cmd("Tine restart");
      await s.until("a new host", async () => (await s.hostPid()) !== pid);
      await s.cmd("Tine restore undo");
      await s.notified(/restore undone: 2 files/);
      assertUndone(s, after);
      await s.cmd("Tine restart");
      await assert.rejects(s.lua(`require("tine").restore_undo()`), /no restore to undo/);
    });
  });

  it("restore undo in a new Neovim on the same project gives back the exact bytes", async () => {
    const cwd = project();
    let after: { hello: Buffer; added: Buffer } = { hello: Buffer.alloc(0), added: Buffer.alloc(0) };
    await withGitProject(nv, cwd, async (s) => {
      after = await editThenRestore(s);
    });
    await withGitProject(nv, cwd, async (s) => {
      const undone = await s.lua<{ written: string[] }>(`return require("tine").restore_undo()`);
      assert.deepEqual([...undone.written].sort(), ["hello.txt", "new.txt"]);
      assertUndone(s, after);
    });
  });

  it("a stored thread, not opened, restores from its transcript's snapshots: restore(), fork with restore_code; its forks keep them", async () => {
    const cwd = project();
    let id = "";
    await withGitProject(nv, cwd, async (s) => {
      id = await editingTurn(s);
    });
    await withGitProject(nv, cwd, async (s) => {
      // A new thread: `:Tine` would reopen the stored one (the one last used).
      await s.cmd("Tine new");
      assert.equal((await s.thread(id)).status, "stored");
      const done = await s.lua<{ written: string[] }>(`return require("tine").restore(..., 0, { confirm = false })`, id);
      assert.deepEqual([...done.written].sort(), ["hello.txt", "new.txt"]);
      assert.equal(readFileSync(join(s.cwd, "hello.txt"), "utf8"), HELLO);
      await s.lua(`require("tine").restore_undo()`);
      assert.equal(existsSync(join(s.cwd, "new.txt")), true);
      await s.lua(`require("tine").fork(..., "again", { at_message = 0, restore_code = true })`, id);
      await s.until("the fork", async () => (await s.threads()).some((t) => t.parent_id === id));
      assert.equal(readFileSync(join(s.cwd, "hello.txt"), "utf8"), HELLO);
      assert.equal(existsSync(join(s.cwd, "new.txt")), false);
      // A fork of it keeps the snapshots of the messages it shares: the reply's change list, and restores to them.
      const fork = await s.lua<string>(`return require("tine").fork(...)`, id);
      await s.waitForDisplay(fork, "▸ 2 files changed (+3 −1)");
      await s.lua(`require("tine").restore_undo()`);
      await s.lua(`require("tine").restore(..., 0, { confirm = false })`, fork);
      assert.equal(existsSync(join(s.cwd, "new.txt")), false);
    });
  });
});
