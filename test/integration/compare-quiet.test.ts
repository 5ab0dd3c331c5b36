/**
 * compare() of done fan-out forks gives each one's last snapshot again while its worktree is
 * quiet (the speed :Tine compare of 8 forks needs); what a user then changes in a fork's worktree
 * by hand (a file made, one edited, one removed) shows at the next compare, asked at once, and in
 * an open :Tine compare view unasked.
 */
import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { firstThread, withGitProject } from "../helpers/code-session.ts";
import { type Session, tempProjects } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";
import type { RecordedRequest } from "../mock-anthropic/server.ts";

const nv = inject("nvim");
const project = tempProjects();

type Compared = { id: string; state: string; cwd: string; files: string[]; added: number; removed: number };

const compare = (s: Session, ask: string) => s.lua<Compared[]>(`return require("tine").compare(...)`, ask);

describe(`compare of done forks, and the user's hand in their worktrees (${nv.version})`, () => {
  it("a user's edit, new file and removal in a done fork's worktree show at the next compare", async () => {
    await withGitProject(nv, project(), async (s) => {
      const id = await firstThread(s);
      s.mock.otherwise((req: RecordedRequest) => {
        const last = req.body.messages.at(-1)!;
        const answered = Array.isArray(last.content) && last.content.some((b) => b.type === "tool_result");
        const command = "printf 'fork\\n' > fork.txt";
        return answered ? textReply("Done.") : response([{ toolUse: { id: "b-fork", name: "bash_command", input: { command } } }]);
      });
      await s.lua<string[]>(`return require("tine").fanout(..., "make your file", { n = 2, check = false })`, id);
      let forks: Compared[] = [];
      await s.until("both forks done with their file", async () => {
        forks = await compare(s, id);
        return forks.length === 2 && forks.every((f) => f.state === "done" && f.files.includes("fork.txt"));
      });
      const [f] = forks as [Compared];
      const of = async () => (await compare(s, id)).find((c) => c.id === f.id)!;
      // Quiet: the same answer.
      assert.deepEqual((await of()).files, ["fork.txt"]);

      // An open :Tine compare view shows a file made there at once, unasked (the watch tells it).
      await s.open(id);
      await s.cmd("Tine compare");
      const buf = await s.currentBuf();
      const num = (await s.thread(f.id)).num;
      const lineOfF = async () => (await s.lines(buf)).find((l) => l.includes(`#${num} `)) ?? "";
      await s.until("the view shows the fork done", async () => / done {2}1 file /.test(await lineOfF()));
      writeFileSync(join(f.cwd, "mine.txt"), "mine\n");
      await s.until("the view redraws with the file made", async () => / done {2}2 files \+2 /.test(await lineOfF()));
      assert.deepEqual((await of()).files.sort(), ["fork.txt", "mine.txt"]);

      writeFileSync(join(f.cwd, "fork.txt"), "fork\nand mine\n");
      const edited = await of();
      assert.deepEqual([edited.files.sort(), edited.added], [["fork.txt", "mine.txt"], 3]);

      rmSync(join(f.cwd, "hello.txt"));
      const removed = await of();
      assert.deepEqual([removed.files.sort(), removed.removed], [["fork.txt", "hello.txt", "mine.txt"], 1]);
      // The other fork, untouched, is as it was.
      assert.deepEqual((await compare(s, id)).find((c) => c.id !== f.id)!.files, ["fork.txt"]);
    });
  });
});
