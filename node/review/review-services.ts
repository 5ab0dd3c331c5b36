/**
 * The review built on the code side (worktree/code-services.ts): where its records go (beside
 * the project's transcripts; in memory only with `persist = false`), and `:Tine restore undo`
 * wired to it, so taking an undone hunk's undo back makes the hunk pending again.
 */
import { join } from "node:path";
import { projectKey } from "../core/project-key.ts";
import type { CodeServices } from "../worktree/code-services.ts";
import { ReviewRecords } from "./review-record.ts";
import { type ReviewEdges, Reviews } from "./reviews.ts";

export type { Reviews } from "./reviews.ts";

export type ReviewOptions = { readonly data_dir: string; readonly cwd: string; readonly persist: boolean };

export function reviewsFor(
  code: CodeServices,
  options: ReviewOptions,
  edges: Pick<ReviewEdges, "tell" | "quickfix" | "unsaved" | "written" | "dispatch" | "live" | "thread" | "load">,
): Reviews {
  const dir = options.persist ? join(options.data_dir, "review", projectKey(options.cwd)) : null;
  const reviews = new Reviews(new ReviewRecords(dir), {
    ...edges,
    codeOf: (id) => code.actions.settledCode(id),
    snapshotsOf: code.snapshotsOf,
    gitOf: (id) => code.workspaces.of(id).environment.git,
    keepUndo: (snapshots, root, files) => code.actions.keepFilesUndo(snapshots, root, files),
  });
  code.actions.onUndo((safety) => reviews.restored(safety));
  return reviews;
}
