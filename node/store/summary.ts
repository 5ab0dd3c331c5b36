/**
 * What the thread list needs of a transcript (title, tree position, message count, time), read
 * incrementally: logs only grow, so a cached scan is continued from the byte it stopped at, and
 * an unchanged file (same size and mtime) is not opened at all. `append` lines are counted from
 * their first bytes; of a reply's line only its `meta` (at the line's end) is parsed, for the
 * thread's usage (usage/stored.ts). Scans are cached in the project's index (scan-index.ts).
 */

import { closeSync, fstatSync, type Stats } from "node:fs";
import { basename } from "node:path";
import type { CheckResult, FanOutPlace } from "../core/fan-out-record.ts";
import type { ResponseMeta } from "../core/native.ts";
import type { RunnerSpec } from "../core/runner-spec.ts";
import { metaProblem } from "../core/shapes.ts";
import { NO_STORED_USAGE, type StoredUsage, UsageScan } from "../usage/stored.ts";
import { metaFrom, usageFrom } from "../usage/token-counts.ts";
import { openRegular, readFrom } from "../util/regular-file.ts";
import { decode, type Header, type ParentPointer } from "./records.ts";
import type { LogProblem } from "./replay.ts";

export type ThreadSummary = {
  readonly id: string;
  readonly num: number;
  readonly title: string;
  readonly cwd: string;
  readonly model: string;
  readonly created: number;
  readonly parent: ParentPointer | null;
  /** Last change (the file's mtime). */
  readonly updated: number;
  readonly messages: number;
  readonly deleted: boolean;
  /** What runs the thread. */
  readonly runner: RunnerSpec;
  /** Old tails moved to other threads by promotes (see the `branched` record). */
  readonly branches: readonly { readonly to: string; readonly after: number; readonly upTo: number }[];
  /** How the fork ended, or null; `into`: the thread a promoted fork went into. */
  readonly ended: { readonly how: "discarded" | "reported" | "promoted"; readonly into?: string } | null;
  readonly problems: readonly LogProblem[];
  /** The user's label on the thread, or null (absent in an index written before labels). */
  readonly label?: string | null;
  /** Cut off when tine stopped while it worked, with no message since (absent in an index written before). */
  readonly interrupted?: boolean;
  /** How many messages wait in its queue, unsent (an index written before it was kept is scanned again). */
  readonly queued: number;
  /** The git worktree of its own it works in (its header's), or null: the project's folder (or its parent's). */
  readonly worktree: NonNullable<Header["worktree"]> | null;
  /** What its own requests used (an index written before it was kept is scanned again). */
  readonly usage: StoredUsage;
  /** A fan-out fork's place in its fan-out (its header's), or null; its check's last end, or null (none, or cleared by a later turn). */
  readonly fanOut: FanOutPlace | null;
  readonly check: CheckResult | null;
};

export type ScanState = {
  readonly size: number;
  readonly mtimeMs: number;
  /** Bytes scanned: the end of the last complete line. */
  readonly offset: number;
  readonly lines: number;
  /** Null when the file has no valid header (then `error` says why). */
  readonly summary: ThreadSummary | null;
  readonly error?: string;
};

const APPEND_PREFIX = '{"t":"append"';
/** A reply's line: its `meta` is the record's last field (sync.ts writes `t`, `m`, `meta` in that order). */
const REPLY_PREFIX = '{"t":"append","m":{"role":"assistant"';
const META_KEY = ',"meta":{"stopReason":';

/**
 * The shape the host writes a reply's `meta` in (stream.ts `turnUsage`), read without a JSON
 * parse: half the cost of a cold list is spent here otherwise. Anchored at both ends, so that it
 * is the line's own last field; a meta of any other shape (a paused turn's `continued`, notes, an
 * older writer's) is parsed whole.
 */
const WRITTEN_META =
  /^\{"stopReason":"[a-z_]*","usage":\{"input_tokens":(\d+),"output_tokens":(\d+),"cache_read_input_tokens":(\d+),"cache_creation_input_tokens":(\d+)(?:,"web_search_requests":(\d+))?\}(?:,"request":\{"model":"([^"\\]*)","prefix":"([^"\\]*)","at":(\d+)\})?\}$/;

/** Where the record's own `meta` starts: its last field, so the last match (looked for from the line's end first). */
function metaStart(line: string): number {
  let at = line.indexOf(META_KEY, Math.max(0, line.length - 4096));
  if (at < 0) return line.length > 4096 ? line.lastIndexOf(META_KEY) : -1;
  for (let next = line.indexOf(META_KEY, at + 1); next >= 0; next = line.indexOf(META_KEY, at + 1)) at = next;
  return at;
}

/** The usage a reply's line keeps in its `meta`, into `usage`; none, or not one (a key of that name inside the message does not parse as the rest of the line): nothing. */
function readReply(line: string, at: number, usage: UsageScan): void {
  const start = metaStart(line);
  if (start < 0) return;
  const text = line.slice(start + 8, -1);
  const m = WRITTEN_META.exec(text);
  if (m) {
    const n = (i: number) => Number(m[i] ?? 0);
    const request = m[6] === undefined ? null : { model: m[6], prefix: m[7]!, at: n(8) };
    const figures = usageFrom({
      input_tokens: n(1),
      output_tokens: n(2),
      cache_read_input_tokens: n(3),
      cache_creation_input_tokens: n(4),
      web_search_requests: n(5),
    });
    usage.written(at, figures, request);
    return;
  }
  try {
    const meta: unknown = JSON.parse(text);
    if (metaProblem(meta) === null) usage.entry(at, metaFrom(meta as ResponseMeta));
  } catch {}
}

