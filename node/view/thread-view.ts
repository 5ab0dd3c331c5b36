/**
 * Derives a thread's display buffer from its state and keeps the buffer in step with minimal
 * edits. Layout: [header, entry 0 .. entry n-1, open message, footer].
 *
 * Cost model (what keeps streaming flat as threads grow):
 * - a delta of the block in progress touches only the last line(s) of the open segment;
 * - a history change re-renders only the entries after the common (shared) prefix;
 * - entries whose look depends on view state (expanded details, live tool runs) are the only
 *   ones revisited; everything else is rendered once (and cached per shared entry);
 * - a new view shows its thread from the end: `sync` writes none of the history, `fill` shows it
 *   from the end up a step at a time, rendering an entry only when the fill reaches it, so the
 *   first screen of a 50 MB thread costs what its last entries do (Buffers paces the steps).
 *
 * Over 300 lines: it is the one keeper of that cost model; the history, the open message, the
 * fill and the marks share its segments and cached entries, so each step relies on the others'.
 */

import type { Thread } from "../chat/thread.ts";
import type { InProgressBlock, OpenMessage } from "../core/agent.ts";
import { History } from "../core/history.ts";
import type { Entry } from "../core/native.ts";
import type { WaitingMerge } from "../core/waiting-merge.ts";
import type { ViewUpdate } from "../nvim/bridge.ts";
import { replaceTail } from "../util/arrays.ts";
import { changeListAt, turnChanges } from "./code-view.ts";
import { Document, RemadeLines, type Segment, UNMADE } from "./document.ts";
import { NO_QUEUED_LINES, type QueuedLines, queuedLines } from "./queued-lines.ts";
import {
  type ChangeLines,
  detailKey,
  type RenderContext,
  renderEntry,
  renderInProgressSummary,
  renderOpenFinalized,
  splitLines,
  THINKING_LINE,
} from "./render.ts";
import { footerLines } from "./status-footer.ts";

/** An entry's segment: the entry, what else shaped its look (its variant), and its lines. */
type EntrySeg = {
  readonly entry: Entry;
  readonly variant: string;
  readonly blockStarts: readonly number[];
  readonly lines: Segment;
  readonly changes?: ChangeLines;
};
/** An entry above what the buffer shows, not rendered yet: rendered when the fill reaches it. */
type Unrendered = { readonly entry: Entry; readonly unrendered: true };
type EntrySlot = EntrySeg | Unrendered;

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
  /** Conflicted merges into the thread waiting to be accepted, each a line above the notes (`mergeAt` finds them). */
  merges?: readonly { readonly line: string; readonly merge: WaitingMerge }[];
  /** The display key that takes a queued message back into the input (named under the queue). */
  editQueuedKey?: string | false;
  /** The display's keys for a tool call waiting for approval, named under it (host/config.ts `approval_hint`). */
  approvalHint?: string;
};

export class ThreadView {
  /** A new buffer's one empty line is the footer's; all above it is shown by `fill`. */
  private readonly doc = new Document([[], [], [""]], 2);
  private history: History = History.empty;
  private entries: EntrySlot[] = [];
  /** The fork marks last asked for (by message): marks are placed again as the fill shows their lines. */
  private forkMarks: ThreadViewInput["forkMarks"] = [];
  private approvalHint: string | undefined;
  /** Entry indices rendered with a non-empty variant: revisited on every sync. */
  private readonly varied = new Set<number>();
  private open: {
    ref: OpenMessage;
    finalized: number;
    block: InProgressBlock | null;
    /** Characters of the block in progress shown so far, when it is shown as it streams (text, thinking expanded). */
    textLen: number;
    lastLine: number;
    /** Thinking in progress, expanded: its lines are appended to as it streams, each quoted. */
    thinkingOpen: boolean;
    /** Where each block starts (the finished ones, then the one in progress), for keys on them while the reply streams. */
    blockStarts: readonly number[];
    /** The details of this message expanded when it was rendered: a toggle renders it again. */
    expandedKey: string;
  } | null = null;
  private marksKey = "";
  private busyKey: number | null = null;
  /** The waiting merges shown first in the footer, a line each. */
  private merges: readonly WaitingMerge[] = [];
  /** The queued messages shown in the footer, and the footer line they start at. */
  private queued: { at: number; shown: QueuedLines } = { at: 0, shown: NO_QUEUED_LINES };
  /** The thread's code marks last drawn: new ones may add a change list to any reply. */
  private code: readonly unknown[] = [];

