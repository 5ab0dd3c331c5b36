/** A thread's own model and thinking effort (`:Tine model`), as its messages and its stored records keep them. */

/** Thinking effort as `:Tine model` offers it; each but `none` is a thinking budget (`thinking_budgets`). */
export type ThinkingEffort = "none" | "low" | "medium" | "high";
export const THINKING_EFFORTS: readonly ThinkingEffort[] = ["none", "low", "medium", "high"];

export const isThinkingEffort = (v: unknown): v is ThinkingEffort => THINKING_EFFORTS.includes(v as ThinkingEffort);

/** A thread's own model and thinking effort, chosen with `:Tine model`; a thread without one uses setup's `model` and `thinking`. */
export type ModelChoice = { readonly model: string; readonly effort: ThinkingEffort };

export const sameChoice = (a: ModelChoice | null, b: ModelChoice | null): boolean =>
  a === b || (a !== null && b !== null && a.model === b.model && a.effort === b.effort);
