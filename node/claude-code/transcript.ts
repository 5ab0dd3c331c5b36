/**
 * Claude Code transcripts (JSONL) to and from the Messages API's own shapes.
 *
 * Reading walks `parentUuid` from the leaf (the newest record below the last `last-prompt`
 * record's `leafUuid`, else the last chain record), merges assistant records of one response (one
 * block per record, sharing `message.id`), and leaves out what is Claude Code's own: meta records,
 * attachments and system records, sidechains, system reminders, unknown types. A user's text that
 * reads as tine's own markup is escaped (chat/foreign-text.ts). A truncated last
 * line is skipped, as the CLI itself does; any other line that is not JSON is an error naming it.
 * A line of odd types (a block that is not an object, a text that is not a string) or out of
 * bounds (bounded-json.ts; a line longer than the API takes is never read whole, jsonl-lines.ts)
 * has its content left out and is named in `skipped`, its place in the chain kept. The result is
 * a history the API accepts (a tool call without a result gets one, as the CLI gives it).
 *
 * Writing produces the minimal records the CLI accepts, plus one attachment so it sends no empty
 * system message.
 *
 * Over 300 lines: reading and writing one format stay together, so that what is written is
 * what the reading takes back.
 */
import { randomUUID } from "node:crypto";
import { asForeignText } from "../chat/foreign-text.ts";
import type { AssistantBlock, NativeMessage, ToolResultBlock, UserBlock } from "../core/native.ts";
import { isObject } from "../core/shapes.ts";
import { cleanAssistantBlocks } from "../providers/turn-cleanup.ts";
import { LINE_BOUNDS, parseBounded } from "../util/bounded-json.ts";
import { fileLines, type JsonlLine, textLines } from "./jsonl-lines.ts";

type Json = Record<string, unknown>;

export const INTERRUPTED_TOOL_RESULT = "[Request interrupted by user for tool use]";

export type Transcript = {
  readonly messages: NativeMessage[];
  readonly sessionId: string | null;
  readonly cwd: string | null;
  /** The first thing the user typed, for pickers. */
  readonly firstPrompt: string | null;
  /** The last thing the user typed, for pickers (a session and its fork differ here). */
  readonly lastPrompt: string | null;
  /** Lines whose content was left out (odd types, nested too deep, too long), by number. */
  readonly skipped: readonly LineProblem[];
};

export type LineProblem = { readonly line: number; readonly error: string };

export class TranscriptError extends Error {}

const CHAIN = new Set(["user", "assistant", "attachment", "system"]);

/** A record and its line. `skipped`: why its content is left out (its place in the chain is kept when known). */
type Line = { readonly n: number; readonly r: Json; readonly skipped: string | null };

/**
 * The longest line read, in bytes: the API refuses a larger request, so such a record could never
 * be sent back (bounded-json.ts). A longer one is skipped, its links read (jsonl-lines.ts).
 */
export const MAX_LINE_BYTES = LINE_BOUNDS.chars;
/** What a too-long record keeps: its place in the chain, and whether it is the conversation's. */
const LINKS = new Set(["type", "uuid", "parentUuid", "isSidechain", "isMeta"]);

/** What stands in the conversation for a user's record left out (its line and why). */
export const leftOutNote = (line: number, why: string) => `[tine: line ${line} of the Claude Code session was left out on import: ${why}]`;

const megabytes = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;

function parseLines(lines: Iterable<JsonlLine>, maxBytes: number, skipped: LineProblem[]): Line[] {
  const records: Line[] = [];
  for (const line of lines) {
    const { n } = line;
    if (line.kind === "too-long") {
      const error = `${megabytes(line.bytes)} long, more than the ${megabytes(maxBytes)} a line may hold`;
      skipped.push({ line: n, error });
      // Only its links are kept, so the records after it still reach the ones before.
      if (line.fields && line.ended) records.push({ n, r: line.fields, skipped: error });
      continue;
    }
    if (!line.text.trim()) continue;
    const parsed = parseBounded(line.text, LINE_BOUNDS);
    if (parsed.ok) {
      if (isObject(parsed.value)) records.push({ n, r: parsed.value, skipped: null });
      else skipped.push({ line: n, error: "not an object" });
      continue;
    }
    if (!parsed.outOfBounds) {
      // A last line without its newline may have been cut mid-write: skipped, as the CLI does.
      if (line.ended) throw new TranscriptError(`line ${n} is not JSON`);
      continue;
    }
    skipped.push({ line: n, error: parsed.error });
    // Only its links are kept, so the records after it still reach the ones before.
    const r = parsed.parsed;
    if (isObject(r)) records.push({ n, r: Object.fromEntries([...LINKS].map((k) => [k, r[k]])), skipped: parsed.error });
  }
  return records;
}

