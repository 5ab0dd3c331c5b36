/**
 * Pure renderers: a history entry, or the message being streamed, to display lines. A rendered
 * message also says where each block starts, so a key pressed on a line finds its block.
 */

import { type QueuedReport, readReportBlock } from "../chat/prompts.ts";
import type { ToolRun } from "../chat/thread.ts";
import { type ContextItem, contextBody, contextLabel, readContextBlock } from "../context/blocks.ts";
import type { InProgressBlock } from "../core/agent.ts";
import type { AssistantBlock, Block, Entry, ResponseMeta, ToolResultBlock } from "../core/native.ts";
import { callTitle } from "../mcp/tool-names.ts";
import { entryUsage } from "../usage/figures.ts";
import { appendAll } from "../util/arrays.ts";
import { type ChangeList, changeListLines } from "./change-list.ts";

export type Rendered = {
  readonly lines: string[];
  readonly blockStarts: number[];
  /** The change list's lines, when it has one: where it starts, and the file each line is about (null: its summary). */
  readonly changes?: ChangeLines;
};

export type ChangeLines = { readonly start: number; readonly paths: readonly (string | null)[] };

export type RenderContext = {
  readonly index: number;
  readonly expanded: ReadonlySet<string>;
  /** Live tool runs, for the last assistant message. */
  readonly toolRuns?: readonly ToolRun[];
  /** Tool names by tool_use id, to title results (from the previous message). */
  readonly toolNames?: ReadonlyMap<string, string>;
  /** What the turn this reply ended changed in the project's files. */
  readonly changes?: ChangeList;
  /** The user's keys for a tool call waiting for approval (host/config.ts `approval_hint`). */
  readonly approvalHint?: string;
};

export const detailKey = (index: number, block: number) => `${index}:${block}`;
export const HEADER = { user: "## You", results: "## Tool results", assistant: "## Claude" } as const;

const fmt = (n: number) => n.toLocaleString("en-US");

export const splitLines = (line: string): string[] => line.split("\n");

/** Thinking expanded: each line quoted; while it streams, headed as unfinished. */
export const THINKING_LINE = "> ";
const THINKING_OPEN = "▾ Thinking…";

/**
 * Appends `items` to `lines` as buffer lines, splitting those that hold a newline: no array is
 * made per line (a reply of a million lines would make a million of them).
 */
function appendLines(lines: string[], items: readonly string[]): string[] {
  for (const item of items) {
    if (item.includes("\n")) appendAll(lines, item.split("\n"));
    else lines.push(item);
  }
  return lines;
}

export function headerFor(e: Entry): string {
  if (e.message.role === "assistant") return HEADER.assistant;
  return e.message.content.every((b) => b.type === "tool_result") ? HEADER.results : HEADER.user;
}

export function renderEntry(e: Entry, ctx: RenderContext): Rendered {
  const lines = [headerFor(e)];
  const blockStarts: number[] = [];
  e.message.content.forEach((block: Block, i) => {
    // A user's text block may be a context item (a mention's content): one line, <Tab> shows it.
    const item = e.message.role === "user" && block.type === "text" ? readContextBlock(block.text) : null;
    if (e.message.role === "user" && i > 0 && item === null && isProse(block) && isProse(e.message.content[i - 1]!)) lines.push("");
    blockStarts.push(lines.length);
    const expanded = ctx.expanded.has(detailKey(ctx.index, i));
    // A fork's report that went with the message: shown under a line naming the fork, not as its markup.
    const report = e.message.role === "user" && block.type === "text" && !item ? readReportBlock(block.text) : null;
    const shown = item ? contextLines(item, expanded) : report ? reportLines(report) : renderBlock(block, expanded, ctx);
    // A buffer line cannot hold a newline (Neovim refuses the whole update): split every string.
    appendLines(lines, shown);
  });
  if (e.meta)
    appendLines(
      lines,
      (e.meta.notes ?? []).map((n) => `ℹ ${n}`),
    ).push(metaLine(e.meta, entryUsage(e) !== null));
  const changes = ctx.changes ? changeListLines(ctx.changes) : null;
  const start = lines.length;
  if (changes) appendAll(lines, changes.lines);
  lines.push("");
  return changes ? { lines, blockStarts, changes: { start, paths: changes.paths } } : { lines, blockStarts };
}

