import { describe, expect, it } from "vitest";
import { type ContextItem, contextLabel, distinctItems, lineCount, mentionItems, readContextBlock, writeContextBlock } from "./blocks.ts";

const ITEMS: ContextItem[] = [
  { kind: "file", path: "node/app.ts", text: "a\nb\n", unsaved: false, changed: false },
  { kind: "file", path: 'we"ird <path>&\nname', text: "no final newline", unsaved: true, changed: true },
  { kind: "file", path: "empty.txt", text: "", unsaved: false, changed: false },
  { kind: "file-diff", path: "a.ts", diff: "--- a.ts\n+++ a.ts\n@@ -1 +1,2 @@\n-x\n+y\n+z\n", unsaved: false },
  { kind: "unfollow", path: "a.ts", why: "dropped with @drop" },
  { kind: "buffer", name: "lua/x.lua", text: "local x = 1\n", cursor: 1, unsaved: true },
  { kind: "buffer", name: "[No Name]", text: "scratch", cursor: 0, unsaved: false },
  { kind: "diagnostics", scope: "a.ts", count: 2, text: "a.ts:1:1: error …" },
  { kind: "diagnostics", scope: "workspace", count: 0, text: "(no diagnostics)" },
  { kind: "quickfix", count: 1, text: "a.ts:3: E: bad" },
  { kind: "git-diff", mention: "@diff:HEAD~1", text: "diff --git a/a b/a\n" },
  { kind: "repeat", mention: "@bufs", of: ["a.ts"] },
  { kind: "repeat", mention: "@file:*.ts", of: ["a.ts", "b,\n.ts", "c.ts", "d.ts", "e.ts"] },
];

describe("context blocks", () => {
  it("read back as they were written, every kind", () => {
    for (const item of ITEMS) expect(readContextBlock(writeContextBlock(item))).toEqual(item);
  });

  it("are marked blocks: the opening tag names the kind and what it is, the body is verbatim", () => {
    expect(writeContextBlock(ITEMS[0]!)).toBe('<context kind="file" path="node/app.ts" lines="2">\na\nb\n\n</context>');
    expect(writeContextBlock(ITEMS[1]!)).toContain('path="we&quot;ird &lt;path&gt;&amp;&#10;name"');
  });

  it("a body holding the closing tag still reads back whole", () => {
    const item: ContextItem = { kind: "file", path: "x.xml", text: "<context>\n</context>\nafter\n", unsaved: false, changed: false };
    expect(readContextBlock(writeContextBlock(item))).toEqual(item);
  });

  it("the user's own text is no block, even when it looks like one", () => {
    for (const text of [
      "hello",
      '<context kind="file">\nx\n</context> and more',
      '<context kind="nope" path="a">\nx\n</context>',
      '<context kind="file">\nno path\n</context>',
      '<context kind="file" path="a" junk>\nx\n</context>',
      '<context kind="diagnostics" scope="a" count="-1">\nx\n</context>',
    ])
      expect(readContextBlock(text)).toBeNull();
  });

  it("one line each in the display", () => {
    expect(ITEMS.map(contextLabel)).toEqual([
      "@file node/app.ts (2 lines)",
      '@file we"ird <path>&\nname changed (1 line, unsaved)',
      "@file empty.txt (0 lines)",
      "@file a.ts changed (+2 −1)",
      "@drop a.ts: no longer followed (dropped with @drop)",
      "@buf lua/x.lua (1 line, cursor on 1, unsaved)",
      "@buf [No Name] (1 line)",
      "@diag a.ts (2 diagnostics)",
      "@diag! (0 diagnostics)",
      "@qf (1 entry)",
      "@diff:HEAD~1 (1 file)",
      "@bufs (nothing new: a.ts already included)",
      "@file:*.ts (nothing new: a.ts, b,\n.ts, c.ts and 2 more already included)",
    ]);
  });

  it("each item once, the first kept", () => {
    const a: ContextItem = { kind: "buffer", name: "a", text: "1", cursor: 3, unsaved: false };
    expect(distinctItems([a, { ...a, cursor: 0 }, ITEMS[0]!])).toEqual([a, ITEMS[0]]);
  });

  it("a message's mentions: each item once, a buffer sent as a file only as the file, a mention with nothing new said", () => {
    const buf: ContextItem = { kind: "buffer", name: "a.ts", text: "1\n", cursor: 1, unsaved: false };
    const file: ContextItem = { kind: "file", path: "a.ts", text: "1\n", unsaved: false, changed: false };
    const other: ContextItem = { ...buf, name: "b.ts", cursor: 0 };
    expect(
      mentionItems([
        { mention: "@buf", items: [buf] },
        { mention: "@bufs", items: [{ ...buf, cursor: 0 }, other] },
        { mention: "@file:a.ts", items: [file] },
        { mention: "@file:*.ts", items: [file] },
        { mention: "@drop:x", items: [] },
      ]),
    ).toEqual([{ kind: "repeat", mention: "@buf", of: ["a.ts"] }, other, file, { kind: "repeat", mention: "@file:*.ts", of: ["a.ts"] }]);
  });

  it("counts lines as an editor does", () => {
    expect([lineCount(""), lineCount("a"), lineCount("a\n"), lineCount("a\nb"), lineCount("\n\n")]).toEqual([0, 1, 1, 2, 2]);
  });
});
