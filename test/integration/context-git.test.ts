/**
 * The git a send runs for its mentions (`@diff`, `@staged`, `@file:` globs' file list), in real
 * Neovim with real git: none of the programs a repository's own config names runs (fsmonitor,
 * filters, hooks), it reads only the project folder (whatever work tree the config names), and a
 * git that does not answer is stopped at `context_git_timeout` with a message, the input keeping
 * the text, Neovim free again.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, closeSync, constants, existsSync, mkdtempSync, openSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterEach, describe, inject, it } from "vitest";
import { bodies, body, exchange, textOf, typeAndSend } from "../helpers/chat-driver.ts";
import { gitIn, gitProcessesIn, gitProject } from "../helpers/git-project.ts";
import { type Session, withNeovim } from "../helpers/neovim.ts";
import { transcript } from "../helpers/transcripts.ts";

const nv = inject("nvim");

/** The texts of the last request's trailing user message. */
const trailing = (s: Session) => {
  const last = body(s, -1).messages.at(-1)!;
  assert.equal(last.role, "user");
  return (typeof last.content === "string" ? [last.content] : last.content.map((b) => textOf(b) ?? b.type)) as string[];
};

/** Writes an executable shell script. */
function script(path: string, text: string): string {
  writeFileSync(path, `#!/bin/sh\n${text}\n`);
  chmodSync(path, 0o755);
  return path;
}

const SECRET = "OUTSIDE-SECRET-MARK";

