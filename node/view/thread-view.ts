/**
 * Derives a thread's display buffer from its state and keeps the buffer in step with minimal
 * edits. Layout: [header, entry 0 .. entry n-1, open message, footer].
 *
 * Cost model (what keeps streaming flat as threads grow):
 * - a delta of the block in progress touches only the last line(s) of the open segment;
 * - a history change re-renders only the entries after the common (shared) prefix;
 * - entries whose look depends on view state (expanded details, live tool runs) are the only
 *   ones revisited; everything else is rendered once (and cached per shared entry).
 */

import type { Thread } from "../chat/thread.ts";
import type { InProgressBlock, OpenMessage, StopReason } from "../providers/agent.ts";
import type { History } from "../providers/history.ts";
import type { Entry } from "../providers/native.ts";
import { replaceTail } from "../util/arrays.ts";
import { changeListAt, turnChanges } from "./code-view.ts";
import { Document, type Edit, RemadeLines, type Segment } from "./document.ts";
import { type ChangeLines, type RenderContext, renderEntry, renderInProgressSummary, renderOpenFinalized, splitLines } from "./render.ts";

export type Mark = { line: number; text: string };
export type ViewUpdate = { edits: Edit[]; marks?: Mark[]; busySince?: number | null };

/** An entry's segment: the entry, what else shaped its look (its variant), and its lines. */
type EntrySeg = {
  readonly entry: Entry;
  readonly variant: string;
  readonly blockStarts: readonly number[];
  readonly lines: Segment;
  readonly changes?: ChangeLines;
};

/**
 * Segments of entries whose look depends on nothing but the entry (variant ""), made once and
 * shared by every view of a thread holding the entry: a fork's view of its source's 1,000
 * messages holds 1,000 references, not 1,000 segments of its own. Their lines are remade when
 * needed (RemadeLines), not held: rendering an entry again gives the same lines.
 */
const plainSegs = new WeakMap<Entry, EntrySeg>();

export type ThreadViewInput = {
  thread: Thread;
  headerLines: string[];
  forkMarks: { atMessage: number; text: string }[];
  /** Shown above the footer (fork reports waiting for the next message). */
  noteLines?: string[];
};

export class ThreadView {
  private readonly doc = new Document([[], [], [""]]);
  private history: History | null = null;
  private entries: EntrySeg[] = [];
  /** Entry indices rendered with a non-empty variant: revisited on every sync. */
  private readonly varied = new Set<number>();
  private open: { ref: OpenMessage; finalized: number; block: InProgressBlock | null; textLen: number; lastLine: number } | null = null;
  private marksKey = "";
  private busyKey: number | null = null;
  /** The thread's code marks last drawn: new ones may add a change list to any reply. */
  private code: readonly unknown[] = [];

  sync(input: ThreadViewInput): ViewUpdate {
    const { thread } = input;
    this.syncSegment(0, input.headerLines);
    this.syncHistory(thread);
    this.syncOpen(thread);
    this.syncSegment(this.doc.count - 1, [...(input.noteLines?.length ? [...input.noteLines, ""] : []), ...footerLines(thread)]);
    const update: ViewUpdate = { edits: this.doc.takeEdits() };
    // Forks taken at the same message share one mark, in fork order (separate end-of-line
    // marks on one line would be shown in an order of Neovim's own).
    const byLine = new Map<number, string[]>();
    for (const m of input.forkMarks) {
      if (m.atMessage >= this.entries.length) continue;
      const line = this.doc.start(1 + m.atMessage);
      byLine.set(line, [...(byLine.get(line) ?? []), m.text]);
    }
    const marks = [...byLine].map(([line, texts]) => ({ line, text: texts.join("  ") }));
    const key = JSON.stringify(marks);
    if (key !== this.marksKey) {
      this.marksKey = key;
      update.marks = marks;
    }
    const status = thread.runner.status;
    const busy = status.type === "streaming" ? status.startedAt : null;
    if (busy !== this.busyKey) {
      this.busyKey = busy;
      update.busySince = busy;
    }
    return update;
  }

  text(): string[] {
    return this.doc.text();
  }

