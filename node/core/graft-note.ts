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
};