/** Text a user typed, without the system reminders Claude Code adds to user turns; `odd` says what could not be read. */
function userBlocks(content: unknown, odd: (why: string) => void): UserBlock[] {
  if (typeof content !== "string" && !Array.isArray(content)) {
    odd("a user message whose content is neither text nor a list");
    return [];
  }
  const blocks: unknown[] = typeof content === "string" ? [{ type: "text", text: content }] : content;
  const out: UserBlock[] = [];
  for (const b of blocks) {
    if (!isObject(b)) odd("a content block that is not an object");
    else if (b["type"] === "text") {
      if (typeof b["text"] !== "string") odd("a text block whose text is not a string");
      else if (!b["text"].trimStart().startsWith("<system-reminder>") && b["text"].trim())
        // The session's text, not tine's: never read back as a context block or a report.
        out.push({ type: "text", text: asForeignText(b["text"]) });
    } else if (b["type"] === "tool_result") {
      if (typeof b["tool_use_id"] !== "string") odd("a tool_result block without a string tool_use_id");
      else {
        const r: ToolResultBlock = { type: "tool_result", tool_use_id: b["tool_use_id"], content: toolResultContent(b["content"]) };
        out.push(b["is_error"] === true ? { ...r, is_error: true } : r);
      }
    }
  }
  return out;
}

function toolResultContent(content: unknown): ToolResultBlock["content"] {
  if (typeof content === "string") return content || "(no output)";
  if (!Array.isArray(content)) return "(no output)";
  const text = content.flatMap((c) => (isObject(c) && c["type"] === "text" && typeof c["text"] === "string" ? [c["text"]] : [])).join("\n");
  return text || "(no output)";
}

/** An assistant block as the API takes it; "other" for Claude Code's own types (left out); null for a known type of the wrong shape. */
function assistantBlock(b: Json): AssistantBlock | null | "other" {
  switch (b["type"]) {
    case "text":
      return typeof b["text"] === "string" ? { type: "text", text: b["text"] } : null;
    case "thinking":
      return typeof b["thinking"] === "string" && (b["signature"] === undefined || typeof b["signature"] === "string")
        ? { type: "thinking", thinking: b["thinking"], signature: b["signature"] ?? "" }
        : null;
    case "redacted_thinking":
      return typeof b["data"] === "string" ? { type: "redacted_thinking", data: b["data"] } : null;
    case "tool_use": {
      const input = isObject(b["input"]) ? b["input"] : {};
      return typeof b["id"] === "string" && typeof b["name"] === "string"
        ? { type: "tool_use", id: b["id"], name: b["name"], input }
        : null;
    }
    default:
      return "other";
  }
}

/** An assistant message's blocks that the API takes; `odd` says what could not be read. */
function assistantBlocks(content: unknown[], odd: (why: string) => void): AssistantBlock[] {
  const out: AssistantBlock[] = [];
  for (const b of content) {
    const made = isObject(b) ? assistantBlock(b) : null;
    if (made === null) odd(isObject(b) ? `a ${String(b["type"])} block of the wrong shape` : "a content block that is not an object");
    else if (made !== "other") out.push(made);
  }
  return out;
}

/**
 * The record the conversation ends at: the newest one that descends from `last-prompt`'s leaf
 * (that record names the prompt, written before the reply to it), else the last chain record.
 */
