/**
 * Claude Code transcripts (JSONL) to and from the Messages API's own shapes.
 *
 * Reading walks `parentUuid` from the leaf (the last `last-prompt` record's `leafUuid`, else the
 * last chain record), merges assistant records of one response (one block per record, sharing
 * `message.id`), and leaves out what is Claude Code's own: meta records, attachments and system
 * records, sidechains, system reminders, unknown types. A truncated last line is skipped, as the
 * CLI itself does; any other line that is not JSON is an error naming it. The result is a history
 * the API accepts (a tool call without a result gets one, as the CLI gives it).
 *
 * Writing produces the minimal records the CLI accepts, plus one attachment so it sends no empty
 * system message.
 */
import { randomUUID } from "node:crypto";
import type { AssistantBlock, NativeMessage, ToolResultBlock, UserBlock } from "../providers/native.ts";
import { cleanAssistantBlocks } from "../providers/turn-cleanup.ts";

type Json = Record<string, unknown>;

export const INTERRUPTED_TOOL_RESULT = "[Request interrupted by user for tool use]";

export type Transcript = {
  readonly messages: NativeMessage[];
  readonly sessionId: string | null;
  readonly cwd: string | null;
  /** The first thing the user typed, for pickers. */
  readonly firstPrompt: string | null;
};

export class TranscriptError extends Error {}

const CHAIN = new Set(["user", "assistant", "attachment", "system"]);

function parseLines(text: string): Json[] {
  const lines = text.split("\n");
  // A last line without its newline may have been cut mid-write: skipped, as the CLI does.
  const partial = text.endsWith("\n") ? null : lines.length - 1;
  const records: Json[] = [];
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    try {
      records.push(JSON.parse(line) as Json);
    } catch {
      if (i !== partial) throw new TranscriptError(`line ${i + 1} is not JSON`);
    }
  });
  return records;
}

/** Text a user typed, without the system reminders Claude Code adds to user turns. */
function userBlocks(content: unknown): UserBlock[] {
  const blocks: Json[] =
    typeof content === "string" ? [{ type: "text", text: content }] : Array.isArray(content) ? (content as Json[]) : [];
  const out: UserBlock[] = [];
  for (const b of blocks) {
    if (b["type"] === "text" && typeof b["text"] === "string") {
      if (b["text"].trimStart().startsWith("<system-reminder>") || !b["text"].trim()) continue;
      out.push({ type: "text", text: b["text"] });
    } else if (b["type"] === "tool_result" && typeof b["tool_use_id"] === "string") {
      const r: ToolResultBlock = { type: "tool_result", tool_use_id: b["tool_use_id"], content: toolResultContent(b["content"]) };
      out.push(b["is_error"] === true ? { ...r, is_error: true } : r);
    }
  }
  return out;
}

function toolResultContent(content: unknown): ToolResultBlock["content"] {
  if (typeof content === "string") return content || "(no output)";
  if (!Array.isArray(content)) return "(no output)";
  const text = (content as Json[]).flatMap((c) => (c["type"] === "text" && typeof c["text"] === "string" ? [c["text"]] : [])).join("\n");
  return text || "(no output)";
}

function assistantBlock(b: Json): AssistantBlock | null {
  switch (b["type"]) {
    case "text":
      return typeof b["text"] === "string" ? { type: "text", text: b["text"] } : null;
    case "thinking":
      return typeof b["thinking"] === "string"
        ? { type: "thinking", thinking: b["thinking"], signature: String(b["signature"] ?? "") }
        : null;
    case "redacted_thinking":
      return typeof b["data"] === "string" ? { type: "redacted_thinking", data: b["data"] } : null;
    case "tool_use": {
      const input = b["input"] && typeof b["input"] === "object" && !Array.isArray(b["input"]) ? b["input"] : {};
      return typeof b["id"] === "string" && typeof b["name"] === "string"
        ? { type: "tool_use", id: b["id"], name: b["name"], input }
        : null;
    }
    default:
      return null;
  }
}

/** The conversation a transcript holds, as the API takes it. */
export function readTranscript(text: string): Transcript {
  const records = parseLines(text);
  const byUuid = new Map<string, Json>();
  let lastChain: Json | null = null;
  let leafUuid: string | null = null;
  let sessionId: string | null = null;
  let cwd: string | null = null;
  for (const r of records) {
    if (typeof r["sessionId"] === "string") sessionId ??= r["sessionId"];
    if (typeof r["cwd"] === "string") cwd ??= r["cwd"];
    if (r["type"] === "last-prompt" && typeof r["leafUuid"] === "string") leafUuid = r["leafUuid"];
    if (CHAIN.has(String(r["type"])) && typeof r["uuid"] === "string") {
      byUuid.set(r["uuid"], r);
      lastChain = r;
    }
  }
  const chain: Json[] = [];
  const seen = new Set<string>();
  for (let r = (leafUuid && byUuid.get(leafUuid)) || lastChain; r; r = byUuid.get(String(r["parentUuid"])) ?? null) {
    const uuid = String(r["uuid"]);
    if (seen.has(uuid)) break;
    seen.add(uuid);
    chain.push(r);
  }
  chain.reverse();

  const raw: { role: "user" | "assistant"; blocks: (UserBlock | AssistantBlock)[]; id?: string }[] = [];
  let firstPrompt: string | null = null;
  for (const r of chain) {
    if (r["isSidechain"] === true || r["isMeta"] === true) continue;
    const message = r["message"] as Json | undefined;
    if (r["type"] === "user" && message) {
      const blocks = userBlocks(message["content"]);
      if (!blocks.length) continue;
      const typed = blocks.find((b) => b.type === "text");
      if (typed?.type === "text") firstPrompt ??= typed.text;
      raw.push({ role: "user", blocks });
    } else if (r["type"] === "assistant" && message && Array.isArray(message["content"])) {
      const blocks = (message["content"] as Json[]).map(assistantBlock).filter((b): b is AssistantBlock => b !== null);
      const id = typeof message["id"] === "string" ? message["id"] : undefined;
      const last = raw.at(-1);
      if (last?.role === "assistant" && id && last.id === id) last.blocks.push(...blocks);
      else raw.push({ role: "assistant", blocks, id });
    }
  }
  return { messages: normalize(raw), sessionId, cwd, firstPrompt };
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
