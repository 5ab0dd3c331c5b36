/**
 * Mentions as a user sends them (`@file:`, `@buf`, `@bufs`, `@diag`, `@qf`, `@diff`, `@staged`,
 * `@drop:`) and the files followed, in real Neovim against the HTTP mock: what each request
 * carries, what the display shows, and that earlier messages never change.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { readsCacheOf } from "../helpers/cache-prefix.ts";
import { bodies, body, exchange, textOf, typeAndSend } from "../helpers/chat-driver.ts";
import { type Session, withNeovim } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";
import { errorReply } from "../mock-anthropic/server.ts";

const nv = inject("nvim");

/** The texts of the last request's trailing user message. */
const trailing = (s: Session) => {
  const last = body(s, -1).messages.at(-1)!;
  assert.equal(last.role, "user");
  return (typeof last.content === "string" ? [last.content] : last.content.map((b) => textOf(b) ?? b.type)) as string[];
};

/** How often `needle` occurs in request `i` (all of it: system, messages). */
const occurrences = (s: Session, i: number, needle: string) =>
  JSON.stringify(body(s, i)).split(JSON.stringify(needle).slice(1, -1)).length - 1;

/** Opens `path` in the user's window (the one left of the sidebar), runs `lua` there, and goes back to the input. */
async function inUserWindow(s: Session, path: string, lua = "") {
  await s.lua(
    `
    local input = vim.api.nvim_get_current_win()
    for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
      if vim.bo[vim.api.nvim_win_get_buf(w)].buftype == "" then vim.api.nvim_set_current_win(w) break end
    end
    vim.cmd.edit(vim.fn.fnameescape(...))
    ${lua}
    vim.api.nvim_set_current_win(input)`,
    path,
  );
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, encoding: "utf8" });

