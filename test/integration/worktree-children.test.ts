/**
 * The threads that come from a worktree fork work where its code is, whether the fork is open or
 * only stored (after a restart): a fork of it gets a worktree of its own made from the fork's
 * files at the fork point (neither disturbs the other), a hand-off carries on in the fork's own
 * worktree. And a fork that waits for its source's turn to end (`--wait --worktree`) gets a
 * worktree of the files as that turn left them, not as they were at the request.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { firstThread, HELLO, withGitProject } from "../helpers/code-session.ts";
import { type Session, tempProjects } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");
const project = tempProjects();

/** Scripts a turn that makes `<name>.txt` holding `name` (bash_command), ending with "<name> done.". */
function makesFile(s: Session, name: string): void {
  s.mock.reply(
    response([{ toolUse: { id: `b-${name}`, name: "bash_command", input: { command: `printf '${name}\\n' > ${name}.txt` } } }]),
    textReply(`${name} done.`),
  );
}

/** A fork of `id` in a worktree of its own whose turn writes "A" over "hello" in hello.txt; its id and folder. */
async function worktreeFork(s: Session, id: string): Promise<{ id: string; cwd: string }> {
  s.mock.reply(
    response([{ toolUse: { id: "e-A", name: "edit_file", input: { path: "hello.txt", find: "hello", replace: "A" } } }]),
    textReply("A done."),
  );
  const fork = await s.lua<string>(`return require("tine").fork(..., "edit as A", { worktree = true })`, id);
  await s.waitForDisplay(fork, "A done.\n── end_turn");
  await s.waitForStatus(fork, "idle");
  return { id: fork, cwd: (await s.thread(fork)).cwd! };
}

/** Forks `source` with a prompt whose turn makes `<name>.txt`; returns where the fork works once its turn ended. */
async function forkMaking(s: Session, source: string, name: string): Promise<string> {
  makesFile(s, name);
  const fork = await s.lua<string>(`return require("tine").fork(..., "make ${name}")`, source);
  await s.waitForDisplay(fork, `${name} done.\n── end_turn`);
  return (await s.thread(fork)).cwd!;
}

describe(`threads from a worktree fork (${nv.version})`, () => {
  it("a fork of a worktree fork, open or stored, gets a worktree of its own made from the fork's files; neither disturbs the other", async () => {
    await withGitProject(nv, project(), async (s) => {
      const root = await firstThread(s);
      const a = await worktreeFork(s, root);
      // Open: its fork works on a copy of its files, and its work stays there.
      const open = await forkMaking(s, a.id, "open");
      assert.ok(![s.cwd, a.cwd].includes(open), `a worktree of its own, not ${open}`);
      assert.equal(readFileSync(join(open, "hello.txt"), "utf8"), "A from a fixture\n");
      assert.equal(readFileSync(join(open, "open.txt"), "utf8"), "open\n");
      assert.equal(existsSync(join(a.cwd, "open.txt")), false);
      // Stored (after a restart, not opened): the same.
      await s.cmd("Tine restart");
      await s.until("the threads are back", async () => (await s.threads()).length === 3);
      const stored = await forkMaking(s, a.id, "stored");
      assert.ok(![s.cwd, a.cwd, open].includes(stored), `a worktree of its own, not ${stored}`);
      assert.equal(readFileSync(join(stored, "hello.txt"), "utf8"), "A from a fixture\n");
      assert.equal(readFileSync(join(stored, "stored.txt"), "utf8"), "stored\n");
      for (const folder of [s.cwd, a.cwd]) assert.equal(existsSync(join(folder, "stored.txt")), false, folder);
      assert.equal(readFileSync(join(s.cwd, "hello.txt"), "utf8"), HELLO);
    });
  });

  it("a hand-off from a worktree fork works in the fork's worktree", async () => {
    await withGitProject(nv, project(), async (s) => {
      const root = await firstThread(s);
      const a = await worktreeFork(s, root);
      s.mock.reply(response([{ toolUse: { id: "h1", name: "fork_thread", input: { prompt: "Make handoff.txt." } } }]));
      await s.lua(`require("tine").send(..., "@handoff carry on")`, a.id);
      await s.waitForThreadCount(3, "the hand-off thread");
      const handoff = (await s.threads()).find((t) => t.parent_id === a.id)!.id;
      await s.waitForStatus(a.id, "idle");
      assert.equal((await s.thread(handoff)).cwd, a.cwd);
      makesFile(s, "handoff");
      await s.lua(`require("tine").send(..., "Make handoff.txt.")`, handoff);
      await s.waitForDisplay(handoff, "handoff done.\n── end_turn");
      assert.equal(readFileSync(join(a.cwd, "handoff.txt"), "utf8"), "handoff\n");
      assert.equal(existsSync(join(s.cwd, "handoff.txt")), false);
    });
  });

  it("a --wait --worktree fork's worktree holds the files as the source's turn left them, not as they were at the request", async () => {
    await withGitProject(nv, project(), async (s) => {
      const root = await firstThread(s);
      s.mock.reply(
        response([
          { text: "Editing.", holdInside: { hold: "busy", afterDeltas: 1 } },
          { toolUse: { id: "e1", name: "edit_file", input: { path: "hello.txt", find: "hello", replace: "edited" } } },
        ]),
        textReply("Edited."),
        textReply("Looked."),
      );
      await s.lua(`require("tine").send(..., "edit it")`, root);
      await s.mock.reached("busy");
      await s.cmd("ForkThread --wait --worktree look at it");
      s.mock.release("busy");
      await s.waitForThreadCount(2, "the fork, once the source is at rest");
      const fork = (await s.threads()).find((t) => t.id !== root)!.id;
      await s.waitForDisplay(fork, "Looked.\n── end_turn");
      // Made later than asked, it opens beside its source and leaves the cursor where it is.
      const display = (await s.thread(fork)).bufnr!;
      await s.until("the fork's display in a window", () => s.lua<boolean>("return #vim.fn.win_findbuf(...) > 0", display));
      assert.equal(await s.currentBuf(), (await s.thread(root)).input_bufnr, "the cursor stays in the source's input");
      const cwd = (await s.thread(fork)).cwd!;
      assert.notEqual(cwd, s.cwd);
      assert.equal(readFileSync(join(s.cwd, "hello.txt"), "utf8"), "edited from a fixture\n");
      assert.equal(readFileSync(join(cwd, "hello.txt"), "utf8"), "edited from a fixture\n");
    });
  });
});
