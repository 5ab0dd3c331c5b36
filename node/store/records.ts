/**
 * The transcript format: one JSON record per line, appended, never rewritten. A header first,
 * then one record per change to the thread's history. Messages are stored exactly as the Messages
 * API takes them; view state never goes in. `t` comes first in every record, so a reader that only
 * needs counts can tell an `append` line from its first bytes without parsing the message.
 *
 * Over 300 lines: it is the one definition of the format, each record kind beside the check that
 * reads it back (an untrusted file), so that what is written and what is taken back never drift.
 */

import type { StoredQueued } from "../chat/msgs.ts";
import { readContextBlock } from "../context/blocks.ts";
import { type AgentChoices, checkAgentChoices } from "../core/agent-choices.ts";
import { type CheckResult, checkResultFrom, type FanOutPlace, fanOutPlaceFrom } from "../core/fan-out-record.ts";
import { type CodeNote, codeNoteFrom } from "../core/graft-note.ts";
import { isThreadId } from "../core/ids.ts";
import { isThinkingEffort, type ThinkingEffort } from "../core/model-choice.ts";
import type { AssistantBlock, NativeMessage, ResponseMeta, ToolResultBlock } from "../core/native.ts";
import { checkInstructions, checkRunnerSpec, legacyRunner, type RunnerSpec, type ThreadInstructions } from "../core/runner-spec.ts";
import { assistantBlockProblem, isCount, isObject, messageProblem, metaProblem, toolResultProblem } from "../core/shapes.ts";
import type { SideRequest } from "../core/side-request.ts";
import { checkSide } from "../usage/side.ts";
import { metaFrom } from "../usage/token-counts.ts";
import { LINE_BOUNDS, parseBounded } from "../util/bounded-json.ts";
import { type CodeRecord, codeRecord } from "./code-record.ts";

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
      /** A compaction (`@compact`) is linked as a hand-off is: it holds a history of its own. */
      readonly relation: "handoff" | "compact";
      readonly id: string;
      /** The source's last message when the hand-off was made (or the last one summarized), for the tree. */
      readonly atMessage: number;
    };

