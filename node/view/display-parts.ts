/**
 * What a thread's display says besides its messages, from the thread and the tree alone: the
 * lines above them (where it came from, where it works, its instructions and model, read-only or
 * not being saved), the marks beside them (its forks, the user's labels) and the notes under the
 * reply (merges waiting to be accepted, reports that wait, files followed). Pure: buffers.ts writes them.
 */
import type { Chat } from "../chat/chat.ts";
import { messageName } from "../chat/names.ts";
import type { Thread } from "../chat/thread.ts";
import { followedAfter } from "../context/follow.ts";
import { instructionsLine } from "../context/instructions.ts";
import type { AgentStatus } from "../core/agent.ts";
import { type CodeNote, hunkLines, isReviewNote, type ReviewNote } from "../core/graft-note.ts";
import type { WaitingMerge } from "../core/waiting-merge.ts";
import { describeChoice } from "../providers/models.ts";
import { assertUnreachable } from "../util/assert-unreachable.ts";
import { reportHead } from "./render.ts";
import { type ListExtras, UNATTENDED } from "./thread-list.ts";
import type { ThreadViewInput } from "./thread-view.ts";

/** The display's own words: the keys a fork's banner and a waiting merge's line name, and what a thread with no messages shows. */
export type DisplayWords = {
  readonly keys: { readonly report: string; readonly promote: string; readonly discard: string; readonly resolveMerge: string | false };
  /** Shown in a thread with no messages yet. */
  readonly emptyHint: string;
};

/** The message a fork branched at, as its banner names it (the fork holds it: it shares its parent's history up to there). */
function forkPoint(fork: Thread, atMessage: number): string {
  const history = fork.runner.history;
  return messageName(atMessage < history.length ? history.at(atMessage).message : undefined);
}

/**
 * The line of a conflicted merge into this thread that waits to be accepted: what is left, and
 * how to go on (the quickfix list, accepting it, and the key that asks the agent to resolve it).
 */
export function mergeLine(merge: WaitingMerge, resolveKey: string | false): string {
  const n = merge.files.length;
  const ask = resolveKey ? ` · ${resolveKey} asks the agent to resolve ${n === 1 ? "it" : "them"}` : "";
  const line = `⚠ merge of "${merge.fork}": ${n} conflict${n === 1 ? "" : "s"} in ${merge.files.join(", ")} · :copen · :Tine merge done${ask}`;
  // From a marker on disk: one line whatever it holds.
  return line.replace(/\s*[\r\n]+\s*/g, " ");
}

/** A graft into this thread's files, until its note goes with the next message (one line whatever the path or title hold). */
export function graftLine(note: CodeNote): string {
  if (isReviewNote(note)) return reviewLine(note);
  const hunk = note.hunk === null ? "" : ` (hunk ${note.hunk})`;
  const conflicts = note.conflicts ? ` (${note.conflicts} conflict${note.conflicts === 1 ? "" : "s"}: markers in the file)` : "";
  const line = note.undone
    ? `⇣ graft of ${note.path}${hunk} from "${note.from}" undone (:Tine restore undo) · the model is not told of it`
    : `⇡ grafted ${note.path}${hunk} from "${note.from}"${conflicts} · the model is told with your next message`;
  return line.replace(/\s*[\r\n]+\s*/g, " ");
}

/** A reviewed hunk (review/), until its note goes with the next message. */
function reviewLine(note: ReviewNote): string {
  const where = `${note.path} ${hunkLines(note)}`;
  const conflicts = note.conflicts ? ` (${note.conflicts} conflict${note.conflicts === 1 ? "" : "s"}: markers in the file)` : "";
  const line =
    note.review === "comment"
      ? `✎ comment on ${where} · the model is told with your next message`
      : note.undone
        ? `⇣ undo of ${where} taken back (:Tine restore undo) · the model is not told of it`
        : `↶ undid ${where}${conflicts} · the model is told with your next message`;
  return line.replace(/\s*[\r\n]+\s*/g, " ");
}

/** A thread whose request waits for its tools (core/agent.ts): a line per MCP server waiting for the user to sign in. */
export function signInWaitLines(status: AgentStatus | undefined, signingIn: () => readonly string[]): string[] {
  // Asked of the servers only for a thread whose tools wait: every other thread's draw asks nothing.
  if (status?.type !== "streaming" || !status.waitingForTools) return [];
  return signingIn().map(
    (name) => `⏳ Waits for you to sign in to the MCP server ${name}: its page is open in your browser (:Tine mcp signs in again)`,
  );
}

