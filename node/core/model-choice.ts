/** A thread's own model and thinking effort (`:Tine model`), as its messages and its stored records keep them. */

/**
 * Thinking effort as `:Tine model` offers it: `setup` keeps setup's `thinking` and `effort` (adaptive
 * by default) with the model chosen; `none` turns thinking off; the others are a thinking budget
 * (`thinking_budgets`).
 */
export type ThinkingEffort = "setup" | "none" | "low" | "medium" | "high";
export const THINKING_EFFORTS: readonly ThinkingEffort[] = ["setup", "none", "low", "medium", "high"];

export const isThinkingEffort = (v: unknown): v is ThinkingEffort => THINKING_EFFORTS.includes(v as ThinkingEffort);

/** A thread's own model and thinking effort, chosen with `:Tine model`; a thread without one uses setup's `model` and `thinking`. */
export type ModelChoice = { readonly model: string; readonly effort: ThinkingEffort };

/** A choice's thinking in words, as the banner, the winbar, the picker and the notice name it. */
export function effortWords(effort: ThinkingEffort): string {
  switch (effort) {
    case "setup":
      return "thinking as in setup";
    case "none":
      return "no thinking";
    case "low":
    case "medium":
    case "high":
      return `thinking ${effort}`;
  }
}

export const sameChoice = (a: ModelChoice | null, b: ModelChoice | null): boolean =>
  a === b || (a !== null && b !== null && a.model === b.model && a.effort === b.effort);
