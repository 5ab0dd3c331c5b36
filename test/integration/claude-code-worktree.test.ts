/**
 * A `[claude]` thread forked into a git worktree of its own, with the real Claude Code CLI against
 * the mock: its session is copied under a new id into the folder Claude Code uses for the
 * worktree and resumed there (its tools edit the worktree, not the user's tree), once the source
 * session is between turns (waiting meanwhile as a `--wait` fork does); the source's transcript and
 * the user's repository stay as they were. Promoted, such a fork's code is merged into the user's
 * tree (its conversation stays in its session); discarded, its worktree goes.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, inject, it } from "vitest";
import { encodeProject } from "../../node/claude-code/project.ts";
import { claudeEnv, cliEnv, requireClaude, saidIn, stopTerminals, typeInTerminal, waitForCliPrompt } from "../helpers/claude-code.ts";
import { untouched } from "../helpers/code-session.ts";
import { gitProject, userGitState } from "../helpers/git-project.ts";
import { type Session, withNeovim, withProject } from "../helpers/neovim.ts";
import { type Reply, response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");

/** The records of a transcript (a line cut mid-write left out). */
const records = (path: string): { type?: string; subtype?: string; sessionId?: string }[] =>
  readFileSync(path, "utf8")
    .split("\n")
    .flatMap((l) => {
      try {
        return [JSON.parse(l)];
      } catch {
        return [];
      }
    });

/** The record Claude Code writes when a turn ends. */
const isTurnEnd = (r: { type?: string; subtype?: string }) => r.type === "system" && r.subtype === "turn_duration";

/**
 * A git project with a `[claude]` thread in it (the real CLI, edits accepted without asking),
 * its first prompt typed and its request made (answered with `first`); the user's repository is
 * checked after: its index, refs and HEAD as they were, its files too but for `gained` (the
 * `git status --porcelain` lines the test brings into it).
 */
async function withClaudeThread(
  setup: Record<string, unknown>,
  first: Reply,
  fn: (s: Session, t: { id: string; bufnr: number; sessionId: string; transcript: string; config: string }) => Promise<void>,
  gained = "",
): Promise<void> {
  const bin = requireClaude();
  await withProject(async (cwd) => {
    gitProject(cwd, { "hello.txt": "hello\n" });
    const config = join(cwd, ".claude-config");
    // Trusted: the project, and so the worktrees made under it (.data, git-ignored).
    claudeEnv(config, "http://unused", realpathSync(cwd));
    const before = userGitState(cwd);
    await withNeovim(
      nv,
      async (s) => {
        s.mock.reply(first);
        await s.cmd("Tine claude");
        const source = (await s.threads())[0]!;
        await waitForCliPrompt(s, source.bufnr!);
        await typeInTerminal(s, source.bufnr!, "hello from the terminal");
        await s.until("the first request", async () => s.mock.requests.length >= 1, 30_000);
        const sessionId = String(s.mock.requests[0]!.headers["x-claude-code-session-id"]);
        const transcript = join(config, "projects", encodeProject(cwd), `${sessionId}.jsonl`);
        await fn(s, { id: source.id, bufnr: source.bufnr!, sessionId, transcript, config });
        await stopTerminals(s);
        await s.until("every CLI exited", async () => (await s.threads()).every((t) => t.status === "exited"), 10_000);
      },
      {
        cwd,
        setup: { claude_command: [bin, "--permission-mode", "acceptEdits"], ...setup },
        // A worktree is a git repository of its own: Claude Code asks to trust it (trust given to a
        // folder stops at a repository's top). A user answers once per worktree; the tests skip it.
        env: { ...cliEnv, CLAUDE_CODE_SANDBOXED: "1" },
      },
    );
    assert.deepEqual(untouched(userGitState(cwd)), untouched(before));
    assert.equal(userGitState(cwd).status, before.status + gained);
  });
}

