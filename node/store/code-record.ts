/**
 * The `code` record of a transcript (a code snapshot a thread's messages were made on) checked
 * field by field, as every record is (records.ts), and turned into the mark a thread keeps.
 */

import type { CodeMark, FileChange, ThreadMark } from "../core/code-marks.ts";
import type { History } from "../core/history.ts";
import { isCount, isObject } from "../core/shapes.ts";

/**
 * A code snapshot (node/snapshot/) taken once the history held `at` messages; `from` and `files`:
 * a turn's end, and what it changed since its first snapshot `from`. Logs written before
 * snapshots existed have none. One of records.ts's change records.
 */
export type CodeRecord = {
  readonly t: "code";
  readonly at: number;
  readonly id: string;
  readonly skipped?: readonly string[];
  readonly from?: string;
  readonly files?: readonly FileChange[];
};

/** A snapshot id as git writes it: hex, nothing that could reach a command line as an option. */
const isSha = (v: unknown): v is string => typeof v === "string" && /^[0-9a-f]{40,64}$/.test(v);

const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === "string");

const STATUSES: ReadonlySet<unknown> = new Set(["added", "modified", "deleted"]);
const isCountOrNull = (v: unknown) => v === null || isCount(v);

function isFileChange(v: unknown): v is FileChange {
  return (
    isObject(v) && typeof v["path"] === "string" && STATUSES.has(v["status"]) && isCountOrNull(v["added"]) && isCountOrNull(v["removed"])
  );
}

/** The record checked, or what is wrong with it. */
export function codeRecord(r: Record<string, unknown>): CodeRecord | string {
  if (!isCount(r["at"]) || !isSha(r["id"])) return "at or id missing";
  if (r["skipped"] !== undefined && !isStrings(r["skipped"])) return "skipped is not a list of paths";
  if (r["from"] === undefined)
    return { t: "code", at: r["at"], id: r["id"], ...(r["skipped"] ? { skipped: r["skipped"] as string[] } : {}) };
  if (!isSha(r["from"]) || !Array.isArray(r["files"]) || !r["files"].every(isFileChange))
    return "from or files is not a snapshot's changes";
  const files = (r["files"] as FileChange[]).map((f) => ({ path: f.path, status: f.status, added: f.added, removed: f.removed }));
  return { t: "code", at: r["at"], id: r["id"], ...(r["skipped"] ? { skipped: r["skipped"] as string[] } : {}), from: r["from"], files };
}

/** The record of a mark. */
export function toCodeRecord(m: CodeMark): CodeRecord {
  return {
    t: "code",
    at: m.at,
    id: m.id,
    ...(m.skipped.length ? { skipped: m.skipped } : {}),
    ...(m.turn ? { from: m.turn.from, files: m.turn.files } : {}),
  };
}

/** The mark a replayed record gives, attached to the entry it followed in `history`. */
export function markOf(record: CodeRecord, history: History): ThreadMark {
  if (record.at > history.length) throw new Error(`a code snapshot at ${record.at} of ${history.length} messages`);
  return {
    at: record.at,
    id: record.id,
    skipped: record.skipped ?? [],
    ...(record.from && record.files ? { turn: { from: record.from, files: record.files } } : {}),
    entry: record.at > 0 ? history.at(record.at - 1) : null,
  };
}
