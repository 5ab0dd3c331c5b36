import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { parseConfig } from "./config.ts";

const base = { model: "m", max_tokens: 8192, web_search: false, system_prompt: "s", cwd: "/", data_dir: "/tmp/tine-data" };

describe("parseConfig: thinking and effort", () => {
  it("passes the API's own thinking values through, with only the fields it defines", () => {
    assert.deepEqual(parseConfig({ ...base, thinking: { type: "adaptive", display: "summarized", extra: 1 } }).thinking, {
      type: "adaptive",
      display: "summarized",
    });
    assert.deepEqual(parseConfig({ ...base, thinking: { type: "between_tools", display: "summarized" } }).thinking, {
      type: "between_tools",
    });
    assert.deepEqual(parseConfig({ ...base, thinking: { type: "enabled", budget_tokens: 2048 } }).thinking, {
      type: "enabled",
      budget_tokens: 2048,
    });
  });

  it("false or nil sends no thinking and no effort", () => {
    for (const thinking of [false, null, undefined]) {
      const c = parseConfig({ ...base, thinking, effort: null });
      assert.equal(c.thinking, null);
      assert.equal(c.effort, null);
    }
  });

  it("reports a bad value at setup, naming the option", () => {
    assert.throws(
      () => parseConfig({ ...base, thinking: { type: "enabled", budget_tokens: 100 } }),
      /thinking\.budget_tokens must be at least 1024/,
    );
    assert.throws(() => parseConfig({ ...base, thinking: { type: "enabled", budget_tokens: 9000 } }), /below max_tokens/);
    assert.throws(() => parseConfig({ ...base, thinking: { type: "adaptve" } }), /thinking\.type must be/);
    assert.throws(() => parseConfig({ ...base, thinking: { type: "adaptive", display: "full" } }), /thinking\.display/);
    assert.throws(() => parseConfig({ ...base, effort: "extreme" }), /config\.effort must be one of low, medium/);
    assert.equal(parseConfig({ ...base, effort: "xhigh" }).effort, "xhigh");
  });
});
