import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fileLines, splitLines, textLines } from "./jsonl-lines.ts";

const LINKS = new Set(["type", "uuid", "parentUuid", "isSidechain"]);
const lines = (text: string, max = 64) => [...textLines(text, max, LINKS)];
/** The same bytes cut into pieces of `size`, as a file read a piece at a time gives them. */
const inPieces = (text: string, size: number) => {
  const bytes = Buffer.from(text);
  const out: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += size) out.push(bytes.subarray(at, at + size));
  return out;
};

describe("the lines of a JSON Lines file", () => {
  it("numbers every line, blank ones too, and says whether a newline ended each", () => {
    expect(lines('{"a":1}\n\n{"b":2}')).toEqual([
      { kind: "text", n: 1, text: '{"a":1}', ended: true },
      { kind: "text", n: 2, text: "", ended: true },
      { kind: "text", n: 3, text: '{"b":2}', ended: false },
    ]);
    expect(lines("x\n")).toEqual([{ kind: "text", n: 1, text: "x", ended: true }]);
  });

  it("a line longer than the bound comes as its size and its top-level links, never its text", () => {
    const big = JSON.stringify({
      parentUuid: "p1",
      isSidechain: false,
      type: "user",
      message: { role: "user", content: [{ type: "text", text: `"quoted" \\ ${"é".repeat(100)}`, uuid: "nested" }] },
      uuid: "u1",
      toolUseResult: { stdout: "y".repeat(200), type: "nested too" },
      n: 12.5,
      last: null,
    });
    const [line] = lines(`${big}\nafter\n`);
    expect(line).toEqual({
      kind: "too-long",
      n: 1,
      bytes: Buffer.byteLength(big),
      fields: { parentUuid: "p1", isSidechain: false, type: "user", uuid: "u1" },
      ended: true,
    });
    expect(lines(`${big}\nafter\n`)[1]).toEqual({ kind: "text", n: 2, text: "after", ended: true });
  });

  it("reads the same links however the bytes are cut (mid-escape, mid-character, mid-key)", () => {
    const big = `${JSON.stringify({ type: "assistant", message: { text: `a\\"b${"ü".repeat(50)}\\\\` }, parentUuid: null, uuid: "é\\u00e9" })}\n`;
    for (const size of [1, 2, 3, 7, 64]) {
      const [line] = [...splitLines(inPieces(big, size), 32, LINKS)];
      expect(line).toMatchObject({ kind: "too-long", fields: { type: "assistant", parentUuid: null, uuid: "é\\u00e9" } });
    }
  });

  it("a too-long line that is not one whole JSON object has no fields", () => {
    const long = "z".repeat(100);
    expect(lines(`[${JSON.stringify(long)}]\n`)[0]).toMatchObject({ kind: "too-long", fields: null });
    expect(lines(`{"uuid":"u","x":${JSON.stringify(long)}\n`)[0]).toMatchObject({ kind: "too-long", fields: null });
    expect(lines(`{"uuid":"u","x":${JSON.stringify(long)}} {}\n`)[0]).toMatchObject({ kind: "too-long", fields: null });
    expect(lines(`{"uuid" "u","x":${JSON.stringify(long)}}\n`)[0]).toMatchObject({ kind: "too-long", fields: null });
    // Cut mid-write: not ended, and not whole.
    expect(lines(`{"uuid":"u","x":${JSON.stringify(long)}`)[0]).toMatchObject({ kind: "too-long", fields: null, ended: false });
  });

  it("reads a file a piece at a time: a 40 MB line of escapes is skipped in linear time, the lines around it read", () => {
    const dir = mkdtempSync(join(tmpdir(), "tine-jsonl-"));
    try {
      const path = join(dir, "t.jsonl");
      const long = `{"uuid":"b","parentUuid":"a","text":"${"\\n".repeat(20 * 1024 * 1024)}"}`;
      writeFileSync(path, `{"uuid":"a"}\n${long}\n{"uuid":"c"}`);
      // Escapes make each byte count: a scan that searched again from each one would not end within the test's time.
      const read = [...fileLines(path, 1024, LINKS)];
      expect(read).toEqual([
        { kind: "text", n: 1, text: '{"uuid":"a"}', ended: true },
        { kind: "too-long", n: 2, bytes: long.length, fields: { uuid: "b", parentUuid: "a" }, ended: true },
        { kind: "text", n: 3, text: '{"uuid":"c"}', ended: false },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
