/**
 * Usage a thread's program reports of itself (an ACP agent's `usage_update`): how full its context
 * is and what its session has cost, as the agent counts them. tine's own threads have neither: the
 * book derives both from their history and the price table. Nothing an agent says is trusted: a
 * figure that is not a finite count is dropped, a unit that is not a short word is not shown.
 */

/** What a runner's program says of its usage (chat/runner.ts `reportedUsage`). */
export type ReportedUsage = {
  /** Tokens in its context now and its window's size, or null before it said. */
  readonly context: { readonly used: number; readonly size: number } | null;
  /** Its session's cost so far, in `unit` (an ISO 4217 code such as "USD", or "credits"), or null when it says none. */
  readonly cost: { readonly amount: number; readonly unit: string } | null;
};

export const NOTHING_REPORTED: ReportedUsage = { context: null, cost: null };

const count = (n: unknown): n is number => typeof n === "number" && Number.isFinite(n) && n >= 0;

/** What an agent said (`used`, `size`, `cost`), checked: what does not fit is left out. */
export function reportedOf(said: {
  readonly used?: unknown;
  readonly size?: unknown;
  readonly cost?: { readonly amount?: unknown; readonly currency?: unknown } | null;
}): ReportedUsage {
  const context = count(said.used) && count(said.size) ? { used: said.used, size: said.size } : null;
  const unit = said.cost?.currency;
  const cost =
    said.cost && count(said.cost.amount) && typeof unit === "string" && /^[A-Za-z]{1,12}$/.test(unit)
      ? { amount: said.cost.amount, unit: unit.toUpperCase() === "USD" ? "USD" : unit }
      : null;
  return { context, cost };
}

/** The cost in dollars, when the agent gave it in dollars. */
export const reportedDollars = (r: ReportedUsage): number | null => (r.cost?.unit === "USD" ? r.cost.amount : null);