/**
 * A text block of a user message that reads as a message of its own: two in a row are parted by a
 * blank line (the sends of one user message, the prompts of an imported conversation merged into
 * one message). Not a context item (one line of its own), nor text that cites sources.
 */
function isProse(block: Block): boolean {
  return block.type === "text" && !block.citations?.length && !readContextBlock(block.text);
}

/** Why a reply was cut off, by its stop reason (a failed request has the API's error instead). */
const INTERRUPTED_BY: ReadonlyMap<string, string> = new Map([
  ["aborted", "aborted"],
  ["session_ended", "the session ended"],
]);

/** The line under a reply: why it stopped, and its usage when a request of this thread's is behind it (`billed`). */
export function metaLine(meta: ResponseMeta, billed: boolean): string {
  if (meta.interrupted) return `── interrupted (${INTERRUPTED_BY.get(meta.stopReason) ?? "the request failed"}): the reply stops here`;
  // A reply kept verbatim by a compaction was its source's request: no figures of this thread's to show.
  if (!billed) return `── ${meta.stopReason}`;
  const u = meta.usage;
  return `── ${meta.stopReason} · in ${fmt(u.input_tokens)} · out ${fmt(u.output_tokens)} · cache read ${fmt(u.cache_read_input_tokens)} · cache write ${fmt(u.cache_creation_input_tokens)}`;
}

/** Sources a text block cites, as markdown links under it (each once). */
function citationLines(citations: readonly unknown[] | null | undefined): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const c of citations ?? []) {
    const { url, title } = c as { url?: string; title?: string };
    if (!url || seen.has(url)) continue;
    seen.add(url);
    out.push(`   [${out.length + 1}] [${title || url}](${url})`);
  }
  return out;
}

function renderBlock(block: Block, expanded: boolean, ctx: RenderContext): string[] {
  switch (block.type) {
    case "text":
      return appendAll(block.text.split("\n"), citationLines(block.citations));
    case "thinking":
      if (!expanded) return [`▸ Thinking (${fmt(block.thinking.length)} chars)`];
      return ["▾ Thinking", ...block.thinking.split("\n").map((l) => `${THINKING_LINE}${l}`)];
    case "redacted_thinking":
      return ["▸ Thinking (redacted)"];
    case "tool_use":
      return [
        ...toolCallLines(block.name, block.input),
        ...toolRunLines(
          ctx.toolRuns?.find((r) => r.use.id === block.id),
          ctx.approvalHint,
        ),
      ];
    case "server_tool_use":
      return [`🔎 ${block.name}: ${JSON.stringify((block.input as { query?: string })?.query ?? block.input)}`];
    case "web_search_tool_result": {
      if (!Array.isArray(block.content))
        return [`   ⚠ web search failed: ${(block.content as { error_code?: string }).error_code ?? "unknown error"}`];
      const results = block.content;
      const head = `   → ${results.length} result${results.length === 1 ? "" : "s"}`;
      return expanded ? [head, ...results.map((r) => `   - [${r.title}](${r.url})`)] : [head];
    }
    case "tool_result":
      return toolResultLines(block, expanded, ctx.toolNames?.get(block.tool_use_id));
  }
}

function reportLines(report: QueuedReport): string[] {
  return [`${reportHead(report)}:`, report.text];
}

/** What a fork's report block is, as the display names it: a report, or the note of a promote (worktree forks). */
export function reportHead(report: QueuedReport): string {
  return report.kind === "promote" ? `🔀 Promoted "${report.from}" into this thread` : `📨 Report from "${report.from}"`;
}

function contextLines(item: ContextItem, expanded: boolean): string[] {
  if (!expanded) return [`▸ ${contextLabel(item)}`];
  return [`▾ ${contextLabel(item)}`, "```", ...contextBody(item).replace(/\n$/, "").split("\n"), "```"];
}

