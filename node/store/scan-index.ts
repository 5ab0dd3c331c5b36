/**
 * The list's cache on disk, `index.json`: one scan state per transcript (see summary.ts). Only a
 * cache, so nothing in it is trusted: every entry is checked field by field when read, and one of
 * the wrong shape is dropped (its file is scanned again) without touching the others.
 */
import { renameSync, unlinkSync, writeFileSync } from "node:fs";
import { checkResultFrom, fanOutPlaceFrom } from "../core/fan-out-record.ts";
import { isThreadId } from "../core/ids.ts";
import { checkRunnerSpec } from "../core/runner-spec.ts";
import { isCount, isObject } from "../core/shapes.ts";
import { checkStoredUsage } from "../usage/stored.ts";
import { readRegular } from "../util/regular-file.ts";
import { ENDINGS, FORMAT_VERSION, isParentPointer, isWorktree } from "./records.ts";
import type { LogProblem } from "./replay.ts";
import type { ScanState, ThreadSummary } from "./summary.ts";

/**
 * The index's entries that are whole: it is only a cache, so an entry of the wrong shape (or an
 * index that is damaged, not JSON, or not a regular file) is dropped and its file scanned again.
 */
export function readIndex(path: string): Map<string, ScanState> {
  const index = new Map<string, ScanState>();
  let parsed: unknown;
  try {
    parsed = JSON.parse(readRegular(path).toString("utf8"));
  } catch {
    return index; // none yet, or unreadable: rebuilt
  }
  if (!isObject(parsed) || parsed["v"] !== FORMAT_VERSION || !isObject(parsed["files"])) return index;
  for (const [name, entry] of Object.entries(parsed["files"])) {
    const state = checkScanState(name, entry);
    if (state) index.set(name, state);
  }
  return index;
}

/** Replaces the index by renaming a fresh file over it (a link there is replaced, never written through). */
export function writeIndex(path: string, files: Record<string, ScanState>, pid: number): void {
  const tmp = `${path}.${pid}.tmp`;
  try {
    try {
      unlinkSync(tmp); // left by a host that died while writing
    } catch {}
    writeFileSync(tmp, JSON.stringify({ v: FORMAT_VERSION, files }), { mode: 0o600, flag: "wx" });
    renameSync(tmp, path);
  } catch {
    // A read-only data dir still lists; the next list scans again.
  }
}

/**
 * A cached scan of the file `name`, as read from the index, or null when any field a list or a
 * tree reads is missing or of the wrong type (that file is then scanned again).
 */
export function checkScanState(name: string, v: unknown): ScanState | null {
  if (!isObject(v)) return null;
  const { size, mtimeMs, offset, lines, summary, error } = v;
  if (!isCount(size) || typeof mtimeMs !== "number" || !isCount(offset) || offset > size || !isCount(lines)) return null;
  if (error !== undefined && typeof error !== "string") return null;
  if (summary === null) return typeof error === "string" ? { size, mtimeMs, offset, lines, summary: null, error } : null;
  const checked = checkSummary(summary);
  if (!checked || `${checked.id}.jsonl` !== name) return null;
  return { size, mtimeMs, offset, lines, summary: checked };
}

function checkSummary(v: unknown): ThreadSummary | null {
  if (!isObject(v)) return null;
  const { id, num, title, cwd, model, created, parent, updated, messages, deleted, runner, branches, ended, problems, label, interrupted } =
    v;
  // Present in every entry (null: none); an index written before worktrees is scanned again.
  const worktree = v["worktree"];
  if (worktree !== null && !isWorktree(worktree)) return null;
  // Present in every entry (null: none); an index written before fan-outs were kept is scanned again.
  const fanOut = v["fanOut"] === null ? null : fanOutPlaceFrom(v["fanOut"]);
  const check = checkResultFrom(v["check"]);
  if ((v["fanOut"] !== null && !fanOut) || check === undefined) return null;
  // Absent in an index written before usage was kept: that file is scanned again, for its figures.
  const usage = checkStoredUsage(v["usage"]);
  if (!usage) return null;
  if (!isThreadId(id) || !isCount(num) || typeof title !== "string" || typeof cwd !== "string" || typeof model !== "string") return null;
  if (typeof created !== "number" || typeof updated !== "number" || !isCount(messages) || typeof deleted !== "boolean") return null;
  if (parent !== null && !isParentPointer(parent)) return null;
  const spec = checkRunnerSpec(runner);
  if (!spec.ok) return null;
  const isBranch = (b: unknown) => isObject(b) && isThreadId(b["to"]) && isCount(b["after"]) && isCount(b["upTo"]);
  if (!Array.isArray(branches) || !branches.every(isBranch)) return null;
  const isEnded = (e: unknown) =>
    isObject(e) && typeof e["how"] === "string" && ENDINGS.has(e["how"]) && (e["into"] === undefined || isThreadId(e["into"]));
  if (ended !== null && !isEnded(ended)) return null;
  const isProblem = (p: unknown) => isObject(p) && isCount(p["line"]) && typeof p["error"] === "string";
  if (!Array.isArray(problems) || !problems.every(isProblem)) return null;
  if (label !== undefined && label !== null && typeof label !== "string") return null;
  if (interrupted !== undefined && typeof interrupted !== "boolean") return null;
  // Absent in an index written before queues were counted: that file is scanned again.
  const queued = v["queued"];
  if (!isCount(queued)) return null;
  return {
    id,
    num,
    title,
    cwd,
    model,
    created,
    parent,
    updated,
    messages,
    deleted,
    runner: spec.spec,
    branches: branches as ThreadSummary["branches"],
    ended: ended as ThreadSummary["ended"],
    problems: problems as LogProblem[],
    label: label ?? null,
    interrupted: interrupted === true,
    queued,
    worktree,
    usage,
    fanOut,
    check,
  };
}
