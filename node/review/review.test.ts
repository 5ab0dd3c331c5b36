import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { codeNotesText } from "../chat/prompts.ts";
import type { ThreadMark } from "../core/code-marks.ts";
import { codeNoteFrom } from "../core/graft-note.ts";
import { History } from "../core/history.ts";
import { localGit } from "../tools/local-git.ts";
import { diffHunks, lineOffsets, withHunk } from "../worktree/hunks.ts";
import { mergeFile } from "../worktree/merge.ts";
import { undoApart } from "./hunk-undo.ts";
import { ReviewRecords } from "./review-record.ts";
import { headerStart, reversed, reviewTurn, turnHunk } from "./turn-hunks.ts";

const lines = (n: number, change: Record<number, string> = {}) =>
  Array.from({ length: n }, (_, i) => `${change[i + 1] ?? `line ${i + 1}`}\n`).join("");

describe("undoing one hunk", () => {
  it("takes back only that hunk's lines, the other hunk left made", () => {
    const before = Buffer.from(lines(20));
    const after = Buffer.from(lines(20, { 2: "TWO", 18: "EIGHTEEN" }));
    const hunks = diffHunks(["@@ -1,5 +1,5 @@", "-line 2", "+TWO", "@@ -15,6 +15,6 @@", "-line 18", "+EIGHTEEN"]);
    expect(withHunk(after, before, reversed(hunks[0]!.range)).toString()).toBe(lines(20, { 18: "EIGHTEEN" }));
    expect(withHunk(after, before, reversed(hunks[1]!.range)).toString()).toBe(lines(20, { 2: "TWO" }));
  });

  it("of a file the turn made (an empty old side), the lines go and nothing comes back", () => {
    const [range] = diffHunks(["@@ -0,0 +1,2 @@", "+a", "+b"]).map((h) => h.range);
    expect(withHunk(Buffer.from("a\nb\n"), Buffer.alloc(0), reversed(range!)).toString()).toBe("");
    expect([headerStart(range!.oldStart, range!.oldCount), headerStart(range!.newStart, range!.newCount)]).toEqual([0, 1]);
  });
});

describe("the lines a hunk's notes name", () => {
  const changed = (...diff: string[]) => turnHunk(diff, "a.txt", 1).changed;

  it("are the lines the turn changed, without the context git shows around them", () => {
    expect(changed("@@ -2,7 +2,7 @@", " c2", " c3", " c4", "-five", "+FIVE", " c6", " c7", " c8")).toEqual({ start: 5, count: 1 });
    expect(changed("@@ -1,5 +1,6 @@", " c1", "-two", "+TWO", "+more", " c3", " c4", " c5")).toEqual({ start: 2, count: 2 });
    // Two changes in one hunk: from the first changed line to the last, the context between them with them.
    expect(changed("@@ -1,6 +1,6 @@", "-one", "+ONE", " c2", " c3", "-four", "+FOUR", " c5")).toEqual({ start: 1, count: 4 });
    // At the file's end, with no newline there.
    expect(changed("@@ -3,2 +3,2 @@", " c3", "-four", "\\ No newline at end of file", "+FOUR")).toEqual({ start: 4, count: 1 });
  });

  it("of lines only removed: after the line before them; of a new file: all its lines", () => {
    expect(changed("@@ -2,7 +2,6 @@", " c2", " c3", " c4", "-five", " c6", " c7", " c8")).toEqual({ start: 4, count: 0 });
    expect(changed("@@ -1,2 +0,0 @@", "-a", "-b")).toEqual({ start: 0, count: 0 });
    expect(changed("@@ -0,0 +1,2 @@", "+a", "+b")).toEqual({ start: 1, count: 2 });
  });
});

describe("the turn a review means", () => {
  const entries = Array.from({ length: 6 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `m${i}` })) as never[];
  const history = History.of(entries);
  const mark = (at: number, id: string, paths: string[]): ThreadMark => ({
    at,
    id,
    skipped: [],
    entry: history.at(at - 1)!,
    turn: { from: `${id}0`, files: paths.map((path) => ({ path, status: "modified", added: 1, removed: 1 })) },
  });
  const thread = { title: "t", history, code: [mark(2, "a", ["x.txt"]), mark(4, "b", ["y.txt"]), mark(6, "c", [])] };

  it("the last turn that changed files, the last that changed a path, or the turn a message is part of", () => {
    expect(reviewTurn(thread, null, null).to).toBe("b");
    expect(reviewTurn(thread, null, "x.txt").to).toBe("a");
    expect(reviewTurn(thread, 0, null).to).toBe("a");
    expect(reviewTurn(thread, 2, null).to).toBe("b");
    expect(() => reviewTurn(thread, null, "z.txt")).toThrow('tine: review: "t" has no turn that changed z.txt');
    expect(() => reviewTurn(thread, 4, null)).toThrow('tine: review: "t" has no turn ending at or after message 4 that changed files');
  });
});

