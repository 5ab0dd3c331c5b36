/** A stdio server's output into messages: lines across chunks, and a line over the bound counted, not kept, its request told. */
import { describe, expect, it } from "vitest";
import { answeredId, MessageLines, type ServerLine } from "./message-lines.ts";

const pushAll = (lines: MessageLines, ...chunks: string[]) => chunks.flatMap((c) => lines.push(Buffer.from(c)));
const tooLarge = (start: string, end: string): Extract<ServerLine, { type: "too-large" }> => ({ type: "too-large", bytes: 0, start, end });

describe("a stdio server's output", () => {
  it("is cut into its lines, whatever its chunks; a \\r before the newline and blank lines are left out", () => {
    const lines = new MessageLines(100);
    expect(pushAll(lines, '{"a":', "1}\r\n\n", '{"b":2}\n{"c"', ":3}\n")).toEqual([
      { type: "message", text: '{"a":1}' },
      { type: "message", text: '{"b":2}' },
      { type: "message", text: '{"c":3}' },
    ]);
  });

  it("counts a line over the bound to its end, keeping its ends only, and reads the next as before", () => {
    const lines = new MessageLines(50);
    const big = `{"jsonrpc":"2.0","id":7,"result":"${"x".repeat(300)}","tail":"${"y".repeat(300)}"}`;
    const out = pushAll(lines, big.slice(0, 40), big.slice(40, 500), `${big.slice(500)}\n{"ok":1}\n`);
    expect(out).toEqual([
      { type: "too-large", bytes: big.length, start: big.slice(0, 256), end: big.slice(-256) },
      { type: "message", text: '{"ok":1}' },
    ]);
    expect(answeredId(out[0] as Extract<ServerLine, { type: "too-large" }>)).toBe(7);
  });

  it("tells the request a line too large answers by its id, at its start or (the TypeScript SDK's order) at its end", () => {
    expect(answeredId(tooLarge('{"jsonrpc":"2.0","id":"req-1","result":{', "…}}"))).toBe("req-1");
    expect(answeredId(tooLarge('{"result":{"content":[', '…"}]},"jsonrpc":"2.0","id":12}'))).toBe(12);
    // An id inside the result is not the message's.
    expect(answeredId(tooLarge('{"result":{"id":3,', '…,"x":{"id":4}}}'))).toBeNull();
  });
});
