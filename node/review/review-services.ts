/**
 * The review built on the code side (worktree/code-services.ts): where its records go (beside
 * the project's transcripts; in memory only with `persist = false`), and `:Tine restore undo`
 * wired to it, so taking an undone hunk's undo back makes the hunk pending again. Each change of
 * a hunk's review is told to Neovim (`reviewed`: the file's signs are drawn again), and the
 * review's files (review-files.ts) are read through it too.
 */
import { join } from "node:path";
import type { SnapshotId } from "../core/code-marks.ts";
import type { ThreadId } from "../core/ids.ts";
import { projectKey } from "../core/project-key.ts";
import type { CodeServices } from "../worktree/code-services.ts";
import { type ReviewedFile, reviewFiles } from "./review-files.ts";
import { type HunkReview, ReviewRecords } from "./review-record.ts";
import { type ReviewEdges, Reviews as ReviewSteps } from "./reviews.ts";

/** The review, and a changed file of a turn as `:Tine review` and the signs show it (review-files.ts). */
export type Reviews = ReviewSteps & {
  readonly files: (path: string, id: ThreadId | null, atMessage: number | null) => Promise<ReviewedFile[]>;
};

export type ReviewOptions = { readonly data_dir: string; readonly cwd: string; readonly persist: boolean };

/** The records, telling `changed` of each hunk whose review changed. */
class TellingRecords extends ReviewRecords {
  constructor(
    dir: string | null,
    private readonly changed: (id: ThreadId, path: string) => void,
  ) {
    super(dir);
  }

  override update(id: ThreadId, at: Omit<HunkReview, "state">, change: (was: HunkReview) => HunkReview): HunkReview {
    const now = super.update(id, at, change);
    this.changed(id, at.path);
    return now;
  }

  override startFrom(id: ThreadId, source: ThreadId, shared: ReadonlySet<SnapshotId>): readonly string[] {
    const paths = super.startFrom(id, source, shared);
    for (const path of paths) this.changed(id, path);
    return paths;
  }
}

export function reviewsFor(
  code: CodeServices,
  options: ReviewOptions,
  edges: Pick<ReviewEdges, "tell" | "quickfix" | "unsaved" | "written" | "dispatch" | "live" | "thread" | "load"> & {
    /** A hunk of file `path` (absolute) was kept, undone, commented on or made pending again. */
    readonly reviewed?: (path: string) => void;
  },
): Reviews {
  const dir = options.persist ? join(options.data_dir, "review", projectKey(options.cwd)) : null;
  const changed = (id: ThreadId, path: string) =>
    void code
      .snapshotsOf(id)
      .root()
      .then((root) => root && edges.reviewed?.(join(root, path)))
      .catch(() => undefined);
  const reviews = new ReviewSteps(new TellingRecords(dir, changed), {
    ...edges,
    codeOf: (id) => code.actions.settledCode(id),
    snapshotsOf: code.snapshotsOf,
    gitOf: (id) => code.workspaces.of(id).environment.git,
    keepUndo: (snapshots, root, files) => code.actions.keepFilesUndo(snapshots, root, files),
  });
  code.actions.onUndo((safety) => reviews.restored(safety));
  const deps = {
    codeOf: (id: ThreadId) => code.actions.settledCode(id),
    snapshotsOf: code.snapshotsOf,
    hunks: (id: ThreadId, at: number | null) => reviews.hunks(id, at),
    turnFile: reviews.turnFile.bind(reviews),
    live: () => edges.live(),
  };
  return Object.assign(reviews, { files: (path: string, id: ThreadId | null, at: number | null) => reviewFiles(deps, path, id, at) });
}