/** Folders outside every project; removed after the test. */
const outsides: string[] = [];
afterEach(() => {
  for (const dir of outsides.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * A folder outside the project holding `secret.txt`, and an entry for it in the project's index
 * under `indexPath` (its staged text "old"): a diff of the work tree that reads it prints the secret.
 */
function outsideSecret(project: string, indexPath: (outside: string) => string): string {
  const outside = realpathSync(mkdtempSync(join(tmpdir(), "tine-outside-")));
  outsides.push(outside);
  writeFileSync(join(outside, "secret.txt"), `${SECRET}\n`);
  const blob = execFileSync("git", ["hash-object", "-w", "--stdin"], { cwd: project, input: "old\n", encoding: "utf8" }).trim();
  gitIn(project, "update-index", "--add", "--cacheinfo", `100644,${blob},${indexPath(outside)}`);
  return outside;
}

/** Lets a process waiting to read FIFO `path` go on (it reads its end); false when none waits. */
function letReaderGo(path: string): boolean {
  try {
    closeSync(openSync(path, constants.O_WRONLY | constants.O_NONBLOCK));
    return true;
  } catch {
    return false;
  }
}

describe(`git run by a send (${nv.version})`, () => {
  it("@diff, @staged and @file: run none of the repository's programs: no fsmonitor, clean filter or hook", async () => {
    await withNeovim(nv, async (s) => {
      gitProject(s.cwd, { "a.txt": "one\n", ".gitattributes": "*.txt filter=mark\n" });
      const ran = join(s.cwd, ".git", "ran");
      // The fsmonitor would also never exit: a send that ran it would hang.
      gitIn(s.cwd, "config", "core.fsmonitor", script(join(s.cwd, ".git", "fsmonitor.sh"), `echo fsmonitor >> '${ran}'\nexec sleep 600`));
      gitIn(s.cwd, "config", "filter.mark.clean", `sh -c 'echo clean-filter >> "${ran}"; cat'`);
      gitIn(s.cwd, "config", "filter.mark.required", "true");
      script(join(s.cwd, ".git", "hooks", "post-index-change"), `echo hook >> '${ran}'`);
      writeFileSync(join(s.cwd, "a.txt"), "one\nUNSTAGED-MARK\n");
      writeFileSync(join(s.cwd, "b.txt"), "STAGED-MARK\n");
      execFileSync("git", ["-c", "core.fsmonitor=", "-c", "core.hooksPath=/dev/null", "-c", "filter.mark.clean=cat", "add", "b.txt"], {
        cwd: s.cwd,
      });
      assert.equal(existsSync(ran), false, "set up without running them");
      await s.cmd("Tine");
      const t = (await s.threads())[0]!;
      await exchange(s, t.id, "review @diff, @staged and @file:*.txt", "Reviewed.");
      const [unstaged, staged, a, b] = trailing(s);
      assert.match(unstaged!, /^<context kind="git-diff" mention="@diff">[\s\S]*\+UNSTAGED-MARK/);
      assert.match(staged!, /^<context kind="git-diff" mention="@staged">[\s\S]*\+STAGED-MARK/);
      assert.match(a!, /^<context kind="file" path="a.txt"/);
      assert.match(b!, /^<context kind="file" path="b.txt"/);
      assert.equal(existsSync(ran), false, "no program of the repository ran");
    });
  });

  it("a repository whose work tree is outside the project (core.worktree): @diff, @diff:<rev> and @staged are refused, nothing of it is sent", async () => {
    await withNeovim(
      nv,
      async (s) => {
        gitProject(s.cwd, { "a.txt": "one\n" });
        const outside = outsideSecret(s.cwd, () => "secret.txt");
        gitIn(s.cwd, "config", "core.worktree", outside);
        await s.cmd("Tine");
        const t = (await s.threads())[0]!;
        await exchange(s, t.id, "hello", "Hi.");
        for (const mention of ["@diff", "@diff:HEAD", "@staged"]) {
          const text = `review ${mention}`;
          await typeAndSend(s, text);
          const told = await s.notified(new RegExp(`tine: ${mention}: .*work tree`));
          assert.match(told, new RegExp(`work tree \\(${outside}\\) is neither the project folder \\(.*\\) nor a folder above it`));
          assert.deepEqual(await s.lines(t.input_bufnr!), [text], "the input keeps the text");
        }
        assert.equal(s.mock.requests.length, 1, "nothing more was sent");
        assert.ok(!JSON.stringify(bodies(s)).includes(SECRET), "no request carries the outside file");
        assert.ok(!transcript(s.cwd, t.id).includes(SECRET), "the transcript does not hold it");
      },
      { setup: { snapshots: false } },
    );
  });

  it("a work tree above the project (core.worktree=/): @diff holds the project's changes only, named as in the project", async () => {
    await withNeovim(
      nv,
      async (s) => {
        gitProject(s.cwd, { "a.txt": "one\n" });
        // Index paths are relative to the work tree: here, to /.
        const project = relative("/", realpathSync(s.cwd));
        outsideSecret(s.cwd, (outside) => relative("/", join(outside, "secret.txt")));
        const blob = execFileSync("git", ["hash-object", "-w", "--stdin"], { cwd: s.cwd, input: "one\n", encoding: "utf8" }).trim();
        gitIn(s.cwd, "update-index", "--add", "--cacheinfo", `100644,${blob},${project}/a.txt`);
        gitIn(s.cwd, "config", "core.worktree", "/");
        writeFileSync(join(s.cwd, "a.txt"), "one\nPROJECT-CHANGE\n");
        await s.cmd("Tine");
        const t = (await s.threads())[0]!;
        await exchange(s, t.id, "review @diff", "Reviewed.");
        const [diff] = trailing(s);
        assert.match(diff!, /^<context kind="git-diff" mention="@diff">\ndiff --git a\/a\.txt b\/a\.txt\n[\s\S]*\+PROJECT-CHANGE/);
        assert.ok(!JSON.stringify(bodies(s)).includes(SECRET), "no request carries the outside file");
        assert.ok(!transcript(s.cwd, t.id).includes(SECRET), "the transcript does not hold it");
      },
      { setup: { snapshots: false } },
    );
  });

  it("a git that never answers is stopped at context_git_timeout: the user is told, the input keeps the text, Neovim goes on", async () => {
    await withNeovim(
      nv,
      async (s) => {
        gitProject(s.cwd, { "a.txt": "one\n" });
        await s.cmd("Tine");
        const t = (await s.threads())[0]!;
        // An include git opens as it reads the config: a FIFO blocks every git of the repository.
        const fifo = join(s.cwd, ".git", "blocking");
        execFileSync("mkfifo", [fifo]);
        gitIn(s.cwd, "config", "include.path", fifo);
        try {
          for (const [text, what] of [
            ["review @diff", /tine: @diff: git did not answer within 0\.5 s \(context_git_timeout\) and was stopped: nothing was sent/],
            ["read @file:*.txt", /tine: @file:\*\.txt: git did not answer within 0\.5 s \(context_git_timeout\) and was stopped/],
          ] as const) {
            await typeAndSend(s, text);
            await s.notified(what);
            assert.deepEqual(await s.lines(t.input_bufnr!), [text], "the input keeps the text");
            assert.equal(await s.lua("return 1 + 1"), 2, "Neovim answers");
          }
          assert.equal(s.mock.requests.length, 0, "nothing was sent");
          await s.until("the gits stopped", async () => gitProcessesIn(s.cwd).length === 0);
        } finally {
          // Whatever still waits on the FIFO (were the test to fail) reads its end and goes on.
          for (let i = 0; i < 50 && letReaderGo(fifo); i++) await new Promise((r) => setTimeout(r, 20));
        }
      },
      { setup: { context_git_timeout: 0.5, snapshots: false } },
    );
  });
});
