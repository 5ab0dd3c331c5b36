/**
 * An ACP tool call as the text of its tool_result, the way tine draws a result: a head line with
 * what the agent said of it (kind, title, status), then its content: text as it came, diffs as a
 * unified diff of the whole file (ACP gives the old and new text, not hunks), a terminal by its
 * id, and the raw output when there is no content. Nothing here is sent anywhere. And the call as
 * the tool_use and tool_result blocks a transcript (transcript.ts) holds.
 */
import type { ContentBlock, SessionUpdate, ToolCallContent, ToolCallStatus, ToolKind } from "@agentclientprotocol/sdk/unstable";
import type { AssistantBlock, ToolResultBlock } from "../core/native.ts";

/** What tine keeps of a tool call as its updates come (each update replaces the fields it carries). */
export type ToolCallState = {
  readonly id: string;
  title: string;
  name: string | null;
  kind: ToolKind | null;
  status: ToolCallStatus;
  content: readonly ToolCallContent[];
  rawInput: unknown;
  rawOutput: unknown;
};

/** Whether the call has ended (its result is final). */
export const toolEnded = (s: ToolCallState) => s.status === "completed" || s.status === "failed";

export function toolResultText(s: ToolCallState): string {
  const head = `${s.kind && s.kind !== "other" ? `[${s.kind}] ` : ""}${s.title || s.name || "tool"} (${s.status})`;
  const body = s.content.length
    ? s.content.map(contentText)
    : s.rawOutput === undefined || s.rawOutput === null
      ? []
      : [rawText(s.rawOutput)];
  return [head, ...body.filter((t) => t !== "")].join("\n");
}

function contentText(c: ToolCallContent): string {
  switch (c.type) {
    case "content":
      return blockText(c.content);
    case "diff":
      return diffText(c.path, c.oldText ?? null, c.newText);
    case "terminal":
      return `(terminal ${c.terminalId})`;
  }
}

/** Any content block as text: images and audio by kind, resources by their link or text. */
export function blockText(b: ContentBlock): string {
  switch (b.type) {
    case "text":
      return b.text;
    case "image":
      return "[image]";
    case "audio":
      return "[audio]";
    case "resource_link":
      return `[${b.name}](${b.uri})`;
    case "resource":
      return "text" in b.resource ? b.resource.text : `[${b.resource.uri}]`;
  }
}

const rawText = (raw: unknown) => (typeof raw === "string" ? raw : JSON.stringify(raw, null, 2));

/** A whole-file diff: every old line removed, every new line added (null old text: a new file). */
export function diffText(path: string, oldText: string | null, newText: string): string {
  const lines = (t: string) => (t === "" ? [] : t.replace(/\n$/, "").split("\n"));
  const before = oldText === null ? [] : lines(oldText);
  const after = lines(newText);
  // Lines shared at the start and the end are kept as context, so a small edit reads as one.
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let end = 0;
  while (end < before.length - start && end < after.length - start && before[before.length - 1 - end] === after[after.length - 1 - end])
    end++;
  const removed = before.slice(start, before.length - end).map((l) => `-${l}`);
  const added = after.slice(start, after.length - end).map((l) => `+${l}`);
  return [
    `--- ${oldText === null ? "/dev/null" : path}`,
    `+++ ${path}`,
    `@@ -${start + 1},${removed.length} +${start + 1},${added.length} @@`,
    ...removed,
    ...added,
  ].join("\n");
}

/** A call as the tool_use block of its assistant message. */
export function toolUse(s: ToolCallState): AssistantBlock {
  const input =
    s.rawInput !== null && typeof s.rawInput === "object" && !Array.isArray(s.rawInput) ? (s.rawInput as Record<string, unknown>) : {};
  return { type: "tool_use", id: s.id, name: s.name || s.kind || "tool", input };
}

/** A call's result; at the turn's end, one still running is said to have been stopped. */
export function toolResult(s: ToolCallState, turnEnded: boolean): ToolResultBlock {
  const unfinished = !toolEnded(s) && turnEnded;
  const text = unfinished ? `${toolResultText(s)}\n(the turn ended before this call finished)` : toolResultText(s);
  return { type: "tool_result", tool_use_id: s.id, content: text, ...(s.status === "failed" || unfinished ? { is_error: true } : {}) };
}

/** A call's fields as a `tool_call` (or an update of a call never announced, drawn as a call from there) gives them. */
export function toolFields(update: Extract<SessionUpdate, { sessionUpdate: "tool_call" | "tool_call_update" }>): Omit<ToolCallState, "id"> {
  return {
    title: update.title ?? "",
    name: update.name ?? null,
    kind: update.kind ?? null,
    status: update.status ?? "pending",
    content: update.content ?? [],
    rawInput: update.rawInput,
    rawOutput: update.rawOutput,
  };
}