  sync(input: ThreadViewInput): ViewUpdate {
    const { thread } = input;
    this.syncSegment(0, input.headerLines);
    this.syncHistory(thread);
    this.syncOpen(thread);
    // Messages the user queued come last, under the reply being written and what its end says.
    const merges = input.merges ?? [];
    this.merges = merges.map((m) => m.merge);
    const notes = [...merges.map((m) => m.line), ...(input.noteLines ?? [])];
    const footer = [...(notes.length ? [...notes, ""] : []), ...footerLines(thread)].flatMap(splitLines);
    const shown = queuedLines(thread.queue, input.editQueuedKey ?? "<CR>");
    this.queued = { at: footer.length, shown };
    this.syncSegment(this.doc.count - 1, shown.lines.length ? [...footer, ...shown.lines, ""] : footer);
    const update: ViewUpdate = { edits: this.doc.takeEdits() };
    this.forkMarks = input.forkMarks;
    this.approvalHint = input.approvalHint;
    this.placeMarks(update);
    const status = thread.runner.status;
    const busy = status.type === "streaming" ? status.startedAt : null;
    if (busy !== this.busyKey) {
      this.busyKey = busy;
      update.busySince = busy;
    }
    return update;
  }

  /** Whether lines above what the buffer shows wait to be filled in. */
  get filling(): boolean {
    return this.doc.filling;
  }

  /**
   * Shows about `budget` bytes more of what lies above the buffer's first line (the next step of
   * filling in a thread opened from its end); null when all is shown. `thread` is the one last
   * synced, in its present state (an entry rendered now looks as it does now).
   */
  fill(thread: Thread, budget: number): ViewUpdate | null {
    if (!this.doc.filling) return null;
    const history = this.history;
    this.doc.reveal(budget, (i) => {
      const seg = this.renderAt(history, thread, i - 1);
      this.entries[i - 1] = seg;
      return seg.lines;
    });
    const update: ViewUpdate = { edits: this.doc.takeEdits() };
    this.placeMarks(update);
    return update;
  }

  /** The lines the buffer holds. */
  text(): string[] {
    return this.doc.text();
  }

  /** The fork marks, by buffer line, when they changed (lines above the buffer have none yet). */
  private placeMarks(update: ViewUpdate): void {
    // Forks taken at the same message share one mark, in fork order (separate end-of-line
    // marks on one line would be shown in an order of Neovim's own).
    // Many forks share one message: its line is found once, and each mark is added in place.
    const byMessage = new Map<number, string[]>();
    for (const m of this.forkMarks) {
      if (m.atMessage >= this.entries.length) continue;
      const texts = byMessage.get(m.atMessage);
      if (texts) texts.push(m.text);
      else byMessage.set(m.atMessage, [m.text]);
    }
    const byLine = new Map<number, string[]>();
    for (const [atMessage, texts] of byMessage) {
      const line = this.doc.shownStart(1 + atMessage);
      if (line === null) continue;
      const shared = byLine.get(line); // an empty message's line is the next one's
      if (shared) for (const text of texts) shared.push(text);
      else byLine.set(line, texts);
    }
    const marks = [...byLine].map(([line, texts]) => ({ line, text: texts.join("  ") }));
    const key = JSON.stringify(marks);
    if (key !== this.marksKey) {
      this.marksKey = key;
      update.marks = marks;
    }
  }

  /**
   * The history entry and block at a buffer line (0-based), if any; on the change list under a
   * reply, `file` too: the file the line is about (null: the list's summary).
   */
  locate(line: number): { message: number; role: "user" | "assistant"; block: number | null; file?: string | null } | null {
    const at = this.doc.locate(line);
    if (!at || at.segment === 0 || at.segment > this.entries.length + 1) return null;
    const message = at.segment - 1;
    // The reply being written: its finished blocks are keyed as the entry it becomes.
    const seg = message === this.entries.length ? this.open : this.entries[message]!;
    if (!seg || "unrendered" in seg) return null; // never: what the buffer shows is rendered
    const starts = seg.blockStarts;
    let block: number | null = null;
    for (let b = 0; b < starts.length; b++) if (starts[b]! <= at.offset) block = b;
    const changes = "changes" in seg ? seg.changes : undefined;
    const onList = changes && at.offset >= changes.start && at.offset < changes.start + changes.paths.length;
    // The reply being written is Claude's.
    const role = "entry" in seg ? seg.entry.message.role : "assistant";
    return onList ? { message, role, block, file: changes.paths[at.offset - changes.start]! } : { message, role, block };
  }

  /** The queued message shown at a buffer line (0-based), if any: its number in the thread's queue. */
  queuedAt(line: number): number | undefined {
    const at = this.doc.locate(line);
    if (!at || at.segment !== this.doc.count - 1) return undefined;
    const offset = at.offset - this.queued.at;
    return this.queued.shown.spans.find((s) => offset >= s.from && offset < s.to)?.item;
  }

  /** The waiting merge whose line a buffer line (0-based) is, if any. */
  mergeAt(line: number): WaitingMerge | undefined {
    const at = this.doc.locate(line);
    return at && at.segment === this.doc.count - 1 ? this.merges[at.offset] : undefined;
  }

  /** First line of a message's segment; null while the fill has not shown it yet. */
  messageLine(index: number): number | null {
    return this.doc.shownStart(1 + index);
  }

  private syncSegment(i: number, given: string[]): void {
    const lines = given.flatMap(splitLines);
    const old = this.doc.lines(i);
    if (old.length !== lines.length || old.some((l, j) => l !== lines[j])) this.doc.splice(i, 1, [lines]);
  }