  /**
   * The history entry and block at a buffer line (0-based), if any; on the change list under a
   * reply, `file` too: the file the line is about (null: the list's summary).
   */
  locate(line: number): { message: number; block: number | null; file?: string | null } | null {
    const at = this.doc.locate(line);
    if (!at || at.segment === 0 || at.segment > this.entries.length) return null;
    const message = at.segment - 1;
    const seg = this.entries[message]!;
    const starts = seg.blockStarts;
    let block: number | null = null;
    for (let b = 0; b < starts.length; b++) if (starts[b]! <= at.offset) block = b;
    const changes = seg.changes;
    const onList = changes && at.offset >= changes.start && at.offset < changes.start + changes.paths.length;
    return onList ? { message, block, file: changes.paths[at.offset - changes.start]! } : { message, block };
  }

  /** First line of a message's segment. */
  messageLine(index: number): number {
    return this.doc.start(1 + index);
  }

  private syncSegment(i: number, given: string[]): void {
    const lines = given.flatMap(splitLines);
    const old = this.doc.lines(i);
    if (old.length !== lines.length || old.some((l, j) => l !== lines[j])) this.doc.splice(i, 1, [lines]);
  }

  private renderAt(history: History, thread: Thread, index: number): EntrySeg {
    const entry = history.at(index);
    const ctx = contextFor(thread, history, index);
    const variant = variantOf(ctx);
    if (variant !== "") return { entry, variant, ...renderEntry(entry, withToolNames(ctx, history)) };
    // (an entry with a change list has a variant: it is never cached as plain)
    let seg = plainSegs.get(entry);
    if (!seg) {
      // Made again in the same context: no view state, the same tool names (from the entry before it).
      const plain = { ...withToolNames(ctx, history), expanded: NOTHING_EXPANDED };
      const { lines, blockStarts } = renderEntry(entry, plain);
      seg = { entry, variant, blockStarts, lines: new RemadeLines(lines, () => renderEntry(entry, plain).lines) };
      plainSegs.set(entry, seg);
    }
    return seg;
  }

  private syncHistory(thread: Thread): void {
    const history = thread.runner.history;
    const n = history.length;
    let k = 0;
    if (this.history) {
      // Histories only change at their tail: walk back to the shared prefix.
      k = Math.min(this.entries.length, n);
      while (k > 0 && this.entries[k - 1]!.entry !== history.at(k - 1)) k--;
    }
    // Entries whose view state may have changed: the last two (live tool runs) and expanded ones.
    const revisit = new Set<number>([...this.varied, n - 1, n - 2]);
    for (const key of thread.expanded) revisit.add(Number(key.split(":")[0]));
    // New code marks may give any reply its change list.
    if (thread.code !== this.code) for (const i of turnChanges(thread).keys()) revisit.add(i);
    this.code = thread.code;
    for (const i of revisit) {
      if (i < 0 || i >= k) continue;
      // Unchanged view state: the entry looks as drawn (it is not rendered again to find out).
      if (variantOf(contextFor(thread, history, i)) === this.entries[i]!.variant) continue;
      const seg = this.renderAt(history, thread, i);
      if (seg.variant !== this.entries[i]!.variant) {
        this.doc.splice(1 + i, 1, [seg.lines]);
        this.entries[i] = seg;
      }
    }
    if (k < this.entries.length || k < n) {
      const fresh = [];
      for (let i = k; i < n; i++) fresh.push(this.renderAt(history, thread, i));
      // The open segment is replaced too: a finished stream becomes its entry (same lines: no write).
      const removed = this.entries.length - k + 1;
      const openLines = this.renderOpenLines(thread.runner.open, thread, n);
      this.doc.splice(1 + k, removed, [...fresh.map((s) => s.lines), openLines]);
      replaceTail(this.entries, k, fresh);
    }
    this.varied.clear();
    for (const [i, e] of this.entries.entries()) if (e.variant !== "") this.varied.add(i);
    this.history = history;
  }

  private renderOpenLines(open: OpenMessage | null, thread: Thread, index: number): string[] {
    this.open = null;
    if (!open) return [];
    const fin = renderOpenFinalized(open.finalized, { index, expanded: thread.expanded });
    const lines = fin.lines.slice(0, -1); // no trailing blank while streaming
    const block = open.inProgress;
    const ip = block ? renderInProgressSummary(block) : [];
    this.open = {
      ref: open,
      finalized: open.finalized.length,
      block,
      textLen: block?.type === "text" ? block.text.length : 0,
      lastLine: lines.length + ip.length - 1,
    };
    return [...lines, ...ip];
  }