/**
 * Scans a transcript from where `previous` stopped. `seen` is the path's lstat: an unchanged file
 * is not opened; a changed one is opened without following a link and measured again.
 */
export function scanLog(path: string, seen: Stats, previous: ScanState | null): ScanState {
  if (previous && previous.size === seen.size && previous.mtimeMs === seen.mtimeMs) return previous;
  const { stat, from, buf } = readSince(path, previous);
  const offset = from?.offset ?? 0;
  const end = buf.lastIndexOf(0x0a);
  const text = end < 0 ? "" : buf.subarray(0, end).toString("utf8");
  let summary = from?.summary ?? null;
  let error = from?.error;
  let lines = from?.lines ?? 0;
  let messages = summary?.messages ?? 0;
  const problems = [...(summary?.problems ?? [])];
  let title = summary?.title ?? "";
  let deleted = summary?.deleted ?? false;
  let ended = summary?.ended ?? null;
  let label = summary?.label ?? null;
  let interrupted = summary?.interrupted ?? false;
  let queued = summary?.queued ?? 0;
  let check = summary?.check ?? null;
  const branches = [...(summary?.branches ?? [])];
  const ownFrom = (p: ThreadSummary["parent"]) => (p?.relation === "fork" ? p.atMessage + 1 : 0);
  let usage = new UsageScan(summary?.usage ?? NO_STORED_USAGE, ownFrom(summary?.parent ?? null));
  for (const line of end < 0 ? [] : text.split("\n")) {
    lines++;
    if (line.startsWith(APPEND_PREFIX)) {
      if (line.startsWith(REPLY_PREFIX)) readReply(line, messages, usage);
      messages++;
      interrupted = false;
      continue;
    }
    if (line.trim() === "") continue;
    const d = decode(line);
    if (!d.ok) {
      if (lines === 1) error = d.error;
      else problems.push({ line: lines, error: d.error });
      continue;
    }
    const r = d.record;
    if (r.t === "header") {
      if (lines !== 1) problems.push({ line: lines, error: "a second header" });
      else if (`${r.id}.jsonl` !== basename(path)) error = `its header names thread ${r.id}, not the one its file name says`;
      else {
        summary = {
          id: r.id,
          num: r.num,
          title: r.title,
          cwd: r.cwd,
          model: r.model,
          created: r.created,
          parent: r.parent,
          updated: 0,
          messages: 0,
          deleted: false,
          ended: null,
          branches: [],
          problems: [],
          runner: r.runner,
          worktree: r.worktree ?? null,
          usage: NO_STORED_USAGE,
          fanOut: r.fanOut ?? null,
          check: null,
          queued: 0,
        };
        title = r.title;
        messages = r.parent?.relation === "fork" ? r.parent.messages : 0;
        usage = new UsageScan(NO_STORED_USAGE, ownFrom(r.parent));
      }
    } else if (r.t === "truncate") {
      // A cut into what an earlier scan summed: sums cannot be taken apart, so the file is read again whole.
      if (!usage.truncate(r.n) && from) return scanLog(path, seen, null);
      messages = r.n;
    } else if (r.t === "side") usage.side(r.request);
    else if (r.t === "title") title = r.title;
    else if (r.t === "label" && r.message === undefined) label = r.text || null;
    else if (r.t === "deleted") deleted = true;
    else if (r.t === "ended") ended = r.into ? { how: r.how, into: r.into } : { how: r.how };
    else if (r.t === "restored") ended = null;
    else if (r.t === "interrupted") interrupted = true;
    else if (r.t === "queue") queued = r.items.length;
    else if (r.t === "check") check = r.result;
    else if (r.t === "branched") branches.push({ to: r.to, after: r.after, upTo: r.upTo });
  }
  if (summary)
    summary = {
      ...summary,
      title,
      messages,
      deleted,
      ended,
      branches,
      problems,
      label,
      interrupted,
      queued,
      check,
      updated: stat.mtimeMs,
      usage: usage.result(),
    };
  else if (!error) error = lines === 0 ? "empty file" : "no header";
  return { size: stat.size, mtimeMs: stat.mtimeMs, offset: offset + end + 1, lines, summary, ...(error && !summary ? { error } : {}) };
}

/** The file's stat and its bytes after where `previous` stopped (all of them when it shrank: it was replaced). */
function readSince(path: string, previous: ScanState | null): { stat: Stats; from: ScanState | null; buf: Buffer } {
  const fd = openRegular(path, "read");
  try {
    const stat = fstatSync(fd);
    const from = previous && previous.offset <= stat.size ? previous : null;
    const offset = from?.offset ?? 0;
    return { stat, from, buf: readFrom(fd, offset).subarray(0, stat.size - offset) };
  } finally {
    closeSync(fd);
  }
}
