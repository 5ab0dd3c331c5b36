/**
 * What `:checkhealth tine` says of the worktrees tine made for this project: each folder on disk
 * (in its fork's order), the threads that work in it (an ended fork's too: a reported fork's
 * worktree stays), how many files their last turns changed since its fork point, its size, and
 * whether a conflicted merge waits on it. A folder no thread refers to is left over (a deleted fork's): the report says so,
 * and Lua says how to remove it. Read only: no snapshot is taken, nothing is written.
 */
import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { ForkEnd, StoredThread } from "../chat/msgs.ts";
import type { Thread } from "../chat/thread.ts";
import { latestMark, type SnapshotId, type ThreadMark } from "../core/code-marks.ts";
import type { History } from "../core/history.ts";
import type { ThreadId } from "../core/ids.ts";
import type { CodeSnapshots } from "../snapshot/code.ts";
import { worktreesIn } from "./worktree.ts";

/** A thread of this project (live, stored or ended) as the report names it, and where it works. */
export type WorktreeUser = {
  readonly id: ThreadId;
  /** `#3 title`, an ended fork's with how it ended. */
  readonly name: string;
  /** The worktree it works in, or null (the project's folder). */
  readonly worktree: string | null;
  /** Its last snapshot (null: none); read only for threads in a worktree. */
  readonly latest: () => SnapshotId | null;
};

/** A thread's marks and the history they fit (its last snapshot is found from these). */
type Marks = { readonly code: readonly ThreadMark[]; readonly history: History };

/**
 * The threads of this project as the report names them: `live` ones work where their workspace
 * is (`worksIn`), `stored` and ended ones where their transcript says (`marksOf` reads it).
 */
export function worktreeUsers(
  live: Iterable<Thread>,
  stored: Iterable<StoredThread & { readonly how?: ForkEnd }>,
  worksIn: (id: ThreadId) => string | null,
  marksOf: (id: ThreadId) => Marks | null,
): WorktreeUser[] {
  const latest = (marks: () => Marks | null) => () => {
    const m = marks();
    return m ? (latestMark(m.code, m.history)?.id ?? null) : null;
  };
  return [
    ...[...live].map((t) => ({
      id: t.id,
      name: `#${t.num} ${t.title}`,
      worktree: worksIn(t.id),
      latest: latest(() => ({ code: t.code, history: t.runner.history })),
    })),
    ...[...stored].map((t) => ({
      id: t.id,
      name: `#${t.num} ${t.title}${t.how ? ` (ended: ${t.how})` : ""}`,
      worktree: t.worktree?.path ?? null,
      latest: latest(() => marksOf(t.id)),
    })),
  ];
}

export type WorktreeHealth = {
  readonly path: string;
  /** The threads that work in it; none: left over. */
  readonly threads: readonly string[];
  /** Files changed since its fork point, as its threads' last turns left them (the most of them); null: no turn recorded. */
  readonly changed: number | null;
  readonly bytes: number;
  /** The folder its conflicted merge went into, waiting for `:Tine merge done`; null: none. */
  readonly merge_into: string | null;
};

export type WorktreeReport = { readonly dir: string; readonly worktrees: readonly WorktreeHealth[] };

/** The report on the worktrees in `dir` (this project's folder of them). */
export async function worktreeHealth(dir: string, users: readonly WorktreeUser[], snapshots: CodeSnapshots): Promise<WorktreeReport> {
  const worktrees = await Promise.all(
    worktreesIn(dir).map(async (w): Promise<WorktreeHealth> => {
      const here = users.filter((u) => u.worktree === w.path);
      let changed: number | null = null;
      for (const u of here) {
        const latest = u.latest();
        if (!latest) continue;
        const files = await snapshots.changes(w.base, latest).catch(() => null);
        if (files) changed = Math.max(changed ?? 0, files.length);
      }
      return { path: w.path, threads: here.map((u) => u.name), changed, bytes: diskSize(w.path), merge_into: w.merge?.into ?? null };
    }),
  );
  return { dir, worktrees: worktrees.sort((a, b) => byNumbers.compare(a.path, b.path)) };
}

/** Paths with their numbers in order (a worktree's folder starts with its fork's number): `2-…` before `10-…`. */
const byNumbers = new Intl.Collator("en", { numeric: true });

/** Bytes of the files under `dir` (links not followed). */
function diskSize(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += diskSize(path);
    else total += lstatSync(path).size;
  }
  return total;
}
