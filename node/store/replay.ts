/**
 * Reading a transcript back: its lines parsed (a truncated last line tolerated, any other bad line
 * reported), and its change records replayed onto a History. Pure but for `readLog`.
 */
import { type Labels, NO_LABELS, withinHistory, withLabel } from "../chat/labels.ts";
import type { QueuedReport } from "../chat/prompts.ts";
import type { AgentChoices } from "../core/agent-choices.ts";
import type { ThreadMark } from "../core/code-marks.ts";
import type { CodeNote } from "../core/graft-note.ts";
import { History } from "../core/history.ts";
import type { ModelChoice } from "../core/model-choice.ts";
import { type AssistantBlock, entry, freezeMessage, type ResponseMeta, type ToolResultBlock } from "../core/native.ts";
import type { SideRequest } from "../core/side-request.ts";
import { closeTurn } from "../providers/turn-cleanup.ts";
import { readRegular } from "../util/regular-file.ts";
import { markOf } from "./code-record.ts";
import { type ChangeRecord, decode, type Header, isChange, type StoredQueued } from "./records.ts";
import { reportOf } from "./report-record.ts";

/** The tool calls of a turn the host never finished (killed, quit, restarted) are answered so. */
export const SESSION_ENDED_BEFORE_TOOL_RAN = "The session ended before the tool ran.";
/** …and those that had begun to run when it ended (a `started` record, no result). */
export const SESSION_ENDED_WHILE_TOOL_RAN = "The session ended while the tool ran; it may have partly run (its output is lost).";

/** A thread as its log leaves it, before the interrupted turn (if any) is closed. */
export type LogState = {
  readonly history: History;
  /** Finished blocks of a turn that was streaming when the log ends. */
  readonly open: readonly AssistantBlock[];
  /** The text block that was streaming after them, as far as it was written ("" for none). */
  readonly streamed: string;
  /** Results of tools that finished while others of their turn had not. */
  readonly results: ReadonlyMap<string, ToolResultBlock>;
  /** Tool calls of the open turn that began to run. */
  readonly started: ReadonlySet<string>;
  /** The error its last request failed with, while nothing changed the history since; else null. */
  readonly failed: string | null;
  readonly title: string;
  /** Its own model and thinking effort (`:Tine model`), or null: setup's. */
  readonly model: ModelChoice | null;
  /** What the user chose of its program's settings (core/agent-choices.ts), or null: none. */
  readonly settings: AgentChoices | null;
  readonly deleted: boolean;
  /** Fork reports waiting for the next user turn. */
  readonly reports: readonly QueuedReport[];
  /** Forks' changes grafted into its files, waiting for the next user turn. */
  readonly grafts: readonly CodeNote[];
  /** Messages the user sent while the agent worked, still waiting. */
  readonly queue: readonly StoredQueued[];
  /** The user's labels on the thread and its messages. */
  readonly labels: Labels;
  /** How the fork ended, or null while it is part of the tree. */
  readonly ended: { readonly how: "discarded" | "reported" | "promoted"; readonly into?: string } | null;
  /** The code snapshots its messages were made on. */
  readonly code: readonly ThreadMark[];
  /** Requests it was billed for beside its entries (a fork's parent's are not its own: a fork starts with none). */
  readonly side: readonly SideRequest[];
};

const NONE_STARTED: ReadonlySet<string> = new Set();

export const emptyState = (title: string): LogState => ({
  history: History.empty,
  open: [],
  streamed: "",
  results: new Map(),
  started: new Set(),
  failed: null,
  title,
  model: null,
  settings: null,
  deleted: false,
  reports: [],
  grafts: [],
  queue: [],
  labels: NO_LABELS,
  ended: null,
  code: [],
  side: [],
});

/** The state after one record; throws on a record that does not fit the state (then it is reported and skipped). */
export function applyRecord(state: LogState, record: ChangeRecord): LogState {
  switch (record.t) {
    case "append":
      return {
        ...state,
        history: state.history.push(entry(freezeMessage(record.m), record.meta)),
        open: [],
        streamed: "",
        results: new Map(),
        started: NONE_STARTED,
        failed: null,
      };
    case "truncate":
      if (record.n > state.history.length) throw new Error(`truncate to ${record.n} of ${state.history.length} messages`);
      return {
        ...state,
        history: state.history.prefix(record.n),
        open: [],
        streamed: "",
        results: new Map(),
        started: NONE_STARTED,
        failed: null,
        labels: withinHistory(state.labels, record.n),
      };
    case "block":
      return { ...state, open: [...state.open, Object.freeze(record.b)], streamed: "", failed: null };
    case "open":
      if (record.n > state.open.length) throw new Error(`open turn cut to ${record.n} of ${state.open.length} blocks`);
      return { ...state, open: state.open.slice(0, record.n), streamed: "", failed: null };
    case "streamed":
      if (record.at > state.streamed.length) throw new Error(`streamed text from ${record.at} of ${state.streamed.length} characters`);
      return { ...state, streamed: state.streamed.slice(0, record.at) + record.text };
    case "result":
      return { ...state, results: new Map(state.results).set(record.r.tool_use_id, Object.freeze(record.r)) };
    case "started":
      return { ...state, started: new Set(state.started).add(record.id) };
    case "failed":
      return { ...state, failed: record.error };
    case "title":
      return { ...state, title: record.title };
    case "side":
      return { ...state, side: [...state.side, record.request] };
    case "model":
      return { ...state, model: { model: record.model, effort: record.effort } };
    case "settings":
      return { ...state, settings: record.settings };
    case "label":
      return { ...state, labels: withLabel(state.labels, record.message ?? null, record.text) };
    case "deleted":
      return { ...state, deleted: true };
    case "report":
      return { ...state, reports: [...state.reports, reportOf(record)] };
    case "reports-sent":
      return { ...state, reports: [] };
    case "graft":
      return { ...state, grafts: [...state.grafts, record.note] };
    case "grafts-sent":
      return { ...state, grafts: [] };
    case "queue":
      return { ...state, queue: record.items };
    case "ended":
      return { ...state, ended: record.into ? { how: record.how, into: record.into } : { how: record.how } };
    case "restored":
      return { ...state, ended: null };
    case "branched":
    case "interrupted":
    case "check":
      return state; // bookkeeping for the list (the tree, a turn cut when tine stopped, a fan-out fork's check)
    case "code":
      return { ...state, code: [...state.code, markOf(record, state.history)] };
  }
}