function leafOf(chain: readonly Line[], leafUuid: string | null): Line | null {
  const named = leafUuid === null ? undefined : chain.find((l) => l.r["uuid"] === leafUuid);
  if (!named) return chain.at(-1) ?? null;
  const below = new Set([leafUuid]);
  let leaf = named;
  for (const l of chain) {
    if (l.r["isSidechain"] === true || !below.has(String(l.r["parentUuid"]))) continue;
    below.add(String(l.r["uuid"]));
    leaf = l;
  }
  return leaf;
}

/** The conversation the transcript at `path` holds, read a piece at a time. */
export function readTranscriptFile(path: string, maxLineBytes = MAX_LINE_BYTES): Transcript {
  return readLines(fileLines(path, maxLineBytes, LINKS), maxLineBytes);
}

/** The conversation a transcript's text holds, as the API takes it. */
export function readTranscript(text: string, maxLineBytes = MAX_LINE_BYTES): Transcript {
  return readLines(textLines(text, maxLineBytes, LINKS), maxLineBytes);
}

function readLines(lines: Iterable<JsonlLine>, maxLineBytes: number): Transcript {
  const skipped: LineProblem[] = [];
  const records = parseLines(lines, maxLineBytes, skipped);
  const byUuid = new Map<string, Line>();
  const chainRecords: Line[] = [];
  let leafUuid: string | null = null;
  let sessionId: string | null = null;
  let cwd: string | null = null;
  for (const l of records) {
    const r = l.r;
    if (typeof r["sessionId"] === "string") sessionId ??= r["sessionId"];
    if (typeof r["cwd"] === "string") cwd ??= r["cwd"];
    if (r["type"] === "last-prompt" && typeof r["leafUuid"] === "string") leafUuid = r["leafUuid"];
    if (CHAIN.has(String(r["type"])) && typeof r["uuid"] === "string") {
      byUuid.set(r["uuid"], l);
      chainRecords.push(l);
    }
  }
  const chain: Line[] = [];
  const seen = new Set<string>();
  for (let l = leafOf(chainRecords, leafUuid); l; l = byUuid.get(String(l.r["parentUuid"])) ?? null) {
    const uuid = String(l.r["uuid"]);
    if (seen.has(uuid)) break;
    seen.add(uuid);
    chain.push(l);
  }
  chain.reverse();

  const raw: { role: "user" | "assistant"; blocks: (UserBlock | AssistantBlock)[]; id?: string }[] = [];
  let firstPrompt: string | null = null;
  let lastPrompt: string | null = null;
  /** Whether anything but notes was read: notes alone are no conversation. */
  let read = false;
  for (const { n, r, skipped: why } of chain) {
    if (r["isSidechain"] === true || r["isMeta"] === true) continue;
    if (why !== null) {
      // A turn of the user's left out leaves a note in its place: the turns around it stay apart
      // (replies not run together) and a tool call it answered is answered as interrupted.
      if (r["type"] === "user") raw.push({ role: "user", blocks: [{ type: "text", text: leftOutNote(n, why) }] });
      continue;
    }
    const problems: string[] = [];
    const odd = (what: string) => problems.push(what);
    const message = r["message"];
    if ((r["type"] === "user" || r["type"] === "assistant") && !isObject(message)) odd("a message that is not an object");
    else if (r["type"] === "user" && isObject(message)) {
      const blocks = userBlocks(message["content"], odd);
      const typed = blocks.find((b) => b.type === "text");
      if (typed?.type === "text") {
        firstPrompt ??= typed.text;
        lastPrompt = typed.text;
      }
      if (blocks.length) raw.push({ role: "user", blocks });
      read ||= blocks.length > 0;
    } else if (r["type"] === "assistant" && isObject(message)) {
      if (!Array.isArray(message["content"])) odd("an assistant message whose content is not a list");
      else {
        const blocks = assistantBlocks(message["content"], odd);
        read ||= blocks.length > 0;
        const id = typeof message["id"] === "string" ? message["id"] : undefined;
        const last = raw.at(-1);
        if (last?.role === "assistant" && id && last.id === id) last.blocks.push(...blocks);
        else raw.push({ role: "assistant", blocks, id });
      }
    }
    if (problems.length) skipped.push({ line: n, error: problems.join("; ") });
  }
  skipped.sort((a, b) => a.line - b.line);
  return { messages: read ? normalize(raw) : [], sessionId, cwd, firstPrompt, lastPrompt, skipped };
}

