/**
 * Reviewing the turns of a worktree fork before its promote (issue #34): the fork's hunks are
 * listed from its own snapshots, an undo is made in its worktree's file (the project's file
 * untouched), `:Tine restore undo` takes it back there, and the promote merges what the worktree
 * holds then: an undone hunk is not merged, a kept one is. A fork starts with its source's review
 * of the turns it shares, and reviews on apart from it.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { firstThread, withGitProject } from "../helpers/code-session.ts";
import { gitProject } from "../helpers/git-project.ts";
import type { Session } from "../helpers/neovim.ts";
import { tempProjects } from "../helpers/neovim.ts";
import { api, editingTurn, LINES, reviewProject, withLine } from "../helpers/review-turn.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");
const project = tempProjects();

const states = async (s: Session, id: string) =>
  ((await api<{ path: string; index: number; state: string }[]>(s, "hunks", id)) as { path: string; index: number; state: string }[]).map(
    (h) => `${h.path}#${h.index} ${h.state}`,
  );

describe(`reviewing a worktree fork's turns before its promote (${nv.version})`, () => {
  it("its hunks, undone in its worktree and taken back there; the promote merges the kept hunk and not the undone one", async () => {
    const cwd = project();
    gitProject(cwd, { "hello.txt": "hello\n", "lines.txt": LINES });
    await withGitProject(nv, cwd, async (s) => {
      const id = await firstThread(s);
      const command = "sed -i 's/^line 2$/LINE 2/; s/^line 18$/LINE 18/' lines.txt";
      s.mock.reply(response([{ toolUse: { id: "b1", name: "bash_command", input: { command } } }]), textReply("Edited."));
      const fork = await s.lua<string>(`return require("tine").fork(..., "edit in a worktree", { worktree = true })`, id);
      await s.waitForDisplay(fork, "▸ 1 file changed");
      await s.waitForStatus(fork, "idle");
      const forkDir = (await s.thread(fork)).cwd!;
      assert.notEqual(forkDir, s.cwd);
      const edited = withLine(withLine(LINES, 2, "LINE 2"), 18, "LINE 18");
      assert.equal(readFileSync(join(forkDir, "lines.txt"), "utf8"), edited);
      assert.deepEqual(await states(s, fork), ["lines.txt#1 pending", "lines.txt#2 pending"]);

      // Both undone in the worktree; the project's file is as it was.
      assert.deepEqual(await api(s, "reject_hunk", fork, "lines.txt", 1), { path: "lines.txt", index: 1, conflicts: 0 });
      assert.deepEqual(await api(s, "reject_hunk", fork, "lines.txt", 2), { path: "lines.txt", index: 2, conflicts: 0 });
      assert.equal(readFileSync(join(forkDir, "lines.txt"), "utf8"), LINES);
      assert.equal(readFileSync(join(s.cwd, "lines.txt"), "utf8"), LINES);
      // The last undo taken back, in the worktree: hunk 2 is the fork's again, and pending.
      await s.cmd("Tine restore undo");
      await s.until(
        "the worktree's file has hunk 2 back",
        async () => readFileSync(join(forkDir, "lines.txt"), "utf8") === withLine(LINES, 18, "LINE 18"),
      );
      assert.deepEqual(await states(s, fork), ["lines.txt#1 undone", "lines.txt#2 pending"]);
      assert.equal(await api(s, "keep_hunk", fork, "lines.txt", 2), true);

      await s.lua(`require("tine").promote(...)`, fork);
      await s.notified(/its code is merged: 1 file changed/);
      assert.equal(readFileSync(join(s.cwd, "lines.txt"), "utf8"), withLine(LINES, 18, "LINE 18"), "hunk 1 is not merged, hunk 2 is");
    });
  });

  it("a fork starts with its source's review of the turns it shares (kept, undone); what either reviews after is its own", async () => {
    await withGitProject(nv, reviewProject(project()), async (s) => {
      const id = await editingTurn(s);
      assert.equal(await api(s, "keep_hunk", id, "hello.txt", 1), true);
      assert.deepEqual(await api(s, "reject_hunk", id, "lines.txt", 1), { path: "lines.txt", index: 1, conflicts: 0 });
      s.mock.reply(textReply("Ok."));
      const fork = await s.lua<string>(`return require("tine").fork(..., "go on")`, id);
      await s.waitForStatus(fork, "idle");
      assert.deepEqual(await states(s, fork), ["hello.txt#1 kept", "lines.txt#1 undone", "lines.txt#2 pending"]);
      assert.equal(await api(s, "keep_hunk", fork, "lines.txt", 2), true);
      assert.deepEqual(await states(s, id), ["hello.txt#1 kept", "lines.txt#1 undone", "lines.txt#2 pending"], "the source's is its own");
      await s.cmd("Tine restart");
      assert.deepEqual(await states(s, fork), ["hello.txt#1 kept", "lines.txt#1 undone", "lines.txt#2 kept"], "kept across a restart");
    });
  });
});
