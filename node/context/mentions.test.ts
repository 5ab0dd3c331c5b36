import { describe, expect, it } from "vitest";
import { parseMentions, writtenMention } from "./mentions.ts";

const names = (text: string) => parseMentions(text).map((m) => (m.argument === null ? `@${m.name}` : `@${m.name}:${m.argument}`));

describe("parseMentions", () => {
  it("finds every kind, in the order written", () => {
    expect(names("@buf @bufs fix @diag and @diag! then @qf\n@diff @staged @diff:HEAD~1 @file:a.ts @drop:b.ts")).toEqual([
      "@buf",
      "@bufs",
      "@diag",
      "@diag!",
      "@qf",
      "@diff",
      "@staged",
      "@diff:HEAD~1",
      "@file:a.ts",
      "@drop:b.ts",
    ]);
  });

  it("several files, globs and quoted paths; each distinct mention once", () => {
    expect(names('compare @file:a.ts with @file:src/**/*.ts and @file:"my notes.md" and @file:a.ts again')).toEqual([
      "@file:a.ts",
      "@file:src/**/*.ts",
      "@file:my notes.md",
    ]);
  });

  it("an @ inside a word (an e-mail address) is no mention", () => {
    expect(names("mail me@buf.com or x@file:a.ts")).toEqual([]);
  });

  it("nothing in code: fenced blocks and inline code", () => {
    expect(names("```\n@file:a.ts\n@buf\n```\nsee `@diag` and `x @qf` but @staged")).toEqual(["@staged"]);
  });

  it("a mention at the end of a line or before punctuation", () => {
    expect(names("look at @buf\nand @file:a.ts.\n(@diag), @qf? @file:b.ts:")).toEqual(["@buf", "@file:a.ts", "@diag", "@qf", "@file:b.ts"]);
  });

  it("longer words and unknown names are not mentions; a name taking no argument takes none", () => {
    expect(names("@buffer @diagnostics @filex @fork @now @buf:x @qf:1")).toEqual([]);
  });

  it("a name that needs an argument, written without one, is still found (its resolver says what is missing)", () => {
    expect(parseMentions("send @file please")).toEqual([{ name: "file", argument: null, source: "@file" }]);
  });

  it("keeps what was written, for error messages", () => {
    expect(parseMentions("see @diff:main...HEAD.").map((m) => m.source)).toEqual(["@diff:main...HEAD"]);
  });
});

describe("writtenMention", () => {
  it("writes a file so that parseMentions reads it back whole, in a sentence", () => {
    for (const path of ["src/conf.txt", "my notes.md", "a.txt.", "(x).md", "tab\there.txt"]) {
      const written = writtenMention("file", path)!;
      expect(
        parseMentions(`Resolve ${written}, ${written}: now`).map((m) => m.argument),
        path,
      ).toEqual([path]);
    }
  });

  it("gives none for a name a mention cannot hold", () => {
    expect(writtenMention("file", 'say "hi".txt')).toBeNull();
    expect(writtenMention("file", "two\nlines")).toBeNull();
    expect(writtenMention("file", "")).toBeNull();
  });
});
