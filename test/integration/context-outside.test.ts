/**
 * Mentions of files that lead outside the project through a symbolic link, in real Neovim against
 * the HTTP mock: a path named alone waits for the user's yes (as get_file's reads outside do), a
 * glob leaves such a link out, a followed file turned into one stops being followed; what was not
 * approved reaches neither a request nor the transcript on disk.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, inject, it } from "vitest";
import { bodies, body, exchange, textOf, typeAndSend } from "../helpers/chat-driver.ts";
import { gitProject } from "../helpers/git-project.ts";
import { type Session, withNeovim } from "../helpers/neovim.ts";
import { transcript } from "../helpers/transcripts.ts";

const nv = inject("nvim");

const SECRET = "OUTSIDE-SECRET-MARK";

/** A folder outside every project holding `secret.txt`; removed after the test. */
const outsides: string[] = [];
afterEach(() => {
  for (const dir of outsides.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function outsideFile(): string {
  const dir = mkdtempSync(join(tmpdir(), "tine-outside-"));
  outsides.push(dir);
  const path = join(dir, "secret.txt");
  writeFileSync(path, `${SECRET}\n`);
  return path;
}

/** The texts of the last request's trailing user message. */
const trailing = (s: Session) => {
  const last = body(s, -1).messages.at(-1)!;
  assert.equal(last.role, "user");
  return (typeof last.content === "string" ? [last.content] : last.content.map((b) => textOf(b) ?? b.type)) as string[];
};

/** Everything tine sent the mock, and the thread's transcript on disk: neither may hold the secret. */
function assertNeverSent(s: Session, id: string) {
  assert.ok(!JSON.stringify(bodies(s)).includes(SECRET), "no request carries the outside file");
  assert.ok(!transcript(s.cwd, id).includes(SECRET), "the transcript does not hold it");
}

/** From now on vim.fn.confirm answers choice `n` and keeps each question in `_G.tine_questions`. */
const answerConfirm = (s: Session, n: number) =>
  s.lua(
    "local n = ...; _G.tine_questions = _G.tine_questions or {}; vim.fn.confirm = function(q) table.insert(_G.tine_questions, q); return n end",
    n,
  );
const questions = (s: Session) => s.lua<string[]>("return _G.tine_questions or {}");

describe(`mentions of files outside the project (${nv.version})`, () => {
  it("@file: through a link out of the project asks first: refused, nothing is sent or stored; approved, it goes once and is not followed", async () => {
    await withNeovim(nv, async (s) => {
      const secret = outsideFile();
      symlinkSync(secret, join(s.cwd, "link.txt"));
      await s.cmd("Tine");
      const t = (await s.threads())[0]!;
      await answerConfirm(s, 2);
      await typeAndSend(s, "read @file:link.txt");
      await s.notified(/tine: not sent: .*link\.txt/);
      const [question] = await questions(s);
      assert.match(question!, /link\.txt leads outside the project/);
      assert.ok(question!.includes(secret), "the question names where the link leads");
      assert.deepEqual(await s.lines(t.input_bufnr!), ["read @file:link.txt"], "the input keeps the text");
      assert.equal(s.mock.requests.length, 0, "nothing was sent");
      await s.setLines(t.input_bufnr!, []);
      await exchange(s, t.id, "hello", "Hi.");
      assertNeverSent(s, t.id);

      await answerConfirm(s, 1);
      await exchange(s, t.id, "read @file:link.txt", "Read it.");
      assert.equal((await questions(s)).length, 2, "asked again");
      assert.match(trailing(s)[0]!, new RegExp(`^<context kind="file" path="link.txt"[^>]*>\\n${SECRET}\\n`));
      // Approved for that message only: it is not followed into later ones.
      writeFileSync(secret, "CHANGED-OUTSIDE\n");
      await exchange(s, t.id, "and now?", "Nothing new.");
      const [dropped, text] = trailing(s);
      assert.equal(text, "and now?");
      assert.match(dropped!, /^<context kind="unfollow" path="link.txt" why="[^"]*outside the project/);
      assert.ok(!JSON.stringify(body(s, -1)).includes("CHANGED-OUTSIDE"));
      await s.notified(/link\.txt is no longer followed: it leads outside the project/);
    });
  });

  it("a glob leaves out a link that leads outside the project and says so", async () => {
    await withNeovim(nv, async (s) => {
      gitProject(s.cwd, { "a.txt": "INSIDE-MARK\n" });
      symlinkSync(outsideFile(), join(s.cwd, "link.txt"));
      await s.cmd("Tine");
      const t = (await s.threads())[0]!;
      await exchange(s, t.id, "read @file:*.txt", "Read them.");
      await s.notified(/tine: @file:\*\.txt: left out link\.txt: it leads outside the project/);
      const sent = trailing(s);
      assert.match(sent[0]!, /^<context kind="file" path="a.txt"[^>]*>\nINSIDE-MARK\n/);
      assert.ok(!sent.some((b) => b.includes('path="link.txt"')));
      assertNeverSent(s, t.id);
      // A glob that finds only such links sends nothing.
      await typeAndSend(s, "read @file:link*");
      await s.notified(/tine: @file:link\*: matches only files that lead outside the project \(link\.txt\)/);
      assert.deepEqual(await s.lines(t.input_bufnr!), ["read @file:link*"]);
    });
  });

  it("a followed file replaced by a link out of the project is not sent: it stops being followed, and the user is told", async () => {
    await withNeovim(nv, async (s) => {
      const secret = outsideFile();
      writeFileSync(join(s.cwd, "notes.txt"), "NOTES-MARK\n");
      await s.cmd("Tine");
      const t = (await s.threads())[0]!;
      await exchange(s, t.id, "follow @file:notes.txt", "Following.");
      await s.waitForDisplay(t.id, "📎 Following notes.txt");
      unlinkSync(join(s.cwd, "notes.txt"));
      symlinkSync(secret, join(s.cwd, "notes.txt"));
      await exchange(s, t.id, "and now?", "Gone.");
      const [dropped, text] = trailing(s);
      assert.equal(text, "and now?");
      assert.match(dropped!, /^<context kind="unfollow" path="notes.txt" why="[^"]*outside the project/);
      await s.notified(/notes\.txt is no longer followed: it leads outside the project/);
      await s.until("the context line gone", async () => !(await s.display(t.id)).includes("📎 Following"));
      assertNeverSent(s, t.id);
    });
  });
});