/** Roles alternate, the first is the user's, every tool call is answered and every answer asked. */
function normalize(raw: { role: "user" | "assistant"; blocks: (UserBlock | AssistantBlock)[] }[]): NativeMessage[] {
  const merged: { role: "user" | "assistant"; blocks: (UserBlock | AssistantBlock)[] }[] = [];
  for (const m of raw) {
    const last = merged.at(-1);
    if (last?.role === m.role) last.blocks.push(...m.blocks);
    else merged.push({ role: m.role, blocks: [...m.blocks] });
  }
  while (merged[0]?.role === "assistant") merged.shift();
  const out: NativeMessage[] = [];
  for (let i = 0; i < merged.length; i++) {
    const m = merged[i]!;
    if (m.role === "assistant") {
      const content = cleanAssistantBlocks(m.blocks as AssistantBlock[]);
      if (!content.length) continue;
      if (out.at(-1)?.role === "assistant") continue;
      out.push({ role: "assistant", content });
      continue;
    }
    const previous = out.at(-1);
    const asked = previous?.role === "assistant" ? previous.content.flatMap((b) => (b.type === "tool_use" ? [b.id] : [])) : [];
    const results = (m.blocks as UserBlock[]).filter(
      (b): b is ToolResultBlock => b.type === "tool_result" && asked.includes(b.tool_use_id),
    );
    const answered = new Set(results.map((r) => r.tool_use_id));
    const missing: ToolResultBlock[] = asked
      .filter((id) => !answered.has(id))
      .map((id) => ({ type: "tool_result", tool_use_id: id, content: INTERRUPTED_TOOL_RESULT, is_error: true }));
    const texts = (m.blocks as UserBlock[]).filter((b) => b.type === "text");
    const content = [...results, ...missing, ...texts];
    if (!content.length) continue;
    if (previous?.role === "user") out[out.length - 1] = { role: "user", content: [...previous.content, ...content] };
    else out.push({ role: "user", content });
  }
  // A last assistant message that asks for tools: answered as interrupted.
  const last = out.at(-1);
  if (last?.role === "assistant") {
    const asked = last.content.flatMap((b) => (b.type === "tool_use" ? [b.id] : []));
    if (asked.length)
      out.push({
        role: "user",
        content: asked.map((id) => ({ type: "tool_result", tool_use_id: id, content: INTERRUPTED_TOOL_RESULT, is_error: true })),
      });
  }
  return out;
}

/** A transcript the CLI resumes: the conversation under `sessionId`, in `cwd`. */
export function writeTranscript(messages: readonly NativeMessage[], opts: { sessionId: string; cwd: string; now?: Date }): string {
  const now = (opts.now ?? new Date()).toISOString();
  const lines: string[] = [];
  let parent: string | null = null;
  const push = (record: Json) => {
    const uuid = randomUUID();
    lines.push(
      JSON.stringify({ parentUuid: parent, isSidechain: false, ...record, uuid, sessionId: opts.sessionId, cwd: opts.cwd, timestamp: now }),
    );
    parent = uuid;
  };
  messages.forEach((m, i) => {
    if (m.role === "user") {
      push({ type: "user", message: { role: "user", content: m.content } });
      // Without one attachment the CLI sends an empty system message.
      if (i === 0)
        push({
          type: "attachment",
          attachment: { type: "date", date: now.slice(0, 10) },
          rendered: [{ content: `<system-reminder>\nToday is ${now.slice(0, 10)}.\n</system-reminder>` }],
          renderedRole: "system",
        });
      return;
    }
    // As the CLI writes a response: one block per record, sharing the message id.
    const id = `msg_tine_${randomUUID().replace(/-/g, "")}`;
    for (const block of m.content) push({ type: "assistant", message: { id, type: "message", role: "assistant", content: [block] } });
  });
  return lines.map((l) => `${l}\n`).join("");
}
