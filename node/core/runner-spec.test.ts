/** A stored runner spec is checked by its kind's entry: an unknown kind is refused by name, each kind keeps only its fields. */

import { describe, expect, it } from "vitest";
import { checkRunnerSpec, isSpecKind } from "./runner-spec.ts";

describe("a stored runner spec", () => {
  it("of a kind this version does not store is refused, its kind named (a property every object has is none)", () => {
    for (const kind of ["acp", "toString", "constructor", 7])
      expect(checkRunnerSpec({ kind })).toEqual({ ok: false, why: `unknown runner kind ${JSON.stringify(kind)}` });
    expect(checkRunnerSpec({})).toEqual({ ok: false, why: "unknown runner kind undefined" });
    expect(checkRunnerSpec(["api"])).toEqual({ ok: false, why: "runner is not an object" });
    expect(isSpecKind("__proto__")).toBe(false);
  });

  it("is checked by its own kind's rule, which keeps only its kind's fields", () => {
    const sessionId = "11111111-1111-4111-8111-111111111111";
    expect(checkRunnerSpec({ kind: "api", args: ["x"], sessionId })).toEqual({ ok: true, spec: { kind: "api" } });
    expect(checkRunnerSpec({ kind: "claude-code", args: ["--model", "opus"], sessionId, extra: 1 })).toEqual({
      ok: true,
      spec: { kind: "claude-code", args: ["--model", "opus"], sessionId },
    });
    expect(checkRunnerSpec({ kind: "claude-code", args: [], sessionId: "../x" })).toEqual({
      ok: false,
      why: "runner.sessionId is not a UUID",
    });
    expect(checkRunnerSpec({ kind: "claude-code", args: [], sessionId, cwd: "wt" })).toEqual({
      ok: false,
      why: "runner.cwd is not an absolute path",
    });
  });
});
