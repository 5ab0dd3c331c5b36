import { describe, expect, it } from "vitest";
import { describeSetupThinking, modelChoices, withChoice } from "./models.ts";
import type { ProviderConfig } from "./request.ts";

const CONFIG = {
  model: "setup-model",
  maxTokens: 8192,
  thinking: { type: "adaptive" },
  effort: "high",
} as unknown as ProviderConfig;
const BUDGETS = { low: 2048, medium: 4096, high: 8192 };

describe("a thread's own model and thinking", () => {
  it("`setup` keeps setup's thinking and effort with the model chosen; a budget replaces both", () => {
    const setup = withChoice(CONFIG, { model: "other", effort: "setup" }, BUDGETS);
    expect([setup.model, setup.thinking, setup.effort]).toEqual(["other", { type: "adaptive" }, "high"]);
    const low = withChoice(CONFIG, { model: "other", effort: "low" }, BUDGETS);
    expect([low.thinking, low.effort]).toEqual([{ type: "enabled", budget_tokens: 2048 }, null]);
  });

  it("the picker knows what the thread uses now: its own choice, else setup's; nothing when its program chooses", () => {
    const setup = { model: "setup-model", models: ["other", "setup-model"], setupThinking: "adaptive" };
    expect(modelChoices(undefined, "setup-model", setup)).toMatchObject({
      models: ["setup-model", "other"],
      model: "setup-model",
      effort: "setup",
    });
    expect(modelChoices({ model: "other", effort: "low" }, "other", setup)).toMatchObject({ model: "other", effort: "low" });
    expect(modelChoices(undefined, null, setup)).toMatchObject({ model: null, effort: null, current: null });
  });

  it("names setup's thinking in a few words", () => {
    expect(describeSetupThinking({ type: "adaptive" }, null)).toBe("adaptive");
    expect(describeSetupThinking({ type: "enabled", budget_tokens: 10000 }, "low")).toBe("a budget of 10,000 tokens, effort low");
    expect(describeSetupThinking(null, null)).toBe("the model's default");
    expect(describeSetupThinking({ type: "disabled" }, null)).toBe("off");
  });
});