  private renderAt(history: History, thread: Thread, index: number): EntrySeg {
    const entry = history.at(index);
    const ctx = { ...contextFor(thread, history, index), approvalHint: this.approvalHint };
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
    // Histories only change at their tail: walk back to the shared prefix.
    let k = Math.min(this.entries.length, n);
    while (k > 0 && this.entries[k - 1]!.entry !== history.at(k - 1)) k--;
    // Entries whose view state may have changed: the last two (live tool runs) and expanded ones.
    const revisit = new Set<number>([...this.varied, n - 1, n - 2]);
    for (const key of thread.expanded) revisit.add(Number(key.split(":")[0]));
    // New code marks may give any reply its change list.
    if (thread.code !== this.code) for (const i of turnChanges(thread).keys()) revisit.add(i);
    this.code = thread.code;
    for (const i of revisit) {
      if (i < 0 || i >= k) continue;
      const old = this.entries[i]!;
      if ("unrendered" in old) continue; // rendered as it is then, when the fill reaches it
      // Unchanged view state: the entry looks as drawn (it is not rendered again to find out).
      if (variantOf(contextFor(thread, history, i)) === old.variant) continue;
      const seg = this.renderAt(history, thread, i);
      if (seg.variant !== old.variant) {
        this.doc.splice(1 + i, 1, [seg.lines]);
        this.entries[i] = seg;
      }
    }
    if (k < this.entries.length || k < n) {
      // Entries the buffer will not show at once (above its first line) are rendered when the fill reaches them.
      const shown = this.doc.shows(1 + k);
      const fresh: EntrySlot[] = [];
      for (let i = k; i < n; i++) fresh.push(shown ? this.renderAt(history, thread, i) : { entry: history.at(i), unrendered: true });
      // The open segment is replaced too: a finished stream becomes its entry (same lines: no write).
      const removed = this.entries.length - k + 1;
      const openLines = this.renderOpenLines(thread.runner.open, thread, n);
      this.doc.splice(1 + k, removed, [...fresh.map((s) => ("unrendered" in s ? UNMADE : s.lines)), openLines]);
      replaceTail(this.entries, k, fresh);
    }
    this.varied.clear();
    for (const [i, e] of this.entries.entries()) if (!("unrendered" in e) && e.variant !== "") this.varied.add(i);
    this.history = history;
  }

  private renderOpenLines(open: OpenMessage | null, thread: Thread, index: number): string[] {
    this.open = null;
    if (!open) return [];
    const fin = renderOpenFinalized(open.finalized, { index, expanded: thread.expanded });
    const lines = fin.lines.slice(0, -1); // no trailing blank while streaming
    const block = open.inProgress;
    // The block in progress is keyed as it will be once finished: <Tab> on streaming thinking opens it now and after.
    const thinkingOpen = block?.type === "thinking" && thread.expanded.has(detailKey(index, open.finalized.length));
    const ip = block ? renderInProgressSummary(block, thinkingOpen) : [];
    this.open = {
      ref: open,
      finalized: open.finalized.length,
      block,
      textLen: block?.type === "text" ? block.text.length : block?.type === "thinking" && thinkingOpen ? block.thinking.length : 0,
      lastLine: lines.length + ip.length - 1,
      thinkingOpen,
      blockStarts: block ? [...fin.blockStarts, lines.length] : fin.blockStarts,
      expandedKey: expandedKeyOf(thread.expanded, index),
    };
    return [...lines, ...ip];
  }

  private syncOpen(thread: Thread): void {
    const open = thread.runner.open;
    const i = 1 + this.entries.length;
    const o = this.open;
    const same =
      o &&
      open === o.ref &&
      open.finalized.length === o.finalized &&
      open.inProgress === o.block &&
      o.expandedKey === expandedKeyOf(thread.expanded, i - 1);
    if (o && same && o.block) {
      const block = o.block;
      const streamed = block.type === "text" ? block.text : block.type === "thinking" && o.thinkingOpen ? block.thinking : null;
      if (streamed !== null) {
        // Append only the new characters: the cost of a delta is the delta (a new line of thinking is quoted).
        const added = streamed.slice(o.textLen);
        if (!added) return;
        const pieces = added.split("\n").map((p, j) => (j > 0 && block.type === "thinking" ? THINKING_LINE + p : p));
        const last = this.doc.lines(i)[o.lastLine] ?? "";
        pieces[0] = last + pieces[0];
        this.doc.patchTail(i, o.lastLine, pieces);
        o.textLen = streamed.length;
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

/** The details of message `index` that are expanded, as one comparable string. */
function expandedKeyOf(expanded: ReadonlySet<string>, index: number): string {
  if (expanded.size === 0) return "";
  const prefix = `${index}:`;
  const keys: string[] = [];
  for (const key of expanded) if (key.startsWith(prefix)) keys.push(key);
  return keys.sort().join(" ");
}

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
