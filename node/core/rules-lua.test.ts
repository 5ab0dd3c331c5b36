/** setup()'s copy of the options' rules is the rules: lua/tine/option_rules.lua as rules-lua.ts writes it now. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "vitest";
import { LUA_RULES_PATH, luaRulesFile } from "./rules-lua.ts";

describe("lua/tine/option_rules.lua", () => {
  it("is written from node/core/options.ts as it is now (else run `node scripts/option-rules.mjs`)", () => {
    const written = readFileSync(join(import.meta.dirname, "../..", LUA_RULES_PATH), "utf8");
    assert.ok(written === luaRulesFile(), `${LUA_RULES_PATH} is behind node/core/options.ts: run \`node scripts/option-rules.mjs\``);
  });
});
