/**
 * The texts tine itself puts in front of the model (wrap-up, summary and hand-off prompts, report
 * blocks, refusals of enter_fork, results for tools a fork never saw finish): one place to read
 * and tune what the model is told on the user's behalf. The frame around project instructions is
 * context/instructions.ts's, where they are read.
 */
import { type CodeNote, type GraftNote, hunkLines, isReviewNote, type ReviewNote } from "../core/graft-note.ts";
import type { History } from "../core/history.ts";
import { assertUnreachable } from "../util/assert-unreachable.ts";
import { headAndTail } from "../util/head-and-tail.ts";
import { attribute, neutralised, tagsOf } from "../util/tagged-text.ts";
import type { AgentForkBar } from "./forks.ts";

/**
 * Every note tine writes into a user turn on the user's behalf (below: wrap-up, summary and
 * hand-off prompts, the notes of grafts, reviews and promoted code) starts with `[tine] `: how
 * they are told from what the user typed (chat/names.ts isTyped).
 */
export const isTineNote = (text: string): boolean => text.startsWith("[tine] ");

/** Sent to a fork whose first idle period ran out. */
export const wrapUpPrompt = (minutes: number) =>
  `[tine] This fork has been idle for ${minutes} minute${minutes === 1 ? "" : "s"}. Wrap up: reply with a short ` +
  "summary of what you found, for the thread this fork came from; the user can then report it, promote this fork " +
  "or discard it. If the user stays away, your summary is reported back and the fork ends.";

/** Sent to a fork that is asked for its summary before it reports to its parent. */
export const SUMMARY_PROMPT =
  "[tine] This fork is ending and reports back to the thread it came from. Reply with a concise summary of what " +
  "you found or did here (conclusions, decisions, files changed), written for that thread. Nothing else.";

/** Sent for `@handoff <goal>`: the agent answers by calling fork_thread. */
export const handoffPrompt = (goal: string) =>
  `[tine] Hand this work off to a fresh thread. Call fork_thread with a self-contained prompt for it: the goal, ` +
  `and the context it needs from this conversation (decisions, file names, constraints), not the whole history. Goal: ${goal}`;

/** What the model is told of a tool call the user denied, with their reason when they gave one (`D`). */
export const deniedText = (reason?: string) =>
  reason ? `The user denied this tool call. Their reason: ${reason}` : "The user denied this tool call.";

/**
 * A fork's findings waiting to go to this thread with its next user turn; `kind` "promote": the
 * note of a worktree fork promoted into it (promotedCodeNote), said so by what made it, never read
 * from the text (a fork's model writes its report).
 */
export type QueuedReport = { readonly from: string; readonly text: string; readonly kind?: "promote" };

/** A report keeps this much of its start and of its end (UTF-8 bytes); the middle is dropped and counted, as a command's output is. */
export const REPORT_HEAD_BYTES = 12_000;
export const REPORT_TAIL_BYTES = 12_000;

/** A report's text as it is queued, shown and sent: trimmed and capped. */
export const capReport = (text: string): string => headAndTail(text.trim(), REPORT_HEAD_BYTES, REPORT_TAIL_BYTES, "the report");

const REPORT_TAG = tagsOf("fork-report");

/**
 * How a report travels in the parent's next user turn: a clearly marked block of its own. The
 * report is data, not the user's words: nothing in it (or in the fork's title) can end the block
 * early, so nothing after it reads as the user's.
 */
export function reportBlock(r: QueuedReport): string {
  const kind = r.kind ? ` kind="${r.kind}"` : "";
  return `<fork-report from="${attribute(r.from, REPORT_TAG)}"${kind}>\n${neutralised(capReport(r.text), REPORT_TAG)}\n</fork-report>`;
}

const BLOCK = /^<fork-report from="([^"\n]*)"( kind="promote")?>\n([\s\S]*)\n<\/fork-report>$/;

/**
 * A report as `reportBlock` wrote it, read back for the display (its tags as the report had them),
 * or null for any other text.
 */
export function readReportBlock(text: string): QueuedReport | null {
  const m = BLOCK.exec(text);
  // Tags inside were neutralised when it was written: one whole block, or none.
  if (!m || /<\s*\/?\s*fork-report/i.test(m[3]!)) return null;
  const restored = (t: string) => t.replace(/&lt;(\s*\/?\s*fork-report)/gi, "<$1");
  return { from: restored(m[1]!), text: restored(m[3]!), ...(m[2] ? { kind: "promote" as const } : {}) };
}

/** enter_fork's answer when the agent may not open a fork now (forks.ts says when). */
export function enterForkRefused(bar: AgentForkBar): string {
  switch (bar.type) {
    case "agent-opened":
      return (
        "enter_fork is refused: this fork was opened by the agent, and a fork the agent opened cannot open another " +
        "until the user sends a message in it. Go on here, or end this fork (report_updates)."
      );
    case "limit": {
      if (bar.limit === 0) return "enter_fork is refused: the user does not let the agent open forks (agent_fork_limit = 0).";
      const open =
        bar.open === 1 ? "1 fork the agent opened from this thread is" : `${bar.open} forks the agent opened from this thread are`;
      return (
        `enter_fork is refused: ${open} still open, the most the user allows (agent_fork_limit = ${bar.limit}). ` +
        "A fork closes when it reports back or the user ends it; or ask the user to fork."
      );
    }
    default:
      return assertUnreachable(bar);
  }
}

