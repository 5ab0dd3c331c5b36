/** A fork's change grafted into a thread's files (worktree/graft.ts makes it; the thread keeps it until its next message, chat/prompts.ts words it for the model, view/ draws it). */

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