/** A worktree fork of `source` whose CLI writes `file` (Write) and ends its turn, seen idle in the list; its id, folder, terminal and session file. */
async function forkWriting(s: Session, source: { id: string; config: string }, file: string) {
  s.mock.reply(
    response([
      {
        toolUse: {
          id: `toolu_${file.replace(".", "_")}`,
          name: "Write",
          input: { file_path: file, content: `${file} from the fork\n` },
        },
      },
    ]),
    textReply("Wrote it."),
  );
  const id = await s.lua<string>(`return require("tine").fork(..., "write ${file}", { worktree = true })`, source.id);
  // Made at once, or once its source is seen between turns (its transcript is polled).
  // Its buffers open just after it is listed: both are waited for.
  await s.until("the fork and its buffers", async () => (await s.threads()).some((t) => t.id === id && t.bufnr !== null), 30_000);
  const fork = await s.thread(id);
  const tree = fork.cwd as string;
  const sessions = join(source.config, "projects", encodeProject(tree));
  const session = () => join(sessions, readdirSync(sessions).find((f) => f.endsWith(".jsonl"))!);
  // Its copy holds the source's turn end; its own follows the Write.
  await s.until(
    "the fork's turn to end",
    async () => existsSync(join(tree, file)) && existsSync(sessions) && records(session()).filter(isTurnEnd).length >= 2,
    30_000,
  );
  // A promote waits for the session to be seen between turns: the list says when it is.
  await s.openList();
  await s.until(
    "the fork's session idle in the list",
    async () => {
      const title = (await s.thread(id)).title;
      return (await s.listLines()).some((l) => l.includes(title) && l.includes("(idle)"));
    },
    30_000,
  );
  return { id, tree, bufnr: fork.bufnr!, session: session() };
}