/**
 * Goes with the next message of the thread a worktree fork was promoted into (as the fork's
 * report): the history it took named files in the fork's worktree, which goes (now, or once a
 * conflicted merge is accepted); the same paths now live in the thread's folder `into`. A note
 * after them, not a change to them: the messages stay as sent, and the prompt cache with them.
 */
export function promotedCodeNote(into: string, worktree: string, conflicts: readonly string[], written: number): string {
  // Each starts as PROMOTE_NOTE says: the display labels it a promote, not a report.
  const where = `what the messages above say of files there now holds of the same paths in ${into}.`;
  if (conflicts.length)
    return `[tine] Its code is merged into ${into}, where this thread works, with conflicts in ${conflicts.join(", ")} (marked in the files); its worktree ${worktree} goes once the user accepts the merge: ${where}`;
  // As the user is told (fork-code.ts): nothing was written, the thread's folder had the changes (a graft, a hand).
  if (!written)
    return `[tine] Its code had nothing to merge: ${into}, where this thread works, has its changes already, and its worktree ${worktree} is removed: ${where}`;
  return `[tine] Its code is merged into ${into}, where this thread works, and its worktree ${worktree} is removed: ${where}`;
}

/** A fork's title or a path on one line of a note, unable to end its quotes or start a line of its own. */
const oneLine = (text: string) => text.replace(/\s+/g, " ").replace(/"/g, "'");

/**
 * Goes after the user's text in the next message of a thread whose files a graft or a review
 * changed: the model knows which files changed under it, from which fork, and which of its hunks
 * the user undid or commented on. A note after the user's words,
 * never a change to earlier messages: the messages stay as sent, and the prompt cache with them.
 */
export function codeNotesText(notes: readonly CodeNote[]): string {
  const grafts = notes.filter((n): n is GraftNote => !isReviewNote(n));
  const reviews = notes.filter(isReviewNote);
  const what = (n: GraftNote) => (n.hunk === null ? "the whole file" : `hunk ${n.hunk} of the fork's diff of it`);
  const conflicts = (n: { conflicts: number }) =>
    n.conflicts ? `, with conflict markers where both changed the same lines (${n.conflicts})` : "";
  const roots = (ns: readonly CodeNote[]) => [...new Set(ns.map((n) => n.root))].join(", ");
  return [
    ...(grafts.length
      ? [
          `[tine] Since your last turn, the user grafted changes from forks into the files of this thread (${roots(grafts)}):`,
          ...grafts.map((n) => `- ${oneLine(n.path)}, ${what(n)}, from the fork "${oneLine(n.from)}"${conflicts(n)}`),
        ]
      : []),
    ...(reviews.length
      ? [
          `[tine] Since your last turn, the user reviewed your edits in the files of this thread (${roots(reviews)}):`,
          ...reviews.map(reviewLine),
        ]
      : []),
    "Read a file again before relying on what you knew of it.",
  ].join("\n");
}

/** One reviewed hunk in the model's note: an undo with what came back (indented: no line of it starts a line of the note), or a comment. */
function reviewLine(n: ReviewNote): string {
  const where = `${oneLine(n.path)} ${hunkLines(n)} (as your turn left the file)`;
  if (n.review === "comment") return `- the user's comment on ${where}: "${oneLine(n.text)}"`;
  const conflicts = n.conflicts ? `; it clashed with later edits, so the file holds conflict markers there (${n.conflicts})` : "";
  const back = n.text
    ? `; these lines came back:\n${n.text
        .split("\n")
        .map((l) => `    ${l}`)
        .join("\n")}`
    : "; nothing came back (your lines there are gone)";
  return `- the user undid your change to ${where}, so do not make it again unless asked${conflicts}${back}`;
}

/**
 * The message the key on a waiting merge's line sends for the user (`files`: their mentions, so
 * each goes with it): the agent is asked to resolve the conflicts the merge of fork `fork` left.
 */
export const resolveConflictsPrompt = (fork: string, files: readonly string[]) =>
  `Resolve the merge conflicts in ${files.join(", ")}: the merge of the fork "${fork}" into this folder left conflict markers there. ` +
  "Edit each file to keep what both sides meant, without the markers; then I accept the merge (:Tine merge done).";

/** The result a fork gets for a tool still running in its source when it was taken. */
export const STILL_RUNNING_WHEN_FORKED =
  "The tool was still running in the thread this was forked from when the fork was taken; its result is not known here.";

/** The text of the last assistant message in `history`: what a fork reports when it ends by itself. */
export function lastReply(history: History): string {
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history.at(i).message;
    if (m.role !== "assistant") continue;
    const text = m.content
      .flatMap((b) => (b.type === "text" ? [b.text] : []))
      .join("\n")
      .trim();
    if (text) return text;
  }
  return "(the fork ended without a reply)";
}
