/**
 * The transcript format: one JSON record per line, appended, never rewritten. A header first,
 * then one record per change to the thread's history. Messages are stored exactly as the Messages
 * API takes them; view state never goes in. `t` comes first in every record, so a reader that only
 * needs counts can tell an `append` line from its first bytes without parsing the message.
 */
import { checkRunnerSpec, type RunnerSpec } from "../chat/runner.ts";
import type { AssistantBlock, NativeMessage, ResponseMeta, ToolResultBlock } from "../providers/native.ts";

export const FORMAT_VERSION = 1;

/**
 * Where a thread hangs in the tree. A fork shares its parent's history: the parent's log up to
 * `records` (header excluded) is its start. A hand-off (`@handoff`, an export to Claude Code) is
 * a thread of its own, linked under its source: nothing of the source's log is replayed for it.
 * Pointers written before hand-offs were told apart have no `relation`: they are forks.
 */
export type ParentPointer =
  | {
      readonly relation: "fork";
      readonly id: string;
      readonly records: number;
      /** The last parent message the fork shares, for the tree (the fork's own view is in its log). */
      readonly atMessage: number;
      /** Messages in the parent's history at `records`: the list counts a fork's without reading its parent. */
      readonly messages: number;
    }
  | {
      readonly relation: "handoff";
      readonly id: string;
      /** The source's last message when the hand-off was made, for the tree. */
      readonly atMessage: number;
    };

export type Header = {
  readonly t: "header";
  readonly v: number;
  readonly id: string;
  /** A short number for display (buffer names); unique per project only in practice. */
  readonly num: number;
  readonly title: string;
  readonly created: number;
  readonly cwd: string;
  readonly model: string;
  readonly parent: ParentPointer | null;
  /**
   * What runs the thread. Headers written before it was kept here have none (tine's agent), or a
   * `claude: { command, sessionId }` field, read as a Claude Code runner (see `decode`).
   */
  readonly runner: RunnerSpec;
  /** Where the conversation came from when it was imported (a Claude Code session). */
  readonly origin?: { readonly kind: string; readonly sessionId: string | null; readonly path: string };
};

export type ChangeRecord =
  /** An entry appended to the history. Ends the open turn (its blocks are in the entry). */
  | { readonly t: "append"; readonly m: NativeMessage; readonly meta?: ResponseMeta }
  /** The history cut to its first `n` entries (a clean-up replaced the tail). Ends the open turn. */
  | { readonly t: "truncate"; readonly n: number }
  /** A finished block of the assistant turn being streamed. */
  | { readonly t: "block"; readonly b: AssistantBlock }
  /** The open turn's blocks cut to `n` (a retried or continued response). */
  | { readonly t: "open"; readonly n: number }
  /**
   * Text of the block being streamed, as far as it had arrived: `text` from character `at` on
   * (what is before `at` came in earlier records). Written now and then, never per delta; the
   * finished block, or any record that ends or cuts the open turn, replaces it.
   */
  | { readonly t: "streamed"; readonly at: number; readonly text: string }
  /** A tool that finished while others of the same turn had not: its result, kept for a crash. */
  | { readonly t: "result"; readonly r: ToolResultBlock }
  | { readonly t: "title"; readonly title: string }
  /** Deleted by the user; the log stays while forks point into it. */
  | { readonly t: "deleted" }
  /** A fork's report queued for this thread's next user turn. */
  | { readonly t: "report"; readonly from: string; readonly text: string }
  /** The queued reports went out with a user turn. */
  | { readonly t: "reports-sent" }
  /** The fork ended (discarded, reported, or promoted `into` its parent); `:Tine threads!` can restore it. */
  | { readonly t: "ended"; readonly how: "discarded" | "reported" | "promoted"; readonly into?: string }
  | { readonly t: "restored" }
  /**
   * A promote gave this thread a fork's history; its old tail became `to`. Forks of this thread
   * that point at its first `upTo` records and branched after message `after` belong to `to`.
   */
  | { readonly t: "branched"; readonly to: string; readonly after: number; readonly upTo: number };

export type StoredRecord = Header | ChangeRecord;

const CHANGE_TYPES = new Set([
  "append",
  "truncate",
  "block",
  "open",
  "streamed",
  "result",
  "title",
  "deleted",
  "report",
  "reports-sent",
  "ended",
  "restored",
  "branched",
]);

export function encode(record: StoredRecord): string {
  return `${JSON.stringify(record)}\n`;
}

export type Decoded = { ok: true; record: StoredRecord } | { ok: false; error: string };

