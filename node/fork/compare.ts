/**
 * `compare(ids)`: the forks of a fan-out side by side, each as it is now: its state, its files
 * against the snapshot every fork of the fan-out started from (the fan-out's `base`, as a worktree
 * fork's report sums up its code), its check's end and its cost. `ids` are fan-out forks, or one id
 * (a fan-out fork, or a source: its latest fan-out) that stands for its fan-out's forks.
 */

import { type Listed, listedName } from "../chat/names.ts";
import type { FileChange, SnapshotId } from "../core/code-marks.ts";
import type { ThreadId } from "../core/ids.ts";
import type { CodeSnapshots } from "../snapshot/code.ts";
import { type CheckResult, checkVerdict, type ForkChecks, type ForkState } from "./checks.ts";

/** A fan-out as compare needs it (fanout.ts's FanOut): its id, its forks, the snapshot they started from. */
type Group = { readonly id: string; readonly forks: readonly ThreadId[]; readonly base: SnapshotId };

/** Where fan-outs are found (fanout.ts's FanOuts): by a fork, by their own id, by their source. */
export type FanOutLookup = {
  of(id: ThreadId): Group | undefined;
  group(groupId: string): Group | undefined;
  from(sourceId: ThreadId): readonly Group[];
};

/** One fork as `compare` gives it. */
export type ComparedFork = {
  readonly id: ThreadId;
  /** Its fan-out (`FanOut.id`): compare(fanout) gives its forks while one is live. */
  readonly fanout: string;
  /** Its number (`#3` in the list): forks of one fan-out share a title at first. */
  readonly num: number;
  readonly title: string;
  readonly state: ForkState;
  /** Its worktree. */
  readonly cwd: string;
  /** The files it changed, relative to the project. */
  readonly files: readonly string[];
  /** Each changed file with its lines added and removed (null: binary). */
  readonly changes: readonly FileChange[];
  readonly added: number;
  readonly removed: number;
  /** Absent until its check has run (or when its fan-out has none). */
  readonly check?: CheckResult;
  /** The check's verdict in a word: ✓, ✗ 4 (its exit code), … while it runs, - before it ran or with none. */
  readonly verdict: string;
  /** The model its next request names (fan-out's `models` give each fork its own); null where its program chooses. */
  readonly model: string | null;
  /** Null when a request used a model the price table lacks. */
  readonly cost_usd: number | null;
  /** Tokens its requests read from the cache. */
  readonly cache_read: number;
};

export type CompareHost = {
  readonly fanouts: Pick<FanOutLookup, "of">;
  readonly checks: Pick<ForkChecks, "state" | "result" | "running">;
  /** A thread's title, number and model (null: its program chooses, or a stored thread that kept no choice of its own). */
  thread(id: ThreadId): { readonly title: string; readonly num: number; readonly model: string | null } | undefined;
  /** Where fork `id` works: its worktree and that folder's snapshots. */
  workspace(id: ThreadId): { readonly root: string; readonly snapshots: CodeSnapshots };
  usage(id: ThreadId): { readonly cost_usd: number | null; readonly cache_read: number };
  /** A file changed in at-rest fork `id`'s worktree since its snapshot given here (a hand from outside): what shows it draws it again. */
  filesChanged(id: ThreadId): void;
};

/** The forks `ask` stands for: a list of fan-out forks, or one id standing for its fan-out (a fork's, a fan-out's own, a source's latest). */
export function forksToCompare(fanouts: FanOutLookup, ask: ThreadId | readonly ThreadId[], threads: Listed): ThreadId[] {
  if (typeof ask === "string") {
    const group: Group | undefined = fanouts.of(ask) ?? fanouts.group(ask) ?? fanouts.from(ask).at(-1);
    if (!group)
      throw new Error(
        `tine: ${listedName(threads, ask)} is neither a fan-out's fork nor the source of one (:ForkThread --n N <prompt> makes one)`,
      );
    return group.forks.slice();
  }
  if (!Array.isArray(ask) || ask.length === 0)
    throw new Error("tine: compare takes fork ids, or one thread's id (a fan-out's source or fork)");
  for (const id of ask)
    if (!fanouts.of(id)) throw new Error(`tine: ${listedName(threads, id)} is not a live fork of a fan-out: compare compares those`);
  return [...new Set(ask)];
}

/** Each of `ids` now, in the order given. */
export async function compareForks(host: CompareHost, ids: readonly ThreadId[]): Promise<ComparedFork[]> {
  return Promise.all(
    ids.map(async (id) => {
      const group = host.fanouts.of(id)!;
      const { root, snapshots } = host.workspace(id);
      // Read before its files: a fork done then is done with these files (its check may end while they are read).
      const [state, check, running, usage] = [host.checks.state(id), host.checks.result(id), host.checks.running(id), host.usage(id)];
      // A fork at rest (done, interrupted) changes its files only by a hand from outside: its last snapshot stands while its worktree is quiet.
      const atRest = state === "done" || state === "interrupted";
      if (!atRest) snapshots.unwatch();
      const now = atRest ? await snapshots.takeWhileQuiet(id, false, () => host.filesChanged(id)) : await snapshots.take(id);
      const changes = now ? await snapshots.changes(group.base, now.id) : [];
      const thread = host.thread(id);
      return {
        id,
        fanout: group.id,
        num: thread?.num ?? 0,
        title: thread?.title ?? id,
        model: thread?.model ?? null,
        state,
        cwd: root,
        files: changes.map((f) => f.path),
        changes,
        added: changes.reduce((n, f) => n + (f.added ?? 0), 0),
        removed: changes.reduce((n, f) => n + (f.removed ?? 0), 0),
        ...(check ? { check } : {}),
        verdict: checkVerdict(check, running),
        cost_usd: usage.cost_usd,
        cache_read: usage.cache_read,
      };
    }),
  );
}