/** A tool as the display names it: an MCP tool as `server › tool`, tine's own by name. */
const toolTitle = (name: string) => callTitle(name) ?? name;

function toolCallLines(name: string, input: unknown): string[] {
  const i = (input ?? {}) as Record<string, unknown>;
  if (name === "bash_command") return [`🔧 bash_command: $ ${String(i["command"])}`];
  // A diff only of a call that has its fields (a malformed one is shown as it came, and answered as invalid).
  if (name === "edit_file" && typeof i["find"] === "string" && typeof i["replace"] === "string") {
    const diff = [
      ...String(i["find"] ?? "")
        .split("\n")
        .filter((l, _, a) => l !== "" || a.length > 1)
        .map((l) => `- ${l}`),
      ...String(i["replace"] ?? "")
        .split("\n")
        .map((l) => `+ ${l}`),
    ];
    return [`🔧 edit_file: ${String(i["path"])}`, "```diff", ...diff, "```"];
  }
  if (typeof i["path"] === "string" && Object.keys(i).length === 1) return [`🔧 ${toolTitle(name)}: ${i["path"]}`];
  return [`🔧 ${toolTitle(name)}: ${JSON.stringify(input)}`];
}

function toolRunLines(run: ToolRun | undefined, approvalHint: string | undefined): string[] {
  if (!run) return [];
  switch (run.state) {
    case "awaiting-approval":
      return [
        `   ⏳ awaiting approval${approvalHint ? `: ${approvalHint}` : ""}`,
        // An unattended fork's call waits only because it leaves the sandbox: the user is told why.
        ...(run.leaves ? [`   🔒 leaves the sandbox: ${run.leaves}`] : []),
      ];
    case "running":
      return ["   ⋯ running"];
    case "done":
      return [run.outcome?.isError ? "   ✗ failed" : "   ✓ done"];
  }
}

function resultText(block: ToolResultBlock): string {
  if (typeof block.content === "string") return block.content;
  return (block.content ?? []).map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join("\n");
}

/** A collapsed tool result shows this many characters of its first line. */
const RESULT_SUMMARY_CHARS = 80;

function toolResultLines(block: ToolResultBlock, expanded: boolean, tool = "tool"): string[] {
  const name = toolTitle(tool);
  const text = resultText(block);
  const lines = text.split("\n");
  const mark = block.is_error ? "✗" : "✓";
  if (!expanded) {
    // A first line longer than the summary holds is cut, and says so.
    const first = lines[0]!.length > RESULT_SUMMARY_CHARS ? `${lines[0]!.slice(0, RESULT_SUMMARY_CHARS)}…` : lines[0]!;
    return [`${mark} ${name}: ${first}${lines.length > 1 ? ` … (${fmt(lines.length)} lines)` : ""}`];
  }
  return [`${mark} ${name}:`, "```", ...lines, "```"];
}

/** The finalized blocks of a streaming message, and the block in progress, separately. */
export function renderOpenFinalized(finalized: readonly AssistantBlock[], ctx: RenderContext): Rendered {
  return renderEntry({ message: { role: "assistant", content: finalized } }, ctx);
}

/**
 * Lines of the block in progress; text blocks (and thinking expanded while it streams) are
 * appended to incrementally by the view.
 */
export function renderInProgressSummary(block: InProgressBlock, expanded = false): string[] {
  switch (block.type) {
    case "text":
      return block.text.split("\n");
    case "thinking":
      if (expanded) return [THINKING_OPEN, ...block.thinking.split("\n").map((l) => `${THINKING_LINE}${l}`)];
      return [`▸ Thinking… (${fmt(block.thinking.length)} chars)`];
    case "tool_use":
    case "server_tool_use":
      return [`🔧 ${toolTitle(block.name)}… (${fmt(block.inputJson.length)} chars of input)`];
    case "whole":
      return [];
    case "unknown":
      return [`(a "${block.blockType}" block, which this version of tine does not show)`];
  }
}
