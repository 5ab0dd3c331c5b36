/** The registry runs a spec by its kind's module and refuses a kind it has none of, naming it. */

import { describe, expect, it } from "vitest";
import { History } from "../core/history.ts";
import type { RunnerSpec, SpecKind } from "../core/runner-spec.ts";
import type { Runner, RunnerKind } from "./runner.ts";
import { type KindModules, registryOf } from "./runner-registry.ts";

/** A kind module that records what it was asked, answering with its kind's name. */
function fakeKind<K extends SpecKind>(kind: K, asked: string[]): RunnerKind<K> {
  const runner = { label: `[${kind}] ` } as unknown as Runner;
  return {
    kind,
    start: (start) => {
      asked.push(`start ${start.kind}`);
      return runner;
    },
    reopen: (spec, history, _dispatch, failed) => {
      asked.push(`reopen ${spec.kind} ${history.length} ${failed}`);
      return runner;
    },
    label: () => `[${kind}] `,
    traits: () => ({ forkLifecycle: kind === "api", ownConversation: null, storedAtOnce: false, toolsThroughTine: true }),
    ownMessages: (spec) => ("args" in spec ? spec.args.length : null),
    storedNotices: (_spec, title) => [{ key: kind, text: `${title} as ${kind}` }],
  };
}

describe("the runner registry", () => {
  const asked: string[] = [];
  const registry = registryOf({ api: fakeKind("api", asked), "claude-code": fakeKind("claude-code", asked), acp: fakeKind("acp", asked) });
  const claude: RunnerSpec = { kind: "claude-code", args: ["--model", "opus"], sessionId: "11111111-1111-4111-8111-111111111111" };

  it("asks the module of the spec's kind, and no other", () => {
    expect(registry.reopen(claude, History.empty, () => {}, "overloaded").label).toBe("[claude-code] ");
    expect(registry.start({ kind: "api" }, () => {}).label).toBe("[api] ");
    expect(asked).toEqual(["reopen claude-code 0 overloaded", "start api"]);
    expect([registry.label(claude), registry.label({ kind: "api" })]).toEqual(["[claude-code] ", "[api] "]);
    expect([registry.ownMessages(claude), registry.ownMessages({ kind: "api" })]).toEqual([2, null]);
    expect([registry.traits(claude).forkLifecycle, registry.traits({ kind: "api" }).forkLifecycle]).toEqual([false, true]);
    expect(registry.storedNotices(claude, "T")).toEqual([{ key: "claude-code", text: "T as claude-code" }]);
  });

  it("refuses a kind it has no module of, naming it (a property every object has is none)", () => {
    for (const kind of ["codex", "toString", "__proto__"]) {
      const spec = { kind } as unknown as RunnerSpec;
      expect(() => registry.reopen(spec, History.empty, () => {})).toThrow(`tine: no runner of kind "${kind}" in this version of tine`);
      expect(() => registry.label(spec)).toThrow(/no runner of kind/);
    }
  });

  it("refuses a module listed under another kind than its own", () => {
    const misfiled = registryOf({
      api: fakeKind("api", []),
      "claude-code": fakeKind("api", []),
      acp: fakeKind("acp", []),
    } as unknown as KindModules);
    expect(() => misfiled.label(claude)).toThrow('tine: the runner module listed as "claude-code" is of kind "api"');
  });
});