export type Header = {
  readonly t: "header";
  readonly v: number;
  readonly id: string;
  /** A short number for display (buffer names); unique per project (see numbers.ts). */
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
  /**
   * The project instructions its runner sends, as read when the thread started (`runner` never
   * holds them, so the list's index never holds their text). A fork's header has none: a fork
   * sends what its source sent (see `ThreadStore.load`). Headers written before they were read
   * have none, and neither has a thread that sends none.
   */
  readonly instructions?: ThreadInstructions;
  /**
   * The git worktree of its own its tools work in (node/worktree/), the snapshot it was made from,
   * and whether its tools run in the sandbox (an unattended fork's); none: the project's folder.
   */
  readonly worktree?: { readonly path: string; readonly base: string; readonly unattended?: true };
  /** A fan-out fork's place in its fan-out (core/fan-out-record.ts): one that is not one is dropped, the header still read. */
  readonly fanOut?: FanOutPlace;
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
  /**
   * A tool call of the open turn began to run (it may act on the world from now on): a session
   * that ends before its result tells the model it may have partly run, not that it never ran.
   */
  | { readonly t: "started"; readonly id: string }
  /**
   * Its last request failed with `error` (the view's error line), its turn left to be sent again
   * (`R`): a restart brings the thread back failed. Any later change of the history ends it.
   */
  | { readonly t: "failed"; readonly error: string }
  | { readonly t: "title"; readonly title: string }
  /** A request the thread was billed for beside its history's entries (usage/side.ts): counted in its usage. */
  | { readonly t: "side"; readonly request: SideRequest }
  /** The thread's own model and thinking effort from now on (`:Tine model`); a thread without one uses setup's. */
  | { readonly t: "model"; readonly model: string; readonly effort: ThinkingEffort }
  /** What the user chose of the settings its program offers (an ACP agent's mode, model, effort), all of them from now on. */
  | { readonly t: "settings"; readonly settings: AgentChoices }
  /** The user's label on the thread (no `message`) or on message `message`; "" removes it. */
  | { readonly t: "label"; readonly message?: number; readonly text: string }
  /** Deleted by the user; the log stays while forks point into it. */
  | { readonly t: "deleted" }
  /** A fork's report queued for this thread's next user turn. */
  | { readonly t: "report"; readonly from: string; readonly text: string; readonly kind?: "promote" }
  /** The queued reports went out with a user turn. */
  | { readonly t: "reports-sent" }
  /** A fork's change grafted into this thread's files (worktree/graft.ts), or a hunk reviewed (review/), told with its next user turn. */
  | { readonly t: "graft"; readonly note: CodeNote }
  /** The graft notes went out with a user turn. */
  | { readonly t: "grafts-sent" }
  /** A fan-out fork's check ended (`result`), or was cleared by a later turn (null): the list and compare show it after a restart. */
  | { readonly t: "check"; readonly result: CheckResult | null }
  /** The messages the user sent while the agent worked, as they wait now (the whole queue; empty once sent). */
  | { readonly t: "queue"; readonly items: readonly StoredQueued[] }
  /** The fork ended (discarded, reported, or promoted `into` its parent); `:Tine threads!` can restore it. */
  | { readonly t: "ended"; readonly how: "discarded" | "reported" | "promoted"; readonly into?: string }
  | { readonly t: "restored" }
  /**
   * tine stopped (Neovim quit, :Tine restart) while the thread worked (a stream, a running tool, a
   * background fork): its turn was cut there. The list shows it interrupted until its next message.
   */
  | { readonly t: "interrupted" }
  /**
   * A promote gave this thread a fork's history; its old tail became `to`. Forks of this thread
   * that point at its first `upTo` records and branched after message `after` belong to `to`.
   */
  | { readonly t: "branched"; readonly to: string; readonly after: number; readonly upTo: number }
  /** A code snapshot (code-record.ts). */
  | CodeRecord;

export type StoredRecord = Header | ChangeRecord;

const CHANGE_TYPES = new Set([
  "append",
  "truncate",
  "block",
  "open",
  "streamed",
  "result",
  "started",
  "failed",
  "title",
  "side",
  "model",
  "settings",
  "label",
  "deleted",
  "report",
  "reports-sent",
  "graft",
  "grafts-sent",
  "check",
  "queue",
  "ended",
  "restored",
  "interrupted",
  "branched",
  "code",
]);

export function encode(record: StoredRecord): string {
  return `${JSON.stringify(record)}\n`;
}

export type Decoded = { ok: true; record: StoredRecord } | { ok: false; error: string };

/** How a fork can end (the `ended` record). */
export const ENDINGS: ReadonlySet<string> = new Set(["discarded", "reported", "promoted"]);

/**
 * Checks every field a replay, the list, the view or the next request reads, with its type; a
 * record that passes cannot make them throw. A line nested too deep or too long is refused before
 * anything recurses over it (see bounded-json.ts).
 */
export function decode(line: string): Decoded {
  const parsed = parseBounded(line, LINE_BOUNDS);
  if (!parsed.ok) return { ok: false, error: parsed.error };
  const r = parsed.value;
  if (!isObject(r)) return { ok: false, error: "not an object" };
  const bad = (what: string): Decoded => ({ ok: false, error: `${typeof r["t"] === "string" ? r["t"] : "a"} record: ${what}` });
  const good = (record: StoredRecord): Decoded => ({ ok: true, record });
  switch (r["t"]) {
    case "header":
      return decodeHeader(r, bad);
    case "append": {
      const why = messageProblem(r["m"]) ?? metaProblem(r["meta"]);
      if (why) return bad(why);
      const m = r["m"] as NativeMessage;
      // Only what the API takes: a field added to the message in the file is not sent.
      const message = { role: m.role, content: m.content } as NativeMessage;
      return good(r["meta"] ? { t: "append", m: message, meta: metaFrom(r["meta"] as ResponseMeta) } : { t: "append", m: message });
    }
    case "truncate":
    case "open":
      return isCount(r["n"]) ? good({ t: r["t"], n: r["n"] }) : bad("n is not a whole number ≥ 0");
    case "streamed":
      if (!isCount(r["at"]) || typeof r["text"] !== "string") return bad("at or text missing");
      return good({ t: "streamed", at: r["at"], text: r["text"] });
    case "block": {
      const why = assistantBlockProblem(r["b"]);
      return why ? bad(why) : good({ t: "block", b: r["b"] as AssistantBlock });
    }
    case "result": {
      const why = toolResultProblem(r["r"]);
      return why ? bad(why) : good({ t: "result", r: r["r"] as ToolResultBlock });
    }
    case "started":
      return typeof r["id"] === "string" && r["id"] !== "" ? good({ t: "started", id: r["id"] }) : bad("id is not a tool call's id");
    case "failed":
      return typeof r["error"] === "string" ? good({ t: "failed", error: r["error"] }) : bad("error is not a text");
    case "title":
      return typeof r["title"] === "string" ? good({ t: "title", title: r["title"] }) : bad("no title");
    case "side": {
      const request = checkSide(r["request"]);
      return typeof request === "string" ? bad(request) : good({ t: "side", request });
    }
    case "model":
      if (typeof r["model"] !== "string" || !r["model"] || !isThinkingEffort(r["effort"])) return bad("model or effort missing");
      return good({ t: "model", model: r["model"], effort: r["effort"] });
    case "settings": {
      const settings = checkAgentChoices(r["settings"]);
      return settings ? good({ t: "settings", settings }) : bad("settings is not a set of short ids and values");
    }
    case "label":
      if (typeof r["text"] !== "string" || (r["message"] !== undefined && !isCount(r["message"]))) return bad("text or message missing");
      return good(r["message"] === undefined ? { t: "label", text: r["text"] } : { t: "label", message: r["message"], text: r["text"] });
    case "report":
      if (typeof r["from"] !== "string" || typeof r["text"] !== "string") return bad("from or text missing");
      return good({ t: "report", from: r["from"], text: r["text"], ...(r["kind"] === "promote" ? { kind: "promote" as const } : {}) });
    case "graft": {
      const note = codeNoteFrom(r["note"]);
      return note ? good({ t: "graft", note }) : bad("note is not a graft's");
    }
    case "check": {
      const result = checkResultFrom(r["result"]);
      return result === undefined ? bad("result is not a check's end") : good({ t: "check", result });
    }
    case "queue": {
      const items = r["items"];
      if (
        !Array.isArray(items) ||
        !items.every((i) => isObject(i) && typeof i["text"] === "string" && (i["now"] ?? false) === Boolean(i["now"]))
      )
        return bad("items is not a list of messages");
      if (!items.every((i) => i["context"] === undefined || isContextList(i["context"])))
        return bad("a message's context is not a list of context blocks");
      return good({
        t: "queue",
        items: items.map((i) => ({
          text: i["text"] as string,
          ...(i["now"] === true ? { now: true } : {}),
          ...(i["context"] ? { context: i["context"] as string[] } : {}),
        })),
      });
    }
    case "ended": {
      const how = r["how"];
      if (typeof how !== "string" || !ENDINGS.has(how)) return bad("how missing");
      if (r["into"] !== undefined && !isThreadId(r["into"])) return bad("into is not a thread id");
      const ending = how as "discarded" | "reported" | "promoted";
      return good(r["into"] ? { t: "ended", how: ending, into: r["into"] as string } : { t: "ended", how: ending });
    }
    case "branched":
      if (!isThreadId(r["to"]) || !isCount(r["after"]) || !isCount(r["upTo"])) return bad("to, after or upTo missing");
      return good({ t: "branched", to: r["to"], after: r["after"], upTo: r["upTo"] });
    case "code": {
      const record = codeRecord(r);
      return typeof record === "string" ? bad(record) : good(record);
    }
    case "deleted":
    case "reports-sent":
    case "grafts-sent":
    case "restored":
    case "interrupted":
      return good({ t: r["t"] });
    default:
      return { ok: false, error: `unknown record type ${JSON.stringify(r["t"])}` };
  }
}

function decodeHeader(r: Record<string, unknown>, bad: (what: string) => Decoded): Decoded {
  if (r["v"] !== FORMAT_VERSION) return bad(`format version ${JSON.stringify(r["v"])} is not ${FORMAT_VERSION}`);
  if (!isThreadId(r["id"])) return bad("id is not a thread id");
  if (typeof r["title"] !== "string" || typeof r["cwd"] !== "string" || typeof r["model"] !== "string")
    return bad("title, cwd or model is not a string");
  if (!isCount(r["num"])) return bad("num is not a whole number ≥ 0");
  if (typeof r["created"] !== "number" || !Number.isFinite(r["created"])) return bad("created is not a time");
  const parent = parentPointer(r["parent"]);
  if (parent === undefined) return bad("parent is not a pointer into a thread (a fork's or a hand-off's)");
  const origin = r["origin"];
  if (origin !== undefined && !isOrigin(origin)) return bad("origin is not a kind, session and path");
  const runner = checkRunnerSpec(r["runner"] ?? legacyRunner(r["claude"]));
  if (!runner.ok) return bad(runner.why);
  const instructions = r["instructions"] === undefined ? null : checkInstructions(r["instructions"]);
  if (r["instructions"] !== undefined && !instructions) return bad("instructions are not a text and the files it came from");
  const worktree = r["worktree"];
  if (worktree !== undefined && !isWorktree(worktree)) return bad("worktree is not a folder and a snapshot");
  // Only what a list groups forks by: one of another shape is dropped, never a reason to refuse the thread.
  const fanOut = fanOutPlaceFrom(r["fanOut"]);
  const header: Header = {
    t: "header",
    v: FORMAT_VERSION,
    id: r["id"],
    num: r["num"],
    title: r["title"],
    created: r["created"],
    cwd: r["cwd"],
    model: r["model"],
    parent,
    runner: runner.spec,
    ...(origin ? { origin } : {}),
    ...(instructions ? { instructions } : {}),
    ...(worktree ? { worktree } : {}),
    ...(fanOut ? { fanOut } : {}),
  };
  return { ok: true, record: header };
}

/** A header's parent pointer checked (and one written before hand-offs were told apart read as a fork), or undefined. */
function parentPointer(v: unknown): ParentPointer | null | undefined {
  if (v === null || v === undefined) return null;
  if (!isObject(v) || !isThreadId(v["id"]) || !isCount(v["atMessage"])) return undefined;
  if (v["relation"] === "handoff" || v["relation"] === "compact")
    return { relation: v["relation"], id: v["id"], atMessage: v["atMessage"] };
  if (v["relation"] !== undefined && v["relation"] !== "fork") return undefined;
  if (!isCount(v["records"]) || !isCount(v["messages"])) return undefined;
  return { relation: "fork", id: v["id"], records: v["records"], atMessage: v["atMessage"], messages: v["messages"] };
}

/** A pointer as the index keeps it (already read from a header: its relation is written). */
export function isParentPointer(p: unknown): p is ParentPointer {
  if (!isObject(p) || !isThreadId(p["id"]) || !isCount(p["atMessage"])) return false;
  return (
    p["relation"] === "handoff" ||
    p["relation"] === "compact" ||
    (p["relation"] === "fork" && isCount(p["records"]) && isCount(p["messages"]))
  );
}

/** A worktree as a header (or the list's index) keeps it: an absolute folder and a snapshot. */
export function isWorktree(w: unknown): w is NonNullable<Header["worktree"]> {
  return (
    isObject(w) &&
    typeof w["path"] === "string" &&
    w["path"].startsWith("/") &&
    typeof w["base"] === "string" &&
    /^[0-9a-f]{40,64}$/.test(w["base"]) &&
    (w["unattended"] === undefined || w["unattended"] === true)
  );
}

function isOrigin(o: unknown): o is NonNullable<Header["origin"]> {
  return (
    isObject(o) &&
    typeof o["kind"] === "string" &&
    (o["sessionId"] === null || typeof o["sessionId"] === "string") &&
    typeof o["path"] === "string"
  );
}

export const isChange = (r: StoredRecord): r is ChangeRecord => CHANGE_TYPES.has(r.t);

/** A stored queued message's context: blocks the request format reads back (a hand-edited or cut one is refused). */
function isContextList(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((b) => typeof b === "string" && readContextBlock(b) !== null);
}

/** A queued message as stored (its format is the queue's: chat/send-queue.ts). */
export type { StoredQueued };
