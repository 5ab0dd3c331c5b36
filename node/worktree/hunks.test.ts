import { describe, expect, it } from "vitest";
import { diffHunks, withHunk } from "./hunks.ts";

const lines = (n: number, change: Record<number, string> = {}) =>
  Array.from({ length: n }, (_, i) => `${change[i + 1] ?? `line ${i + 1}`}\n`).join("");

describe("one hunk of a diff", () => {
  it("reads hunk headers (counts left out meaning 1) and each hunk's lines added and removed", () => {
    const diff = ["--- a/f", "+++ b/f", "@@ -1,5 +1,6 @@", " a", "+b", "@@ -9 +10 @@ x", "-c", "+d", "@@ -0,0 +1,2 @@", "+e", "+f"];
    expect(diffHunks(diff)).toEqual([
      { range: { oldStart: 0, oldCount: 5, newStart: 0, newCount: 6 }, header: "@@ -1,5 +1,6 @@", added: 1, removed: 0 },
      { range: { oldStart: 8, oldCount: 1, newStart: 9, newCount: 1 }, header: "@@ -9 +10 @@", added: 1, removed: 1 },
      { range: { oldStart: 0, oldCount: 0, newStart: 0, newCount: 2 }, header: "@@ -0,0 +1,2 @@", added: 2, removed: 0 },
    ]);
  });

  it("makes only the hunk asked for, the lines around it as the base has them", () => {
    const base = Buffer.from(lines(20));
    const theirs = Buffer.from(lines(20, { 2: "TWO", 18: "EIGHTEEN" }).replace("line 10\n", "line 10\nnew\n"));
    // As git shows it: 1-5, then 7-13 (+1 line), then 15-20.
    const hunks = [
      { oldStart: 0, oldCount: 5, newStart: 0, newCount: 5 },
      { oldStart: 6, oldCount: 7, newStart: 6, newCount: 8 },
      { oldStart: 14, oldCount: 6, newStart: 15, newCount: 6 },
    ];
    expect(withHunk(base, theirs, hunks[0]!).toString()).toBe(lines(20, { 2: "TWO" }));
    expect(withHunk(base, theirs, hunks[1]!).toString()).toBe(lines(20).replace("line 10\n", "line 10\nnew\n"));
    expect(withHunk(base, theirs, hunks[2]!).toString()).toBe(lines(20, { 18: "EIGHTEEN" }));
  });

  it("keeps a last line without a newline as the side it comes from has it", () => {
    const base = Buffer.from("a\nb\nc");
    const theirs = Buffer.from("a\nb\nC\n");
    expect(withHunk(base, theirs, { oldStart: 0, oldCount: 3, newStart: 0, newCount: 3 }).toString()).toBe("a\nb\nC\n");
  });
});
