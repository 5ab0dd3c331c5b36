import { describe, expect, it } from "vitest";
import { cleanTitle, TITLE_MAX_CHARS, titleFrom } from "./thread.ts";

describe("titles (a first message's, and renames): one rule", () => {
  it("control characters (ESC, BEL, NUL, DEL, C1) are left out, so a title cannot act on a terminal or a buffer name", () => {
    expect(cleanTitle("\u001b]0;pwned\u0007Bell\u0007 and \u001b[31mred\u0000!\u007f\u009b")).toBe("]0;pwned Bell and [31mred !");
    expect(titleFrom("\u001b[2Jclear the screen\u0007\nsecond line")).toBe("[2Jclear the screen");
  });

  it("a title is at most TITLE_MAX_CHARS; one made from a message is its first 40", () => {
    const long = "word ".repeat(100);
    expect(cleanTitle(long).length).toBe(TITLE_MAX_CHARS);
    expect(cleanTitle(long).endsWith("…")).toBe(true);
    expect(titleFrom(long)).toBe(`${"word ".repeat(8).trimEnd()}…`);
  });

  it("a message's mentions read as the user reads them: a file's as its path, the others left out; only mentions: as typed", () => {
    expect(titleFrom('@file:"my notes.md" and @file:a.ts, tidy @buf')).toBe("my notes.md and a.ts, tidy");
    expect(titleFrom("mail me@example.com about `@file:x`")).toBe("mail me@example.com about `@file:x`");
    expect(titleFrom("@diff:HEAD~1")).toBe("@diff:HEAD~1");
  });

  it("nothing left is empty (a rename is refused), or Untitled for a message", () => {
    expect(cleanTitle("\u0007\u0000 \t")).toBe("");
    expect(titleFrom("\u0007")).toBe("Untitled");
    expect(cleanTitle("  The   beta\tthread ")).toBe("The beta thread");
  });
});
