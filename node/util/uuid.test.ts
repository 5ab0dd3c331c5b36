import { describe, expect, it } from "vitest";
import { isUuid, randomUuid } from "./uuid.ts";

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("randomUuid", () => {
  it("gives distinct version 4 UUIDs", () => {
    const ids = Array.from({ length: 1000 }, () => randomUuid());
    for (const id of ids) expect(id).toMatch(V4);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every(isUuid)).toBe(true);
  });

  it("falls back to node:crypto where the random source cannot be read", () => {
    const id = randomUuid("/nonexistent/urandom");
    expect(id).toMatch(V4);
    expect(id).not.toBe(randomUuid("/nonexistent/urandom"));
  });
});
