/**
 * A changed file of a turn as Neovim shows it for review (`:Tine review`, lua/tine/review.lua) and
 * as the signs in a file's buffer mark it (lua/tine/review_signs.lua): the file as the turn found
 * it and as it left it, and the turn's hunks of it with their states (turn-hunks.ts numbers them).
 * Neovim maps the hunks' lines, which are the file's as the turn left it, onto the buffer as it is
 * now (edits since shift them) with its own diff of the turn's text against the buffer.
 *
 * For the signs, no thread is named: every live thread whose files hold the path gives its last
 * turn that changed it, when that turn has hunks of it not reviewed yet.
 */

import { realpathSync } from "node:fs";
import { isAbsolute, relative, sep } from "node:path";
import type { ThreadId } from "../core/ids.ts";
import type { CodeSnapshots, StoredFile } from "../snapshot/code.ts";
import type { ThreadCode } from "../worktree/code-actions.ts";
import { isBinary } from "../worktree/merge.ts";
import type { TurnFile } from "./reviews.ts";
import { type ListedHunk, type ReviewTurn, reviewTurn } from "./turn-hunks.ts";

/** A file of a turn: `before`/`after` its text (null: no file then, or a binary one: `binary`). */
export type ReviewedFile = {
  readonly id: ThreadId;
  /** The message the turn shows under (what `require("tine").hunks(id, message)` takes). */
  readonly message: number;
  readonly root: string;
  readonly path: string;
  readonly before: string | null;
  readonly after: string | null;
  readonly binary: boolean;
  readonly hunks: readonly ListedHunk[];
};

export type ReviewFileDeps = {
  readonly codeOf: (id: ThreadId) => Promise<ThreadCode>;
  readonly snapshotsOf: (id: ThreadId) => CodeSnapshots;
  readonly hunks: (id: ThreadId, atMessage: number | null) => Promise<ListedHunk[]>;
  /** The file as the turn found and left it, read once for the review's every use (Reviews.turnFile). */
  readonly turnFile: (snapshots: CodeSnapshots, turn: ReviewTurn, path: string) => Promise<TurnFile>;
  readonly live: () => Iterable<ThreadId>;
};

const refuse = (why: string) => new Error(`tine: review: ${why}`);

/** `path` (absolute, or relative to `root`) as the snapshots name it; null when it lies outside `root`. */
function underRoot(root: string, path: string): string | null {
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return p; // a file deleted since: its name as given
    }
  };
  const rel = isAbsolute(path) ? relative(real(root), real(path)) : path;
  if (rel === "" || isAbsolute(rel) || rel === ".." || rel.startsWith(`..${sep}`)) return null;
  return rel.split(sep).join("/");
}

async function fileOf(deps: ReviewFileDeps, id: ThreadId, path: string, atMessage: number | null): Promise<ReviewedFile | null> {
  const snapshots = deps.snapshotsOf(id);
  const root = await snapshots.root();
  if (!root) throw refuse("code snapshots are off: tine has no turn's files to show");
  const rel = underRoot(root, path);
  if (rel === null) throw refuse(`${path} is not in the thread's files (${root})`);
  const turn = reviewTurn(await deps.codeOf(id), atMessage, atMessage === null ? rel : null);
  if (!turn.mark.turn!.files.some((f) => f.path === rel)) return null;
  const [hunks, { before: b, after: a }] = await Promise.all([deps.hunks(id, turn.message), deps.turnFile(snapshots, turn, rel)]);
  const binary = [b, a].some((f) => f !== null && isBinary(f));
  const text = (f: StoredFile | null) => (f === null || binary ? null : f.bytes.toString("utf8"));
  const mine = hunks.filter((h) => h.path === rel);
  return { id, message: turn.message, root, path: rel, before: text(b), after: text(a), binary, hunks: mine };
}

/**
 * With `id`: file `path` of thread `id`'s turn at `atMessage` (null: the last turn that changed
 * it), refused when that turn did not change it. Without: the live threads' last turns that
 * changed it and left hunks of it pending (the signs).
 */
export async function reviewFiles(
  deps: ReviewFileDeps,
  path: string,
  id: ThreadId | null,
  atMessage: number | null,
): Promise<ReviewedFile[]> {
  if (id !== null) {
    const file = await fileOf(deps, id, path, atMessage);
    if (!file) throw refuse(`that turn did not change ${path}`);
    return [file];
  }
  const found = await Promise.all(
    [...deps.live()].map((live) =>
      fileOf(deps, live, path, null).then(
        (f) => f,
        () => null, // a thread with no turn that changed it, or whose files do not hold it
      ),
    ),
  );
  return found.filter((f): f is ReviewedFile => f?.hunks.some((h) => h.state === "pending") ?? false);
}