/** Checks the shape a replay relies on; a record that passes cannot make the replay throw. */
export function decode(line: string): Decoded {
  let r: Record<string, unknown>;
  try {
    r = JSON.parse(line) as Record<string, unknown>;
  } catch (error) {
    return { ok: false, error: `not JSON (${(error as Error).message})` };
  }
  if (!r || typeof r !== "object" || Array.isArray(r)) return { ok: false, error: "not an object" };
  const bad = (what: string): Decoded => ({ ok: false, error: `${String(r["t"])} record: ${what}` });
  switch (r["t"]) {
    case "header": {
      if (typeof r["id"] !== "string" || typeof r["title"] !== "string" || typeof r["cwd"] !== "string")
        return bad("id, title or cwd missing");
      if (r["v"] !== FORMAT_VERSION) return bad(`format version ${String(r["v"])} is not ${FORMAT_VERSION}`);
      const runner = checkRunnerSpec(r["runner"] ?? legacyRunner(r["claude"]));
      if (!runner.ok) return bad(runner.why);
      const parent = parentPointer(r["parent"]);
      if (parent === undefined) return bad("parent is not a fork or hand-off pointer");
      const { claude: _legacy, ...header } = r;
      return { ok: true, record: { ...header, parent, runner: runner.spec } as Header };
    }
    case "append": {
      const m = r["m"] as Record<string, unknown> | undefined;
      if (!m || (m["role"] !== "user" && m["role"] !== "assistant") || !Array.isArray(m["content"])) return bad("no message");
      return { ok: true, record: r as ChangeRecord };
    }
    case "truncate":
    case "open":
      if (typeof r["n"] !== "number" || r["n"] < 0) return bad("n missing");
      return { ok: true, record: r as ChangeRecord };
    case "streamed":
      if (typeof r["at"] !== "number" || r["at"] < 0 || typeof r["text"] !== "string") return bad("at or text missing");
      return { ok: true, record: r as ChangeRecord };
    case "block":
      if (!r["b"] || typeof r["b"] !== "object") return bad("no block");
      return { ok: true, record: r as ChangeRecord };
    case "result":
      if (!r["r"] || typeof (r["r"] as Record<string, unknown>)["tool_use_id"] !== "string") return bad("no result");
      return { ok: true, record: r as ChangeRecord };
    case "title":
      if (typeof r["title"] !== "string") return bad("no title");
      return { ok: true, record: r as ChangeRecord };
    case "report":
      if (typeof r["from"] !== "string" || typeof r["text"] !== "string") return bad("from or text missing");
      return { ok: true, record: r as ChangeRecord };
    case "ended":
      if (!["discarded", "reported", "promoted"].includes(String(r["how"]))) return bad("how missing");
      return { ok: true, record: r as ChangeRecord };
    case "branched":
      if (typeof r["to"] !== "string" || typeof r["after"] !== "number" || typeof r["upTo"] !== "number")
        return bad("to, after or upTo missing");
      return { ok: true, record: r as ChangeRecord };
    case "deleted":
    case "reports-sent":
    case "restored":
      return { ok: true, record: r as ChangeRecord };
    default:
      return { ok: false, error: `unknown record type ${String(r["t"])}` };
  }
}

/** A header's parent pointer checked (and an old one read as a fork), or undefined when it is not one. */
function parentPointer(v: unknown): ParentPointer | null | undefined {
  if (v === null || v === undefined) return null;
  if (typeof v !== "object" || Array.isArray(v)) return undefined;
  const p = v as Record<string, unknown>;
  if (typeof p["id"] !== "string" || !isCount(p["atMessage"])) return undefined;
  if (p["relation"] === "handoff") return { relation: "handoff", id: p["id"], atMessage: p["atMessage"] };
  if (p["relation"] !== undefined && p["relation"] !== "fork") return undefined;
  if (!isCount(p["records"]) || !isCount(p["messages"])) return undefined;
  return { relation: "fork", id: p["id"], records: p["records"], atMessage: p["atMessage"], messages: p["messages"] };
}

const isCount = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0;

/**
 * The runner of a header written before `runner` existed: none (tine's agent), or a Claude Code
 * command and session. The stored program is never run: only the arguments after it are kept, and
 * the configured `claude_command` runs them.
 */
function legacyRunner(claude: unknown): unknown {
  if (claude === undefined) return { kind: "api" };
  const c = claude as { command?: unknown; sessionId?: unknown } | null;
  return { kind: "claude-code", args: Array.isArray(c?.command) ? c.command.slice(1) : c?.command, sessionId: c?.sessionId };
}

export const isChange = (r: StoredRecord): r is ChangeRecord => CHANGE_TYPES.has(r.t);