describe(`Claude Code threads forked into a worktree (${nv.version})`, () => {
  it("fork(id, prompt, { worktree = true }): the session goes on in the worktree under a new id, with its history; its Write lands there, not in the user's tree", async () => {
    await withClaudeThread({}, textReply("Hi from the mock."), async (s, source) => {
      await s.until(
        "the turn's end in the transcript",
        async () => existsSync(source.transcript) && records(source.transcript).some(isTurnEnd),
        30_000,
      );
      const before = readFileSync(source.transcript);

      s.mock.reply(
        response([{ toolUse: { id: "toolu_w1", name: "Write", input: { file_path: "forked.txt", content: "from the fork\n" } } }]),
        textReply("Wrote it."),
      );
      const forkId = await s.lua<string>(`return require("tine").fork(..., "write forked.txt", { worktree = true })`, source.id);
      await s.until("the fork's requests", async () => s.mock.requests.length >= 3, 30_000);
      const fork = await s.thread(forkId);
      const tree = fork.cwd as string;
      assert.notEqual(tree, s.cwd);
      assert.ok(tree.startsWith(join(s.cwd, ".data")), tree);

      // Its first request: the new session's id, the source's conversation, then its prompt.
      const first = s.mock.requests[1]!;
      const newId = String(first.headers["x-claude-code-session-id"]);
      assert.match(newId, /^[0-9a-f-]{36}$/);
      assert.notEqual(newId, source.sessionId);
      const said = saidIn(first.body);
      const at = (text: string) => said.findIndex((t) => t.includes(text));
      assert.ok(at("hello from the terminal") >= 0 && at("Hi from the mock.") > at("hello from the terminal"), said.join(" | "));
      assert.ok(at("write forked.txt") > at("Hi from the mock."), said.join(" | "));

      // Its transcript: in the worktree's project folder, under the new id, naming no other session.
      const copy = join(source.config, "projects", encodeProject(tree), `${newId}.jsonl`);
      assert.ok(existsSync(copy), copy);
      const ids = new Set(records(copy).flatMap((r) => (r.sessionId ? [r.sessionId] : [])));
      assert.deepEqual([...ids], [newId]);
      assert.ok(!readFileSync(copy, "utf8").includes(`"sessionId":"${source.sessionId}"`));

      // Its tool wrote in the worktree; the user's tree has no such file.
      await s.until("the file written", async () => existsSync(join(tree, "forked.txt")), 30_000);
      assert.equal(readFileSync(join(tree, "forked.txt"), "utf8"), "from the fork\n");
      assert.equal(existsSync(join(s.cwd, "forked.txt")), false);
      // The source's own CLI may append to its transcript at any time (a last-prompt record); the
      // fork never writes there: what was written stays, and nothing of the fork is added.
      const after = readFileSync(source.transcript);
      assert.deepEqual(after.subarray(0, before.length), before, "the source's transcript keeps its bytes");
      const added = after.subarray(before.length).toString("utf8");
      assert.ok(!added.includes(newId) && !added.includes("write forked.txt"), `the fork wrote to the source's transcript: ${added}`);

      // The list says where it works.
      await s.openList();
      const data = await s.lua<string>("return require('tine.config').options.data_dir");
      await s.listLine(`⎇ ${relative(data, tree)}`, 10_000);
    });
  });

  it("a fork (fork_worktree = always) asked while the source's turn runs is made when that turn ends, holding the whole turn", async () => {
    const held = response([{ text: "The whole reply.", holdInside: { hold: "h", afterDeltas: 1 } }]);
    await withClaudeThread({ fork_worktree: "always" }, held, async (s, source) => {
      await s.mock.reached("h");
      await s.openList();
      await s.listLine("▷ running (busy)", 30_000);
      const forkOf = () => s.lua<string | null>(`return require("tine").fork(..., "")`, source.id);
      const waiting = "⑂ ⏸ fork waits for this reply to finish (<C-c> cancels)";
      // Listed as a --wait fork is; asking again cancels it, as it does one.
      await forkOf();
      await s.notified(/made in its own worktree once its turn ends/);
      await s.listLine(waiting);
      assert.equal(await forkOf(), null);
      await s.notified(/the fork waiting for .* is cancelled/);
      await s.until("the waiting line gone", async () => !(await s.listText()).includes(waiting));
      const forkId = (await forkOf())!;
      await s.listLine(waiting);
      assert.equal((await s.threads()).length, 1, "no fork while the turn runs");

      s.mock.release("h");
      await s.until("the fork", async () => (await s.threads()).some((t) => t.id === forkId), 30_000);
      assert.equal((await s.threads()).length, 2, "the cancelled fork is never made");
      await s.until("the waiting line gone", async () => !(await s.listText()).includes(waiting));
      const fork = await s.thread(forkId);
      assert.ok((fork.cwd as string).startsWith(join(s.cwd, ".data")), String(fork.cwd));
      // Its copy of the session holds the turn the source finished, to its end.
      const copies = join(source.config, "projects", encodeProject(fork.cwd as string));
      const copy = records(join(copies, readdirSync(copies).find((f) => f.endsWith(".jsonl"))!));
      assert.ok(copy.some(isTurnEnd));
      assert.ok(JSON.stringify(copy).includes("The whole reply."));
    });
  });

  it("promote merges the fork's code into the user's tree, its conversation left in its session; discard removes another's worktree, saying how many changed files go", async () => {
    await withClaudeThread(
      {},
      textReply("Hi from the mock."),
      async (s, source) => {
        await s.until("the turn's end", async () => existsSync(source.transcript) && records(source.transcript).some(isTurnEnd), 30_000);
        const gone = (bufnr: number) =>
          s.until("its terminal closed", async () => !(await s.lua<boolean>("return vim.api.nvim_buf_is_valid(...)", bufnr)));

        const kept = await forkWriting(s, source, "kept.txt");
        assert.equal(existsSync(join(s.cwd, "kept.txt")), false);
        await s.lua(`require("tine").promote(...)`, kept.id);
        await s.notified(/was promoted into .* by its code: its conversation stays in its own Claude Code session/);
        await s.notified(/its code is merged: 1 file changed/);
        assert.equal(readFileSync(join(s.cwd, "kept.txt"), "utf8"), "kept.txt from the fork\n");
        await s.waitForGone(kept.id);
        await gone(kept.bufnr);
        assert.equal(existsSync(kept.tree), false, "a clean merge removes the worktree");
        assert.ok(existsSync(kept.session), "its session file stays");
        assert.deepEqual(
          (await s.threads()).map((t) => t.id),
          [source.id],
        );

        const dropped = await forkWriting(s, source, "dropped.txt");
        await s.lua(`require("tine").discard(...)`, dropped.id);
        await s.notified(/its worktree is removed with 1 changed file /);
        await s.until("the worktree removed", async () => !existsSync(dropped.tree));
        await gone(dropped.bufnr);
        assert.equal(existsSync(join(s.cwd, "dropped.txt")), false);
      },
      "?? kept.txt\n",
    );
  });

  it("a graft from a fork into the Claude Code thread's files is made; the user is told that Claude Code is not told", async () => {
    await withClaudeThread(
      {},
      textReply("Hi from the mock."),
      async (s, source) => {
        await s.until("the turn's end", async () => existsSync(source.transcript) && records(source.transcript).some(isTurnEnd), 30_000);
        const fork = await forkWriting(s, source, "grafted.txt");
        const requests = s.mock.requests.length;
        assert.deepEqual(await s.lua(`return require("tine").graft(...)`, fork.id, "grafted.txt"), { path: "grafted.txt", conflicts: 0 });
        assert.equal(readFileSync(join(s.cwd, "grafted.txt"), "utf8"), "grafted.txt from the fork\n");
        const title = (await s.thread(source.id)).title;
        await s.notified(
          new RegExp(
            `^tine: grafted grafted\\.txt from ".*" \\(:Tine restore undo puts it back\\)\\. "${title}" runs in its own Claude Code session, which is not told \\(tine does not send its messages\\): tell it$`,
          ),
        );
        // Nothing is sent or typed for it: the fork lives on, the source's session is as it was.
        assert.equal(s.mock.requests.length, requests);
        assert.ok((await s.threads()).some((t) => t.id === fork.id));
      },
      "?? grafted.txt\n",
    );
  });
});
