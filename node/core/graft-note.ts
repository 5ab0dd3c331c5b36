/** What changed under a thread since its last message: a fork's change grafted into its files (worktree/graft.ts), or a hunk of a turn reviewed (review/reviews.ts); the thread keeps it until its next message, chat/prompts.ts words it for the model, view/ draws it. */

/** `hunk` null for the whole file; `conflicts`: how many conflict blocks the merge left marked in it. */
export type GraftNote = {
  readonly path: string;
  readonly hunk: number | null;
  /** The fork's title. */
  readonly from: string;
  readonly conflicts: number;
  /** The folder of the thread the file was written in. */
  readonly root: string;
  /** `:Tine restore undo` took it back before the next message: the model is not told of it. */
  readonly undone?: true;
};

const isText = (v: unknown): v is string => typeof v === "string" && v.length <= 4096;
const isWhole = (v: unknown, least: number): v is number => Number.isSafeInteger(v) && (v as number) >= least;

/** A note as a transcript holds it (store/records.ts), field by field: one of another shape is not one. */
export function graftNoteFrom(v: unknown): GraftNote | null {
  if (typeof v !== "object" || v === null) return null;
  const { path, hunk, from, conflicts, root, undone } = v as Record<string, unknown>;
  if (!isText(path) || !isText(from) || !isText(root) || !isWhole(conflicts, 0)) return null;
  if (hunk !== null && !isWhole(hunk, 1)) return null;
  if (undone !== undefined && undone !== true) return null;
  return { path, hunk, from, conflicts, root, ...(undone ? { undone } : {}) };
}

/**
 * A hunk of a turn's edits the user undid or commented on (review/reviews.ts): kept with the
 * thread as a graft's note is, and told the same way, with the next message. `start`/`count`: the
 * hunk's lines in the file as the turn left it (1-based; a count of 0: none, after line `start`).
 * `text`: for an undo, the lines that came back (cut to a few); for a comment, the user's words.
 */
export type ReviewNote = {
  readonly review: "undone" | "comment";
  readonly path: string;
  readonly start: number;
  readonly count: number;
  readonly text: string;
  readonly conflicts: number;
  readonly root: string;
  readonly undone?: true;
};

/** What changed under a thread since its last message, told with its next one: a graft into its files, or a hunk reviewed. */
export type CodeNote = GraftNote | ReviewNote;

/** A reviewed hunk's lines as its notes name them (in the file as the turn left it). */
export const hunkLines = (n: { readonly start: number; readonly count: number }) =>
  n.count === 0 ? `after line ${n.start}` : n.count === 1 ? `line ${n.start}` : `lines ${n.start}-${n.start + n.count - 1}`;

export const isReviewNote = (n: CodeNote): n is ReviewNote => "review" in n;

function reviewNoteFrom(v: Record<string, unknown>): ReviewNote | null {
  const { review, path, start, count, text, conflicts, root, undone } = v;
  if (review !== "undone" && review !== "comment") return null;
  if (!isText(path) || typeof text !== "string" || text.length > 8192 || !isText(root)) return null;
  if (!isWhole(start, 0) || !isWhole(count, 0) || !isWhole(conflicts, 0)) return null;
  if (undone !== undefined && undone !== true) return null;
  return { review, path, start, count, text, conflicts, root, ...(undone ? { undone } : {}) };
}

/** A note as a transcript holds it, either kind, field by field. */
export function codeNoteFrom(v: unknown): CodeNote | null {
  if (typeof v !== "object" || v === null) return null;
  return "review" in v ? reviewNoteFrom(v as Record<string, unknown>) : graftNoteFrom(v);
}
