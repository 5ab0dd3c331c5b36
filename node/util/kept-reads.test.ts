import { describe, expect, it } from "vitest";
import { KeptReads } from "./kept-reads.ts";

describe("KeptReads", () => {
  it("reads a key once while kept, shares a read under way, forgets the oldest past its bound and a failed read", async () => {
    const reads: string[] = [];
    const kept = new KeptReads<string>(2);
    const read =
      (key: string, fail = false) =>
      () => {
        reads.push(key);
        return fail ? Promise.reject(new Error(key)) : Promise.resolve(`${key}!`);
      };
    const [a1, a2] = [kept.get("a", read("a")), kept.get("a", read("a"))];
    expect(await a1).toBe("a!");
    expect(await a2).toBe("a!");
    await kept.get("b", read("b"));
    await kept.get("c", read("c"));
    // "a" was the oldest of three: read again.
    await kept.get("a", read("a"));
    await expect(kept.get("x", read("x", true))).rejects.toThrow("x");
    await expect(kept.get("x", read("x"))).resolves.toBe("x!");
    expect(reads).toEqual(["a", "b", "c", "a", "x", "x"]);
  });
});
