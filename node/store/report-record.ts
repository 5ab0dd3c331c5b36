/** A fork's report queued for a thread's next user turn, as its transcript keeps it (records.ts `report`). */
import type { QueuedReport } from "../chat/prompts.ts";
import type { ChangeRecord } from "./records.ts";

type ReportRecord = Extract<ChangeRecord, { t: "report" }>;

/** A queued report as its record, and back: its kind only when it has one. */
export const reportRecord = (r: QueuedReport): ReportRecord => ({
  t: "report",
  from: r.from,
  text: r.text,
  ...(r.kind ? { kind: r.kind } : {}),
});
export const reportOf = (r: ReportRecord): QueuedReport => ({ from: r.from, text: r.text, ...(r.kind ? { kind: r.kind } : {}) });