/** The lines above a thread's messages, the marks beside them and the notes under the reply. */
export function displayParts(
  thread: Thread,
  chat: Chat,
  extras: Pick<ListExtras, "worksIn" | "unattended" | "notSaved" | "merges" | "fanOutNotes" | "waitNotes">,
  words: DisplayWords,
): Pick<ThreadViewInput, "headerLines" | "forkMarks" | "noteLines" | "merges"> {
  const lineage = chat.lineage.get(thread.id);
  const parentTitle = lineage && chat.titleOf(lineage.parentId);
  const headerLines: string[] = [];
  if (lineage && parentTitle !== undefined) {
    switch (lineage.relation) {
      case "fork":
        headerLines.push(
          `⑂ Forked from "${parentTitle}" at ${forkPoint(thread, lineage.atMessage)} · gp: go to parent`,
          // Keys of this display (and the list): in the input they are Vim's own (`gP` puts text).
          `  ends with, keys in this display: ${words.keys.report} report to it · ${words.keys.promote} promote into it · ${words.keys.discard} discard · anywhere: :Tine fork report|promote|discard`,
          "",
        );
        break;
      case "handoff":
        headerLines.push(`↪ Handed off from "${parentTitle}": a thread of its own · gp: go to it`, "");
        break;
      case "compact":
        headerLines.push(
          `⇣ Compacted from "${parentTitle}": its first ${lineage.atMessage + 1} messages summarized below; that thread is kept whole · gp: go to it`,
          "",
        );
        break;
      default:
        assertUnreachable(lineage.relation);
    }
  }
  const banner = thread.runner.banner?.() ?? [];
  if (banner.length) headerLines.push(...banner, "");
  const worksIn = extras.worksIn(thread.id);
  if (worksIn && extras.unattended(thread.id))
    headerLines.push(
      `${UNATTENDED}: its tools run in the sandbox, confined to its git worktree (nothing inside it waits for approval): ${worksIn}`,
      "",
    );
  else if (worksIn) headerLines.push(`⎇ Works in a git worktree of its own: ${worksIn}`, "");
  // What it sends after tine's system prompt, as read when it started.
  const instructions = instructionsLine(thread.runner.spec.instructions);
  if (instructions) headerLines.push(instructions, "");
  // A model of its own (`:Tine model`); setup's goes unsaid.
  const chosen = thread.runner.spec.model;
  if (chosen) headerLines.push(`model: ${describeChoice(chosen)} (:Tine model)`, "");
  if (thread.runner.history.length === 0 && !thread.runner.open) headerLines.push(words.emptyHint, "");
  if (thread.readOnlyBy !== null)
    headerLines.push(`🔒 Open for writing in another Neovim (pid ${thread.readOnlyBy}): read-only here. Fork it to continue.`, "");
  const notSaved = extras.notSaved(thread.id);
  if (notSaved) headerLines.push(`⚠ Not being saved: ${notSaved}. It works on in memory and is written once saving works again.`, "");
  const forkMarks = chat.childrenOf(thread.id).map((child) => {
    const l = chat.lineage.get(child)!;
    // A compaction's title carries its own mark (⇣).
    return { atMessage: l.atMessage, text: l.relation === "compact" ? `${chat.titleOf(child)}` : `⑂ ${chat.titleOf(child)}` };
  });
  for (const [atMessage, label] of thread.labels.messages) forkMarks.unshift({ atMessage, text: `🏷 ${label}` });
  // Whole, as the model gets it (a worktree fork's adds what its code changed under its finding).
  const reportLines = thread.reports.map((r) => `${reportHead(r)} goes with your next message: ${r.text}`);
  const graftLines = thread.grafts.map(graftLine);
  const followed = [...followedAfter(thread.runner.history).keys()];
  const contextLines = followed.length
    ? [`📎 Following ${followed.join(", ")}: what changes goes with your next message · @drop:<path> stops one`]
    : [];
  const merges = extras.merges(thread.id).map((merge) => ({ line: mergeLine(merge, words.keys.resolveMerge), merge }));
  // What the runner's program asks (an agent's permission requests), under the reply it asks of.
  const questionLines = (thread.runner.questions?.pending() ?? []).map((q) =>
    `? ${q.title} asks permission: a allow · A always · d reject  (${q.options.map((o) => o.name).join(" / ")})`.replace(
      /\s*[\r\n]+\s*/g,
      " ",
    ),
  );
  const noteLines = [
    ...extras.waitNotes(thread.id),
    ...extras.fanOutNotes(thread.id),
    ...questionLines,
    ...contextLines,
    ...reportLines,
    ...graftLines,
  ];
  return { headerLines, forkMarks, noteLines, merges };
}
