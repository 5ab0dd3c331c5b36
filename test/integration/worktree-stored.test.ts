/**
 * A transcript's header is a file: the worktree it names is used only when it is one tine made for
 * this project (node/worktree/stored-folder.ts). In real Neovim, real git and real files: a thread
 * whose header names a folder outside (one holding a secret, one not there yet) works in the
 * project's folder instead, so `@file:` of that folder asks first and nothing is made there; the
 * conversation still opens, and the user is told once, the stored folder named.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, inject, it } from "vitest";
import { projectKey } from "../../node/core/project-key.ts";
import { typeAndSend } from "../helpers/chat-driver.ts";
import { editingTurn, SETUP, withGitProject } from "../helpers/code-session.ts";
import { tempProjects, withNeovim } from "../helpers/neovim.ts";
import { headerLine } from "../helpers/stored-header.ts";
import { transcript } from "../helpers/transcripts.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");
const project = tempProjects();

const SECRET = "STORED-WORKTREE-SECRET";

const outsides: string[] = [];
afterEach(() => {
  for (const dir of outsides.splice(0)) rmSync(dir, { recursive: true, force: true });
});
/** A folder outside the project and its data folder; removed after the test. */
function outsideFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), "tine-stored-tree-"));
  outsides.push(dir);
  return dir;
}

/** The one project folder of the store under `cwd`. */
function storeDir(cwd: string): string {
  const root = join(cwd, ".data", "nvim", "tine", "projects");
  const [only] = readdirSync(root);
  return join(root, only!);
}

const append = (role: "user" | "assistant", text: string) =>
  JSON.stringify({
    t: "append",
    m: { role, content: [{ type: "text", text }] },
    ...(role === "assistant"
      ? {
          meta: {
            stopReason: "end_turn",
            usage: { input_tokens: 1, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
          },
        }
      : {}),
  });

/** A transcript as a hand (or another program) wrote it: a header naming worktree `path`, and one exchange. */
function writeThread(cwd: string, id: string, num: number, title: string, worktree: { path: string; base: string }): void {
  const lines = [
    headerLine({ id, num, title, cwd, created: num, worktree }),
    append("user", `${title} q`),
    append("assistant", `${title} a`),
  ];
  writeFileSync(join(storeDir(cwd), `${id}.jsonl`), `${lines.join("\n")}\n`, { mode: 0o600 });
}

/** From now on vim.fn.confirm answers choice `n` and keeps each question in `_G.tine_questions`. */
const answerConfirm = (s: { lua: (code: string, ...args: unknown[]) => Promise<unknown> }, n: number) =>
  s.lua(
    "local n = ...; _G.tine_questions = _G.tine_questions or {}; vim.fn.confirm = function(q) table.insert(_G.tine_questions, q); return n end",
    n,
  );

describe(`a stored worktree tine did not make (${nv.version})`, () => {
  it("the thread opens in the project's folder: @file: of the stored folder asks, a missing one is not made, the user is told once", async () => {
    const cwd = project();
    // A real snapshot of this project (a header's worktree is made again from it when missing).
    let base = "";
    await withGitProject(nv, cwd, async (s) => {
      const id = await editingTurn(s);
      const code = transcript(s.cwd, id)
        .split("\n")
        .find((l) => l.includes('"t":"code"'));
      base = (JSON.parse(code!) as { id: string }).id;
    });
    const secretFolder = outsideFolder();
    writeFileSync(join(secretFolder, "secret.txt"), `${SECRET}\n`);
    const missing = join(outsideFolder(), "made", "here");
    writeThread(cwd, "thread-secret", 7, "secret tree", { path: secretFolder, base });
    writeThread(cwd, "thread-missing", 8, "missing tree", { path: missing, base });

    await withNeovim(
      nv,
      async (s) => {
        await s.openList();
        await s.open("thread-secret");
        await s.waitForDisplay("thread-secret", "secret tree a");
        assert.equal((await s.thread("thread-secret")).cwd, s.cwd, "it works in the project's folder");
        await answerConfirm(s, 2);
        await typeAndSend(s, `read @file:${secretFolder}/secret.txt`);
        await s.notified(/tine: not sent: .*secret\.txt/);
        const questions = await s.lua<string[]>("return _G.tine_questions or {}");
        assert.equal(questions.length, 1, "asked before sending");
        assert.ok(questions[0]!.includes(`${secretFolder}/secret.txt`), questions[0]);
        assert.equal(s.mock.requests.length, 0, "nothing was sent");
        assert.ok(!transcript(s.cwd, "thread-secret").includes(SECRET), "the transcript does not hold it");

        // A turn whose tool writes a file: its snapshots and its tool are the project folder's.
        await s.open("thread-missing");
        await s.waitForDisplay("thread-missing", "missing tree a");
        assert.equal((await s.thread("thread-missing")).cwd, s.cwd);
        s.mock.reply(
          response([{ toolUse: { id: "b1", name: "bash_command", input: { command: "printf x > made.txt" } } }]),
          textReply("Made."),
        );
        await typeAndSend(s, "make a file");
        await s.waitForDisplay("thread-missing", "▸ 1 file changed");
        assert.ok(!existsSync(missing) && !existsSync(dirname(missing)), "nothing was made at the stored folder");
        assert.equal(readFileSync(join(s.cwd, "made.txt"), "utf8"), "x");

        // Told once each, the stored folder named.
        const worktrees = join(cwd, ".data", "nvim", "tine", "worktrees", projectKey(await s.lua<string>("return vim.fn.getcwd()")));
        const why = `it is not a worktree tine made for this project (those are in ${worktrees}) (:help tine-trust)`;
        const told = (await s.notifications()).map((n) => n.msg).filter((m) => /not in its stored worktree/.test(m));
        assert.deepEqual(told, [
          `tine: secret tree: works in the project's folder, not in its stored worktree "${secretFolder}": ${why}`,
          `tine: missing tree: works in the project's folder, not in its stored worktree "${missing}": ${why}`,
        ]);
        // The list shows no worktree for them.
        assert.ok(!(await s.listText()).includes("⎇"), await s.listText());
      },
      { cwd, setup: SETUP },
    );
  });
});