describe(`mentions (${nv.version})`, () => {
  it("@buf (unsaved), @bufs, @diag, @qf and @file: each item once, in the trailing user turn; one line each in the display, <Tab> expands", async () => {
    await withNeovim(nv, async (s) => {
      writeFileSync(join(s.cwd, "a.ts"), "const a = 1;\n\n\n\n\nconst b = a + c;\n");
      writeFileSync(join(s.cwd, "b.ts"), "export const shared = 'B-FILE-MARK';\nlet x = 2;\n");
      await s.cmd("Tine");
      await inUserWindow(
        s,
        "a.ts",
        `vim.api.nvim_buf_set_lines(0, 0, 1, false, { "const a = 'UNSAVED-MARK';" })
        vim.api.nvim_win_set_cursor(0, { 2, 0 })
        vim.diagnostic.set(vim.api.nvim_create_namespace("test"), 0, {
          { lnum = 5, col = 14, severity = vim.diagnostic.severity.ERROR, source = "tsc", message = "DIAG-MARK: Cannot find name 'c'" } })
        vim.fn.setqflist({ { filename = "b.ts", lnum = 2, col = 5, text = "QF-MARK", type = "W" } })`,
      );
      s.mock.reply(textReply("Seen."));
      await typeAndSend(s, "look at @buf, @bufs and @diag, then @qf and @file:b.ts");
      const t = (await s.threads())[0]!;
      await s.waitForDisplay(t.id, "Seen.");
      const sent = trailing(s);
      assert.equal(sent.length, 6, "four items (the buffer once, though @buf and @bufs both name it), @bufs's note and the user's text");
      assert.equal(sent.at(-1), "look at @buf, @bufs and @diag, then @qf and @file:b.ts");
      assert.match(sent[0]!, /^<context kind="buffer" name="a.ts" lines="6" cursor="2" unsaved="true">\nconst a = 'UNSAVED-MARK';\n/);
      assert.match(sent[1]!, /^<context kind="repeat" mention="@bufs" of="\[&quot;a.ts&quot;\]">/);
      assert.match(sent[2]!, /^<context kind="diagnostics" scope="a.ts" count="1">\na\.ts:6:15: error \[tsc\] DIAG-MARK/);
      assert.match(sent[2]!, /> 6 \| const b = a \+ c;/);
      assert.match(sent[3]!, /^<context kind="quickfix" count="1">\nb\.ts:2:5: W: QF-MARK\n {2}> 2 \| let x = 2;/);
      assert.match(sent[4]!, /^<context kind="file" path="b.ts" lines="2">\nexport const shared/);
      for (const mark of ["UNSAVED-MARK", "DIAG-MARK", "QF-MARK", "B-FILE-MARK"]) assert.equal(occurrences(s, -1, mark), 1, mark);
      const shown = await s.display(t.id);
      assert.match(
        shown,
        /## You\n▸ @buf a\.ts \(6 lines, cursor on 2, unsaved\)\n▸ @bufs \(nothing new: a\.ts already included\)\n▸ @diag a\.ts \(1 diagnostic\)\n▸ @qf \(1 entry\)\n▸ @file b\.ts \(2 lines\)\nlook at/,
      );
      assert.match(shown, /📎 Following b\.ts/);
      await s.onDisplayLine(t.id, "▸ @file b.ts", "<Tab>");
      await s.waitForDisplay(t.id, "▾ @file b.ts (2 lines)\n```\nexport const shared = 'B-FILE-MARK';\nlet x = 2;\n```");
    });
  });

  it("@bufs beside @buf, and @buf on a file sent with @file:, send one copy; the display says the other added nothing new", async () => {
    await withNeovim(nv, async (s) => {
      writeFileSync(join(s.cwd, "a.ts"), "const a = 1;\n");
      await s.cmd("Tine");
      await inUserWindow(s, "a.ts", `vim.api.nvim_buf_set_lines(0, 0, 1, false, { "const a = 'ONCE-MARK';" })`);
      const t = (await s.threads())[0]!;
      await exchange(s, t.id, "see @buf and @bufs", "Seen once.");
      let sent = trailing(s);
      assert.equal(sent.length, 3, "the buffer, the note that @bufs added nothing, the text");
      assert.match(sent[0]!, /^<context kind="buffer" name="a.ts"/);
      assert.equal(
        sent[1],
        '<context kind="repeat" mention="@bufs" of="[&quot;a.ts&quot;]">\n(nothing new: a.ts already included)\n</context>',
      );
      assert.equal(sent.join("").split("ONCE-MARK").length - 1, 1, "one copy");
      await s.waitForDisplay(
        t.id,
        /▸ @buf a\.ts \(1 line, cursor on 1, unsaved\)\n▸ @bufs \(nothing new: a\.ts already included\)\nsee @buf and @bufs/,
      );
      // The file's copy goes, whichever is written first: it is the one followed.
      await exchange(s, t.id, "@buf is @file:a.ts", "Seen again.");
      sent = trailing(s);
      assert.equal(sent.length, 3);
      assert.equal(
        sent[0],
        '<context kind="repeat" mention="@buf" of="[&quot;a.ts&quot;]">\n(nothing new: a.ts already included)\n</context>',
      );
      assert.match(sent[1]!, /^<context kind="file" path="a.ts" lines="1" unsaved="true">\nconst a = 'ONCE-MARK';\n/);
      assert.equal(sent.join("").split("ONCE-MARK").length - 1, 1, "one copy");
      await s.waitForDisplay(
        t.id,
        /▸ @buf \(nothing new: a\.ts already included\)\n▸ @file a\.ts \(1 line, unsaved\)\n@buf is @file:a\.ts/,
      );
    });
  });

  it("@diff, @staged and @diff:<rev> in a git repository", async () => {
    await withNeovim(nv, async (s) => {
      git(s.cwd, "init", "-q");
      git(s.cwd, "add", "hello.txt");
      git(s.cwd, "commit", "-qm", "first");
      writeFileSync(join(s.cwd, "hello.txt"), "UNSTAGED-MARK\n");
      writeFileSync(join(s.cwd, "new.txt"), "STAGED-MARK\n");
      git(s.cwd, "add", "new.txt");
      await s.cmd("Tine");
      s.mock.reply(textReply("Reviewed."));
      await typeAndSend(s, "review @diff and @staged and @diff:HEAD");
      await s.waitForDisplay(1, "Reviewed.");
      const [unstaged, staged, rev] = trailing(s);
      assert.match(unstaged!, /^<context kind="git-diff" mention="@diff">\ndiff --git a\/hello.txt b\/hello.txt\n[\s\S]*\+UNSTAGED-MARK/);
      assert.doesNotMatch(unstaged!, /new\.txt/, "@diff is the unstaged changes only");
      assert.match(staged!, /^<context kind="git-diff" mention="@staged">\ndiff --git a\/new.txt b\/new.txt[\s\S]*\+STAGED-MARK/);
      assert.match(rev!, /^<context kind="git-diff" mention="@diff:HEAD">[\s\S]*\+UNSTAGED-MARK[\s\S]*\+STAGED-MARK/);
      await s.waitForDisplay(1, "▸ @diff (1 file)\n▸ @staged (1 file)\n▸ @diff:HEAD (2 files)");
    });
  });

  it("a mention that cannot be resolved keeps the input, sends nothing, and says why", async () => {
    await withNeovim(nv, async (s) => {
      await s.cmd("Tine");
      const t = (await s.threads())[0]!;
      for (const [text, error] of [
        ["read @file:nope.ts please", /tine: @file:nope\.ts: no such file: .*nope\.ts/],
        ["@diff", /tine: @diff: .* is not in a git repository/],
        ["@drop:hello.txt", /tine: @drop:hello\.txt: hello\.txt is not followed/],
      ] as const) {
        await typeAndSend(s, text);
        await s.notified(error);
        assert.deepEqual(await s.lines(t.input_bufnr!), [text], "the input keeps the text");
      }
      assert.equal(s.mock.requests.length, 0, "nothing was sent");
      assert.equal((await s.messages(t.id)).length, 0);
    });
  });

  it("a followed file edited on disk, then in a buffer: a diff in the next request; earlier messages stay byte-identical; @drop: stops it", async () => {
    await withNeovim(nv, async (s) => {
      const lines = Array.from({ length: 30 }, (_, i) => `note ${i}`);
      writeFileSync(join(s.cwd, "notes.txt"), `${lines.join("\n")}\n`);
      await s.cmd("Tine");
      const t = (await s.threads())[0]!;
      await exchange(s, t.id, "keep an eye on @file:notes.txt", "Watching.");
      await s.waitForDisplay(t.id, "📎 Following notes.txt");
      // Nothing changed: nothing of the file goes with the next message.
      await exchange(s, t.id, "still there?", "Yes.");
      assert.deepEqual(trailing(s), ["still there?"]);
      writeFileSync(join(s.cwd, "notes.txt"), `${lines.join("\n").replace("note 12", "note twelve (DISK-EDIT)")}\n`);
      await exchange(s, t.id, "and now?", "Changed on disk.");
      const [onDisk, text] = trailing(s);
      assert.equal(text, "and now?");
      assert.match(onDisk!, /^<context kind="file-diff" path="notes.txt">\n--- a\/notes.txt\n\+\+\+ b\/notes.txt\n@@ [^\n]+\n note 9\n/);
      assert.match(onDisk!, /\n-note 12\n\+note twelve \(DISK-EDIT\)\n/);
      assert.doesNotMatch(onDisk!, /note 0\n/, "a diff, not the file");
      // In a buffer, not saved: the request is made through the Lua API this time.
      await inUserWindow(s, "notes.txt", `vim.api.nvim_buf_set_lines(0, 20, 21, false, { "note twenty (BUFFER-EDIT)" })`);
      s.mock.reply(textReply("Changed in the buffer."));
      await s.lua("require('tine').send(..., 'and in the buffer?')", t.id);
      await s.waitForDisplay(t.id, "Changed in the buffer.");
      const [inBuffer] = trailing(s);
      assert.match(
        inBuffer!,
        /^<context kind="file-diff" path="notes.txt" unsaved="true">\n[\s\S]*\n-note 20\n\+note twenty \(BUFFER-EDIT\)\n/,
      );
      assert.doesNotMatch(inBuffer!, /DISK-EDIT\n\+/, "only what changed since the last copy");
      await s.waitForDisplay(t.id, "▸ @file notes.txt changed (+1 −1, unsaved)");
      await exchange(s, t.id, "@drop:notes.txt", "Dropped.");
      assert.match(trailing(s)[0]!, /^<context kind="unfollow" path="notes.txt" why="dropped with @drop">/);
      await s.until("the context line gone", async () => !(await s.display(t.id)).includes("📎 Following"));
      writeFileSync(join(s.cwd, "notes.txt"), "all different\n");
      await exchange(s, t.id, "last", "Done.");
      assert.deepEqual(trailing(s), ["last"]);
      // Every request reads the one before it from the cache: earlier messages never changed.
      const all = bodies(s);
      for (let i = 1; i < all.length; i++) assert.ok(readsCacheOf(all[i]!, all[i - 1]!), `request ${i} keeps request ${i - 1}'s prefix`);
    });
  });

  it("messages queued while the agent works keep their mentions: when they go as one message, each item goes once", async () => {
    await withNeovim(nv, async (s) => {
      writeFileSync(join(s.cwd, "q.txt"), "QUEUED-FILE-MARK\n");
      s.mock.reply(response([{ text: "Working.", holdInside: { hold: "h", afterDeltas: 1 } }]), textReply("Read both."));
      await s.cmd("Tine");
      const t = (await s.threads())[0]!;
      await typeAndSend(s, "start");
      await s.mock.reached("h");
      await typeAndSend(s, "look at @file:q.txt");
      await s.waitForDisplay(t.id, "⏳ queued: look at @file:q.txt");
      await typeAndSend(s, "and again @file:q.txt");
      await s.waitForDisplay(t.id, "⏳ queued: and again @file:q.txt");
      s.mock.release("h");
      await s.waitForDisplay(t.id, "Read both.");
      assert.equal(bodies(s).length, 2, "the queue went once");
      const [file, ...rest] = trailing(s);
      assert.match(file!, /^<context kind="file" path="q.txt"[^>]*>\nQUEUED-FILE-MARK\n/);
      assert.deepEqual(rest, ["look at @file:q.txt", "and again @file:q.txt"]);
      assert.equal(occurrences(s, 1, "QUEUED-FILE-MARK"), 1);
      await s.waitForDisplay(t.id, "▸ @file q.txt (1 line)");
    });
  });

  it("@fork with a mention: the fork's first request carries the item, the source's none", async () => {
    await withNeovim(nv, async (s) => {
      writeFileSync(join(s.cwd, "f.txt"), "FORK-FILE-MARK\n");
      await s.cmd("Tine");
      const t = (await s.threads())[0]!;
      await exchange(s, t.id, "hello", "Hi.");
      s.mock.reply(textReply("Read it in the fork."));
      await typeAndSend(s, "@fork look at @file:f.txt");
      await s.waitForThreadCount(2);
      const fork = (await s.threads()).find((x) => x.id !== t.id)!;
      await s.waitForDisplay(fork.id, "Read it in the fork.");
      const [file, text] = trailing(s);
      assert.match(file!, /^<context kind="file" path="f.txt"[^>]*>\nFORK-FILE-MARK\n/);
      assert.equal(text, "look at @file:f.txt");
      assert.equal(occurrences(s, 0, "FORK-FILE-MARK"), 0, "the source's request never had it");
    });
  });

  it("after an error, a new send replaces the failed turn's items too; the failed text comes back with its mentions", async () => {
    await withNeovim(nv, async (s) => {
      writeFileSync(join(s.cwd, "spec.md"), "FIRST-COPY\n");
      s.mock.reply(errorReply(400, "invalid_request_error", "prompt is too long"), textReply("Works again."));
      await s.cmd("Tine");
      const t = (await s.threads())[0]!;
      await typeAndSend(s, "read @file:spec.md");
      await s.waitForStatus(t.id, "error");
      writeFileSync(join(s.cwd, "spec.md"), "SECOND-COPY\n");
      await typeAndSend(s, "and what now?");
      await s.waitForDisplay(t.id, "Works again.");
      assert.deepEqual(await s.lines(t.input_bufnr!), ["read @file:spec.md"], "the failed text, without its blocks");
      // The failed turn's copy was never kept: the file is no longer followed, and nothing of it is sent.
      assert.deepEqual(trailing(s), ["and what now?"]);
      assert.equal(occurrences(s, -1, "COPY"), 0);
    });
  });

  it("a fork inherits the files followed, and so does the thread after a restart", async () => {
    await withNeovim(nv, async (s) => {
      writeFileSync(join(s.cwd, "plan.md"), `${Array.from({ length: 20 }, (_, i) => `step ${i}`).join("\n")}\n`);
      await s.cmd("Tine");
      const parent = (await s.threads())[0]!;
      await exchange(s, parent.id, "follow @file:plan.md", "Following.");
      await exchange(s, 2, "@fork try another order", "Forked.");
      await s.waitForDisplay(2, "📎 Following plan.md");
      writeFileSync(
        join(s.cwd, "plan.md"),
        `${Array.from({ length: 20 }, (_, i) => (i === 5 ? "step five (FORK-EDIT)" : `step ${i}`)).join("\n")}\n`,
      );
      await exchange(s, 2, "what changed?", "Step five.");
      assert.match(trailing(s)[0]!, /^<context kind="file-diff" path="plan.md">[\s\S]*\n\+step five \(FORK-EDIT\)\n/);
      await s.cmd("Tine restart");
      await s.open(parent.id);
      await s.waitForDisplay(parent.id, /▸ @file plan\.md \(20 lines\)\nfollow @file:plan\.md[\s\S]*📎 Following plan\.md/);
      // The parent never sent the edit: its next message carries it.
      await exchange(s, parent.id, "and here?", "Here too.");
      assert.match(trailing(s)[0]!, /^<context kind="file-diff" path="plan.md">[\s\S]*\n\+step five \(FORK-EDIT\)\n/);
    });
  });
});
