import { describe, expect, it } from "vitest";
import { depthProblem, parseBounded } from "./bounded-json.ts";

describe("bounded JSON", () => {
  const bounds = { depth: 3, chars: 20 };
  it("measures depth without recursing: a value far deeper than the stack is told, not thrown", () => {
    let v: unknown = 1;
    for (let i = 0; i < 200_000; i++) v = [v];
    expect(depthProblem(v, bounds)).toBe("nested more than 3 levels deep");
    expect(depthProblem({ a: [{ b: 1 }] }, bounds)).toBe(null);
  });

  it("says whether text was refused for its bounds or its syntax", () => {
    expect(parseBounded('{"a":[{}]}', bounds)).toEqual({ ok: true, value: { a: [{}] } });
    expect(parseBounded('{"a":[[{}]]}', bounds)).toMatchObject({ ok: false, outOfBounds: true, error: "nested more than 3 levels deep" });
    expect(parseBounded(`"${"x".repeat(30)}"`, bounds)).toMatchObject({
      ok: false,
      outOfBounds: true,
      error: "32 characters long, more than 20",
    });
    expect(parseBounded('{"a":', bounds)).toMatchObject({ ok: false, outOfBounds: false });
  });
});
