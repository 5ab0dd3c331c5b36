import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "./sha256.ts";

const nodeSha256 = (text: string) => createHash("sha256").update(text).digest("hex");

describe("sha256Hex", () => {
  it("gives the standard's digests", () => {
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it("agrees with node:crypto on any text, across block boundaries and in any script", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 300 }), (text) => sha256Hex(text) === nodeSha256(text)),
      { numRuns: 500 },
    );
    for (let n = 50; n <= 130; n++) expect(sha256Hex("x".repeat(n))).toBe(nodeSha256("x".repeat(n)));
  });
});
