/**
 * A `session/update` line checked by hand, for the kinds an agent sends by the thousand in a turn:
 * message and thought chunks, tool calls and their updates. The SDK checks every message against
 * its zod schema, which costs more host CPU than folding and drawing the update together
 * (test/bench/acp-updates.bench.ts); these checks cost a fraction of it.
 *
 * The rule: a line is taken here only when the schema would take it as it is, field for field;
 * anything else, a field the schema would refuse, or one it would mend (an unknown tool kind it
 * drops, a content item it skips), or a content block other than text, gives null, and the line
 * goes the SDK's way, which refuses or mends it as it does every message (update-check.test.ts
 * holds the two to the same answers). What is taken is a new object of the schema's fields, less
 * `_meta` and `annotations`, which tine does not read: nothing else the agent wrote reaches tine.
 */
import type { SessionUpdate, ToolCallContent, ToolCallLocation } from "@agentclientprotocol/sdk/unstable";
import { isObject } from "../core/shapes.ts";

const CHUNK_KINDS = new Set(["agent_message_chunk", "agent_thought_chunk"]);
const TOOL_KINDS = new Set(["read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"]);
const TOOL_STATUSES = new Set(["pending", "in_progress", "completed", "failed"]);
const MAX_UINT32 = 4294967295;

/** A field that does not fit: the whole line goes the SDK's way. */
const UNFIT = Symbol("unfit");
type Fit<T> = T | typeof UNFIT;

type Json = Record<string, unknown>;

/** A line of the agent's stdout as JSON, or null when it is none. */
export function parsedLine(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return null;
  }
}

/** The update a parsed `message` is, checked, or null: not one taken here. */
export function checkedUpdate(message: unknown): { sessionId: string; update: SessionUpdate } | null {
  if (!isObject(message) || message["jsonrpc"] !== "2.0" || message["method"] !== "session/update" || "id" in message) return null;
  const params = message["params"];
  if (!isObject(params) || typeof params["sessionId"] !== "string") return null;
  const raw = params["update"];
  if (!isObject(raw)) return null;
  const update = updateOf(raw);
  return update === UNFIT ? null : { sessionId: params["sessionId"], update };
}

function updateOf(u: Json): Fit<SessionUpdate> {
  const kind = u["sessionUpdate"];
  if (CHUNK_KINDS.has(kind as string)) {
    const content = u["content"];
    if (!isObject(content) || content["type"] !== "text" || typeof content["text"] !== "string") return UNFIT;
    const messageId = nullish(u, "messageId", isString);
    if (messageId === UNFIT) return UNFIT;
    return {
      sessionUpdate: kind as "agent_message_chunk" | "agent_thought_chunk",
      content: { type: "text", text: content["text"] },
      ...messageId,
    };
  }
  if (kind !== "tool_call" && kind !== "tool_call_update") return UNFIT;
  if (typeof u["toolCallId"] !== "string") return UNFIT;
  // A call's title is required and its other fields optional; an update's are all nullish.
  const call = kind === "tool_call";
  if (call && typeof u["title"] !== "string") return UNFIT;
  const field = call ? optional : nullish;
  const title = field(u, "title", isString);
  const name = nullish(u, "name", isString);
  const toolKind = field(u, "kind", (v) => TOOL_KINDS.has(v as string));
  const status = field(u, "status", (v) => TOOL_STATUSES.has(v as string));
  const content = listOf(u, "content", call, contentOf);
  const locations = listOf(u, "locations", call, locationOf);
  const parts = [title, name, toolKind, status, content, locations];
  if (parts.includes(UNFIT)) return UNFIT;
  return Object.assign(
    { sessionUpdate: kind, toolCallId: u["toolCallId"] },
    ...parts,
    "rawInput" in u ? { rawInput: u["rawInput"] } : {},
    "rawOutput" in u ? { rawOutput: u["rawOutput"] } : {},
  ) as SessionUpdate;
}

/** `{ key: value }` when `u[key]` is absent or fits; absent gives `{}`. */
function optional(u: Json, key: string, fits: (v: unknown) => boolean): Fit<Json> {
  if (!(key in u)) return {};
  return fits(u[key]) ? { [key]: u[key] } : UNFIT;
}

/** As `optional`, null allowed (and kept, as the schema keeps it). */
function nullish(u: Json, key: string, fits: (v: unknown) => boolean): Fit<Json> {
  return u[key] === null && key in u ? { [key]: null } : optional(u, key, fits);
}

/** A list field of a call (optional) or an update (nullish), each item made by `item`. */
function listOf<T>(u: Json, key: string, call: boolean, item: (v: unknown) => Fit<T>): Fit<Json> {
  if (!(key in u)) return {};
  const v = u[key];
  if (v === null && !call) return { [key]: null };
  if (!Array.isArray(v)) return UNFIT;
  const out: T[] = [];
  for (const x of v) {
    const made = item(x);
    if (made === UNFIT) return UNFIT;
    out.push(made);
  }
  return { [key]: out };
}

const isString = (v: unknown) => typeof v === "string";
const isNullishString = (v: unknown) => v === undefined || v === null || typeof v === "string";

function contentOf(c: unknown): Fit<ToolCallContent> {
  if (!isObject(c)) return UNFIT;
  switch (c["type"]) {
    case "content": {
      const block = c["content"];
      if (!isObject(block) || block["type"] !== "text" || typeof block["text"] !== "string") return UNFIT;
      return { type: "content", content: { type: "text", text: block["text"] } };
    }
    case "diff": {
      const { path, oldText, newText } = c;
      if (typeof path !== "string" || typeof newText !== "string" || !isNullishString(oldText)) return UNFIT;
      return { type: "diff", path, newText, ...("oldText" in c ? { oldText: oldText as string | null } : {}) };
    }
    case "terminal":
      return typeof c["terminalId"] === "string" ? { type: "terminal", terminalId: c["terminalId"] } : UNFIT;
    default:
      return UNFIT;
  }
}

function locationOf(l: unknown): Fit<ToolCallLocation> {
  if (!isObject(l) || typeof l["path"] !== "string") return UNFIT;
  const line = l["line"];
  if (line === undefined || line === null) return { path: l["path"], ...("line" in l ? { line: null } : {}) };
  if (!Number.isInteger(line) || (line as number) < 0 || (line as number) > MAX_UINT32) return UNFIT;
  return { path: l["path"], line: line as number };
}
