/**
 * The project's first snapshot (every file hashed: seconds in a large repository) is begun in
 * the background at a thread's first send, while the reply streams, so the first turn's tools
 * do not wait for it: their own snapshot only adds what changed since.
 */
import assert from "node:assert/strict";
import { describe, inject, it } from "vitest";
import { typeAndSend } from "../helpers/chat-driver.ts";
import { snapshotStore, storeGit, withGitProject } from "../helpers/code-session.ts";
import { tempProjects } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");
const project = tempProjects();

/** The files tine's private snapshot index holds for the project (none before its first snapshot). */
const indexed = (cwd: string): string[] => (snapshotStore(cwd) ? storeGit(cwd, "ls-files").split("\n").filter(Boolean) : []);

describe(`the first snapshot (${nv.version})`, () => {
  it("is begun at the first send, while the reply streams, before any tool asks for one", async () => {
    await withGitProject(nv, project(), async (s) => {
      s.mock.reply(
        response([
          { text: "Let me edit it." },
          { hold: "before-tool" },
          { toolUse: { id: "e1", name: "edit_file", input: { path: "hello.txt", find: "hello", replace: "goodbye" } } },
        ]),
        textReply("Done."),
      );
      await s.cmd("Tine");
      const id = (await s.threads())[0]!.id;
      await typeAndSend(s, "edit hello");
      await s.mock.reached("before-tool");
      // No tool has run and none is known yet: only the send can have begun it.
      await s.until("the project's files in the snapshot index", async () => indexed(s.cwd).includes("hello.txt"));
      assert.deepEqual(indexed(s.cwd).sort(), [".gitignore", "hello.txt"]);
      s.mock.release("before-tool");
      await s.waitForDisplay(id, "▸ 1 file changed (+1 −1)");
    });
  });
});
