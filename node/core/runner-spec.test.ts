/** A stored runner spec is checked by its kind's entry: an unknown kind is refused by name, each kind keeps only its fields. */

import { describe, expect, it } from "vitest";
import { checkRunnerSpec, isSpecKind } from "./runner-spec.ts";

describe("a stored runner spec", () => {
  it("of a kind this version does not store is refused, its kind named (a property every object has is none)", () => {
    for (const kind of ["codex", "toString", "constructor", 7])
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

  it("of an ACP agent keeps the agent's configured name and its session id, never a command", () => {
    const spec = { kind: "acp", agent: "claude", sessionId: "4e56d4bb-1c5e-40ee-b0d7-d9a13310d40a" };
    expect(checkRunnerSpec({ ...spec, command: ["sh", "-c", "x"], cwd: "/p/wt" })).toEqual({ ok: true, spec: { ...spec, cwd: "/p/wt" } });
    expect(checkRunnerSpec({ ...spec, agent: "sh -c x" })).toEqual({ ok: false, why: "runner.agent is not an agent name" });
    expect(checkRunnerSpec({ ...spec, agent: "toString" })).toEqual({ ok: true, spec: { ...spec, agent: "toString" } });
    expect(checkRunnerSpec({ ...spec, sessionId: "a b\n" })).toEqual({ ok: false, why: "runner.sessionId is not a session id" });
    expect(checkRunnerSpec({ ...spec, cwd: "wt" })).toEqual({ ok: false, why: "runner.cwd is not an absolute path" });
  });
});
