/**
 * A thread's own choice of model and thinking effort (`:Tine model`) turned into the request's
 * fields. What a model costs and how much it reads is in the price table (node/usage/prices.ts).
 */
import type Anthropic from "@anthropic-ai/sdk";
import { effortWords, type ModelChoice, sameChoice, THINKING_EFFORTS, type ThinkingEffort } from "../core/model-choice.ts";
import type { ProviderConfig, ThinkingBudgets } from "./request.ts";

/** The request's `thinking` for an effort of a budget's: none turns it off; the others get their budget, kept below `max_tokens`. */
function thinkingFor(
  effort: Exclude<ThinkingEffort, "setup">,
  budgets: ThinkingBudgets,
  maxTokens: number,
): Anthropic.Messages.ThinkingConfigParam {
  if (effort === "none") return { type: "disabled" };
  const budget = Math.max(1024, Math.min(budgets[effort], maxTokens - 1));
  return { type: "enabled", budget_tokens: budget };
}

/** The provider config a thread's requests use: setup's, with its own model and thinking when it chose them. */
export function withChoice(config: ProviderConfig, choice: ModelChoice | null, budgets: ThinkingBudgets): ProviderConfig {
  if (!choice) return config;
  if (choice.effort === "setup") return { ...config, model: choice.model };
  // output_config.effort goes with adaptive thinking; a budget of the thread's own replaces both.
  return { ...config, model: choice.model, thinking: thinkingFor(choice.effort, budgets, config.maxTokens), effort: null };
}

/** How the banner and the picker name a choice. */
export const describeChoice = (choice: ModelChoice): string => `${choice.model} · ${effortWords(choice.effort)}`;

/** Setup's `thinking` and `effort` in a few words, as the picker names its `setup` effort. */
export function describeSetupThinking(thinking: Anthropic.Messages.ThinkingConfigParam | null, effort: string | null): string {
  const kind = !thinking
    ? "the model's default"
    : thinking.type === "enabled"
      ? `a budget of ${thinking.budget_tokens.toLocaleString("en-US")} tokens`
      : thinking.type === "disabled"
        ? "off"
        : thinking.type.replace("_", " ");
  return effort ? `${kind}, effort ${effort}` : kind;
}

/** The models a thread may choose (`:Tine model`, `model()`, a fan-out's `models`): setup's `model` and `models`. */
export function knownModels(setup: { readonly model: string; readonly models: readonly string[] }): string[] {
  return [...new Set([setup.model, ...setup.models])];
}

/** Why `name` is no model a thread may choose (null: it is one), naming those it may. */
export function unknownModel(name: string, setup: { readonly model: string; readonly models: readonly string[] }): string | null {
  const known = knownModels(setup);
  return known.includes(name)
    ? null
    : `tine: no model ${JSON.stringify(name)} in setup: the models are ${known.join(", ")} (setup's model and models, as :Tine model offers them)`;
}

/**
 * What `:Tine model` offers a thread: setup's model and `models`, the efforts (setup's thinking in
 * words), and what it uses now: `current` in words (null: its program chooses), and the model and
 * effort the picker marks (null when they are not tine's to say).
 */
export function modelChoices(
  chosen: ModelChoice | undefined,
  modelName: string | null,
  setup: { readonly model: string; readonly models: readonly string[]; readonly setupThinking: string },
): ModelChoices {
  const models = knownModels(setup);
  const now: ModelChoice | null = chosen ?? (modelName === null ? null : { model: modelName, effort: "setup" });
  return {
    models,
    efforts: [...THINKING_EFFORTS],
    setup_thinking: setup.setupThinking,
    current: chosen ? describeChoice(chosen) : modelName,
    model: now?.model ?? null,
    effort: now?.effort ?? null,
  };
}

/** What `:Tine model` offers (the `model_choices` call). */
export type ModelChoices = {
  models: string[];
  efforts: ThinkingEffort[];
  /** Setup's thinking in words (the `setup` effort's). */
  setup_thinking: string;
  current: string | null;
  /** The model and effort the thread uses now, marked in the picker; null when its program chooses. */
  model: string | null;
  effort: ThinkingEffort | null;
};

/** What the user is told when a thread's choice changes (a new model or thinking misses the cache); null when it did not change. */
export function choiceNotice(title: string, before: ModelChoice, after: ModelChoice): string | null {
  if (sameChoice(before, after)) return null;
  return `tine: ${title} now uses ${describeChoice(after)}: its next request will not read the prompt cache (written for ${describeChoice(before)})`;
}