/** How a reply cut off by the end of the session (a kill, a crash) is marked: as an abort marks one. */
export const SESSION_ENDED: ResponseMeta = Object.freeze({
  stopReason: "session_ended",
  usage: Object.freeze({ input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }),
  interrupted: true,
});

/**
 * The history to continue from: a turn the log ends in the middle of is closed by the same rule
 * as an abort, so the next send is valid (finished blocks and the text that had arrived kept,
 * marked interrupted; tools without a result answered).
 */
export function recoverHistory(state: LogState): History {
  // A call that began to run and left no result is answered as cut off, never as not run.
  const known = new Map(state.results);
  for (const id of state.started)
    if (!known.has(id)) known.set(id, { type: "tool_result", tool_use_id: id, content: SESSION_ENDED_WHILE_TOOL_RAN, is_error: true });
  const options = { knownResults: known, missingResultText: SESSION_ENDED_BEFORE_TOOL_RAN };
  // Only a reply that was streaming is cut; a finished one whose tools never ran is not.
  if (!state.open.length && !state.streamed) return closeTurn(state.history, null, options);
  return closeTurn(state.history, { finalized: state.open, partialText: state.streamed }, { ...options, meta: SESSION_ENDED });
}

/** A stored thread whose last request failed comes back failed (its failed turn last, for `R` to send again): `{ failed }` then. */
export function failedTurn(loaded: { readonly raw: LogState; readonly history: History }): { failed?: string } {
  const { raw, history } = loaded;
  return raw.failed !== null && history.last()?.message.role === "user" ? { failed: raw.failed } : {};
}

export type LogProblem = { readonly line: number; readonly error: string };

export type ParsedLog = {
  readonly header: Header;
  /** Change records in order; a fork's pointer counts these. */
  readonly records: readonly ChangeRecord[];
  /** The line each record came from, for reports. */
  readonly lines: readonly number[];
  readonly problems: readonly LogProblem[];
};

/** Parses a transcript's text. Throws only when there is no usable header. */
export function parseLog(text: string, path: string): ParsedLog {
  const lines = text.split("\n");
  // A record is written as one line with its newline; a last line without one was cut mid-write
  // (kill -9) and is not a record, even when what remains happens to parse. The writer cuts it.
  lines.pop();
  const problems: LogProblem[] = [];
  const records: ChangeRecord[] = [];
  const recordLines: number[] = [];
  let header: Header | null = null;
  const take = (line: string, number: number) => {
    if (line.trim() === "") return;
    const d = decode(line);
    if (!d.ok) {
      problems.push({ line: number, error: d.error });
      return;
    }
    if (d.record.t === "header") {
      if (header) problems.push({ line: number, error: "a second header" });
      else if (number !== 1) problems.push({ line: number, error: "the header is not the first line" });
      else header = d.record;
      return;
    }
    if (isChange(d.record)) {
      records.push(d.record);
      recordLines.push(number);
    }
  };
  for (const [i, line] of lines.entries()) take(line, i + 1);
  if (!header) throw new Error(`${path}: no valid header on line 1${problems[0] ? ` (${problems[0].error})` : ""}`);
  return { header, records, lines: recordLines, problems };
}

/** Reads a transcript, never through a link (see regular-file.ts). */
export function readLog(path: string): ParsedLog {
  return parseLog(readRegular(path).toString("utf8"), path);
}

/**
 * Replays a log's records onto `base`, recording a record that does not fit as a problem instead
 * of stopping: the rest still loads.
 */
export function replay(base: LogState, log: ParsedLog, from: number, upTo: number, problems?: LogProblem[]): LogState {
  let state = base;
  for (let i = from; i < upTo; i++) {
    try {
      state = applyRecord(state, log.records[i]!);
    } catch (error) {
      problems?.push({ line: log.lines[i]!, error: (error as Error).message });
    }
  }
  return state;
}
