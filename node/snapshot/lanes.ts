/**
 * The queues of git work on one private snapshot store, shared by its views (a worktree's). Work
 * through one index (the project's, or one worktree's view) runs in order; work through different
 * indexes runs side by side, as git keeps its objects and refs whole for writers at once (object
 * files written then renamed, refs under locks), so eight forks' snapshots need not wait for each
 * other. Housekeeping (`prune`) runs alone: after all work asked for before it, before all after.
 * A lock another process (an earlier host's git) holds is not this queue's business: see stale-lock.ts.
 */
export class GitLanes {
  private alone_: Promise<void> = Promise.resolve();
  private readonly byIndex = new Map<string, Promise<void>>();

  /** Runs `work` after every earlier one through `index`, and after housekeeping asked for before it. */
  serial<T>(index: string, work: () => Promise<T>): Promise<T> {
    const next = Promise.all([this.alone_, this.byIndex.get(index)]).then(work, work);
    const settled = next.then(
      () => {},
      () => {},
    );
    this.byIndex.set(index, settled);
    // An index with nothing queued leaves the map (worktrees come and go).
    void settled.then(() => {
      if (this.byIndex.get(index) === settled) this.byIndex.delete(index);
    });
    return next;
  }

  /** Runs `work` alone: after all work asked for before it, through any index; all work after waits for it. */
  alone<T>(work: () => Promise<T>): Promise<T> {
    const next = Promise.all([this.alone_, ...this.byIndex.values()]).then(work, work);
    this.alone_ = next.then(
      () => {},
      () => {},
    );
    return next;
  }
}
