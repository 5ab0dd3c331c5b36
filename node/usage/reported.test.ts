import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { reportedOf } from "./reported.ts";
import { costText } from "./winbar.ts";

describe("usage an agent reports", () => {
  it("keeps finite counts and a word of a unit; drops what does not fit", () => {
    assert.deepEqual(reportedOf({ used: 30, size: 1000, cost: { amount: 0.0009, currency: "usd" } }), {
      context: { used: 30, size: 1000 },
      cost: { amount: 0.0009, unit: "USD" },
    });
    assert.deepEqual(reportedOf({ used: -1, size: 1000, cost: { amount: Number.NaN, currency: "USD" } }), { context: null, cost: null });
    assert.deepEqual(reportedOf({ used: 1, size: Infinity, cost: { amount: 2, currency: "\u001b[31mUSD" } }), {
      context: null,
      cost: null,
    });
    assert.equal(reportedOf({ used: 1, size: 2, cost: { amount: 12, currency: "credits" } }).cost?.unit, "credits");
  });

  it("shows dollars as tine does, another unit by its name", () => {
    assert.equal(costText(0.42, "USD"), "$0.42");
    assert.equal(costText(12.345, "credits"), "12.3 credits");
  });
});