describe("a thread's review on disk", () => {
  it("is read back by a new reader, entry by entry: one of another shape is left out", () => {
    const dir = mkdtempSync(join(tmpdir(), "tine-review-"));
    const records = new ReviewRecords(dir);
    records.update("t1", { turn: "abc1", path: "a.txt", index: 2 }, (h) => ({ ...h, state: "undone" }));
    records.update("t1", { turn: "abc1", path: "a.txt", index: 1 }, (h) => ({ ...h, comment: "why?" }));
    expect(new ReviewRecords(dir).get("t1").hunks).toEqual([
      { turn: "abc1", path: "a.txt", index: 2, state: "undone" },
      { turn: "abc1", path: "a.txt", index: 1, state: "pending", comment: "why?" },
    ]);
    const file = join(dir, "t1.json");
    const good = JSON.parse(readFileSync(file, "utf8")).hunks[0];
    const bad = [{ ...good, state: "gone" }, { ...good, index: 0 }, { ...good, turn: "../x" }, { ...good, comment: 3 }, null];
    writeFileSync(file, JSON.stringify({ hunks: [good, ...bad] }));
    expect(new ReviewRecords(dir).get("t1").hunks).toEqual([good]);
    writeFileSync(file, "{not json");
    expect(new ReviewRecords(dir).get("t1").hunks).toEqual([]);
    expect(new ReviewRecords(dir).get("../t1").hunks).toEqual([]);
  });
});

describe("a reviewed hunk's note", () => {
  const undo = { review: "undone", path: "a.txt", start: 3, count: 2, text: "x\ny", conflicts: 1, root: "/p" } as const;

  it("is read back from a transcript field by field, a graft's note as before; one of another shape is not one", () => {
    expect(codeNoteFrom(undo)).toEqual(undo);
    expect(codeNoteFrom({ path: "b", hunk: null, from: "f", conflicts: 0, root: "/p" })).toEqual({
      path: "b",
      hunk: null,
      from: "f",
      conflicts: 0,
      root: "/p",
    });
    for (const bad of [
      { ...undo, review: "kept" },
      { ...undo, start: -1 },
      { ...undo, text: 3 },
      { ...undo, undone: false },
    ])
      expect(codeNoteFrom(bad)).toBeNull();
  });

  it("tells the model the lines, what came back (indented, so no line of it starts a line of the note) and a comment on one line", () => {
    const comment = { review: "comment", path: "a.txt", start: 9, count: 0, text: 'why\n"this"?', conflicts: 0, root: "/p" } as const;
    expect(codeNotesText([undo, comment])).toBe(
      [
        "[tine] Since your last turn, the user reviewed your edits in the files of this thread (/p):",
        "- the user undid your change to a.txt lines 3-4 (as your turn left the file), so do not make it again unless asked; it clashed with later edits, so the file holds conflict markers there (1); these lines came back:",
        "    x",
        "    y",
        "- the user's comment on a.txt after line 9 (as your turn left the file): \"why 'this'?\"",
        "Read a file again before relying on what you knew of it.",
      ].join("\n"),
    );
  });
});

describe("an undo apart from what changed since", () => {
  const before = Buffer.from(lines(30));
  const after = Buffer.from(lines(30, { 15: "FIFTEEN" }));
  const [range] = diffHunks(["@@ -12,7 +12,7 @@", "-line 15", "+FIFTEEN"]).map((h) => h.range);
  const back = before.subarray(...lineOffsets(before, range!.oldStart, range!.oldStart + range!.oldCount));
  /** What git merge-file makes of the same undo: ours the file now, base the turn's, theirs the turn's with the hunk taken back. */
  const byGit = async (ours: Buffer) =>
    (
      await mergeFile(localGit, ours, after, withHunk(after, before, reversed(range!)), { ours: "o", theirs: "t", theirsRoot: "/" })
    ).bytes.toString();

  it("changes wholly before the hunk (lines added) or wholly after (lines removed): what git makes of it, without git", async () => {
    for (const ours of [
      Buffer.from(`new 0\nnew 1\n${lines(30, { 15: "FIFTEEN", 2: "mine" })}`),
      Buffer.from(lines(30, { 15: "FIFTEEN" }).replace("line 29\nline 30\n", "")),
      Buffer.from(lines(30, { 15: "FIFTEEN", 21: "just past the context" })),
    ]) {
      const apart = undoApart(after, ours, range!, back);
      expect(apart?.toString()).toBe(await byGit(ours));
    }
  });

  it("edits anywhere, files without a last newline, the file as the turn left it: what git makes of it whenever it answers", async () => {
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    let answered = 0;
    for (let round = 0; round < 24; round++) {
      const ours = lines(30, { 15: "FIFTEEN" }).split("\n").slice(0, -1);
      // One to three edits (a line changed, added or removed), at any line.
      for (let e = 0, edits = 1 + next(3); e < edits; e++) {
        const at = next(ours.length);
        const kind = next(3);
        if (kind === 0) ours[at] = `mine ${round}`;
        else if (kind === 1) ours.splice(at, 0, `new ${round}`);
        else ours.splice(at, 1);
      }
      const text = Buffer.from(round % 4 === 3 ? ours.join("\n") : `${ours.join("\n")}\n`);
      const apart = undoApart(after, text, range!, back);
      if (apart === null) continue;
      answered++;
      expect(apart.toString(), `round ${round}: ${text}`).toBe(await byGit(text));
    }
    expect(answered).toBeGreaterThan(8);
    expect(undoApart(after, after, range!, back)?.toString()).toBe(before.toString());
  });

  it("changes on both sides, or in the hunk's lines (its context too): left to git", () => {
    expect(undoApart(after, Buffer.from(lines(30, { 1: "a", 15: "FIFTEEN", 30: "b" })), range!, back)).toBeNull();
    expect(undoApart(after, Buffer.from(lines(30, { 13: "mine", 15: "FIFTEEN" })), range!, back)).toBeNull();
  });
});
