/**
 * A side request as a record: what a thread was billed for beside the entries of its history
 * (its title's request, a compaction's summary, a rewound hand-off, a failed attempt the API had
 * begun to answer). Which requests count, and how one is read back, is usage/side.ts.
 */
import type { Usage } from "./native.ts";

export type SideKind = "title" | "compact" | "handoff" | "failed";

export type SideRequest = {
  readonly kind: SideKind;
  readonly model: string;
  readonly usage: Usage;
  /** Requests it sums (a rewound entry of a paused turn holds several). */
  readonly requests: number;
  readonly at: number;
};
