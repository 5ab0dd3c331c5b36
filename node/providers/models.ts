/**
 * A thread's own choice of model and thinking effort (`:Tine model`) turned into the request's
 * fields. What a model costs and how much it reads is in the price table (node/usage/prices.ts).
 */
import type Anthropic from "@anthropic-ai/sdk";
import { type ModelChoice, sameChoice, THINKING_EFFORTS, type ThinkingEffort } from "../core/model-choice.ts";
import type { ProviderConfig, ThinkingBudgets } from "./request.ts";

/** The request's `thinking` for an effort: none turns it off; the others get their budget, kept below `max_tokens`. */
function thinkingFor(effort: ThinkingEffort, budgets: ThinkingBudgets, maxTokens: number): Anthropic.Messages.ThinkingConfigParam {
  if (effort === "none") return { type: "disabled" };
  const budget = Math.max(1024, Math.min(budgets[effort], maxTokens - 1));
  return { type: "enabled", budget_tokens: budget };
}

/** The provider config a thread's requests use: setup's, with its own model and thinking when it chose them. */
export function withChoice(config: ProviderConfig, choice: ModelChoice | null, budgets: ThinkingBudgets): ProviderConfig {
  if (!choice) return config;
  // output_config.effort goes with adaptive thinking; a budget of the thread's own replaces both.
  return { ...config, model: choice.model, thinking: thinkingFor(choice.effort, budgets, config.maxTokens), effort: null };
}

/** How the banner and the picker name a choice. */
export const describeChoice = (choice: ModelChoice): string =>
  choice.effort === "none" ? `${choice.model} · no thinking` : `${choice.model} · thinking ${choice.effort}`;

/** What `:Tine model` offers a thread: setup's model and `models`, the efforts, and what it uses now (null: its program chooses). */
export function modelChoices(
  chosen: ModelChoice | undefined,
  modelName: string | null,
  setup: { readonly model: string; readonly models: readonly string[] },
): { models: string[]; efforts: ThinkingEffort[]; current: string | null } {
  const models = [...new Set([setup.model, ...setup.models])];
  return { models, efforts: [...THINKING_EFFORTS], current: chosen ? describeChoice(chosen) : modelName };
}

/** What the user is told when a thread's choice changes (a new model or thinking misses the cache); null when it did not change. */
export function choiceNotice(title: string, before: ModelChoice | undefined, after: ModelChoice): string | null {
  if (before && sameChoice(before, after)) return null;
  const was = before ? describeChoice(before) : "setup's model";
  return `tine: ${title} now uses ${describeChoice(after)}: its next request will not read the prompt cache (written for ${was})`;
}