  private syncOpen(thread: Thread): void {
    const open = thread.runner.open;
    const i = 1 + this.entries.length;
    const o = this.open;
    if (o && open === o.ref && open.finalized.length === o.finalized && open.inProgress === o.block && o.block) {
      const block = o.block;
      if (block.type === "text") {
        // Append only the new characters: the cost of a delta is the delta.
        const added = block.text.slice(o.textLen);
        if (!added) return;
        const pieces = added.split("\n");
        const last = this.doc.lines(i)[o.lastLine] ?? "";
        pieces[0] = last + pieces[0];
        this.doc.patchTail(i, o.lastLine, pieces);
        o.textLen = block.text.length;
        o.lastLine += pieces.length - 1;
        return;
      }
      this.doc.patchTail(i, o.lastLine, renderInProgressSummary(block));
      return;
    }
    const lines = this.renderOpenLines(open, thread, thread.runner.history.length);
    this.syncSegment(i, lines);
  }
}

const NOTHING_EXPANDED: ReadonlySet<string> = new Set();

/** What shapes an entry's look beyond the entry itself (its variant), without the tool names. */
function contextFor(thread: Thread, history: History, index: number): RenderContext {
  const entry = history.at(index);
  const isLastAssistant = index === history.length - 1 && entry.message.role === "assistant";
  const changes = changeListAt(thread, index);
  return {
    index,
    expanded: thread.expanded,
    toolRuns: isLastAssistant && thread.toolRuns.length ? thread.toolRuns : undefined,
    ...(changes ? { changes } : {}),
  };
}

/**
 * The context with the names of the tools whose results the entry holds (from the entry before
 * it, which a thread holding the entry holds too): looked up only when the entry is rendered.
 */
function withToolNames(ctx: RenderContext, history: History): RenderContext {
  if (history.at(ctx.index).message.role !== "user" || ctx.index === 0) return ctx;
  const prev = history.at(ctx.index - 1).message;
  return { ...ctx, toolNames: new Map(prev.content.flatMap((b) => (b.type === "tool_use" ? [[b.id, b.name] as [string, string]] : []))) };
}

/** What, beyond the entry itself, its rendering depends on ("" = nothing). */
function variantOf(ctx: RenderContext): string {
  const parts: string[] = [];
  const prefix = `${ctx.index}:`;
  for (const key of ctx.expanded) if (key.startsWith(prefix)) parts.push(key);
  if (ctx.toolRuns) parts.push(ctx.toolRuns.map((r) => `${r.use.id}=${r.state}${r.outcome?.isError ? "!" : ""}`).join(","));
  if (ctx.changes) parts.push(`files=${ctx.changes.files.length}/${ctx.changes.skipped.length}`);
  return parts.sort().join(";");
}

/** What a stop other than a plain end means for the user, and what to do next. */
const STOP_NOTES: Partial<Record<StopReason, string>> = {
  aborted: "⏹ Aborted",
  max_tokens: "⚠ Stopped at the max_tokens limit: send (e.g. “continue”) to go on, or raise max_tokens in setup()",
  refusal: "⚠ The model declined to respond: rephrase and send again, or fork from an earlier message (F)",
  pause_turn: "⏸ The server paused this turn several times: send (e.g. “continue”) to resume it",
  model_context_window_exceeded: "⚠ The conversation filled the model's context window: fork from an earlier message (F)",
};

function footerLines(thread: Thread): string[] {
  const s = thread.runner.status;
  if (s.type === "error") return [`⚠ Error: ${s.message}`, "  R (or :Tine retry) sends it again; a new message replaces it", ""];
  if (s.type === "stopped") {
    const note = STOP_NOTES[s.stopReason];
    if (note) return [note, ""];
  }
  if (s.type === "streaming" && s.retry !== undefined) {
    const seconds = Math.max(0, Math.round((s.retry.at - Date.now()) / 1000));
    return [`↻ ${s.retry.why}`, `  trying again in ${seconds} s (attempt ${s.attempt + 1}) · <C-c> aborts`, ""];
  }
  if (s.type === "streaming" && s.attempt > 0) return [`↻ retrying (attempt ${s.attempt + 1})`, ""];
  return [""];
}
