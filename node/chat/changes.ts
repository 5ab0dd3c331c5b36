import type { ThreadId } from "../core/ids.ts";
/**
 * What changed in the chat since the host last asked (`ChangeLog.take`): the host writes and
 * draws only that, so the work after a streamed delta does not grow with the threads open, nor
 * that after a fork with the forks open.
 */

/**
 * What changed in a batch of messages (see `Chat.takeChanges`): `moved`, the threads whose place
 * in the tree changed (made, gone, renamed, moved under another): their own, their parents' and
 * their children's displays show it, and no other's does.
 */
export type Changes = { readonly threads: readonly ThreadId[]; readonly tree: boolean; readonly moved: readonly ThreadId[] };

const NONE_MOVED: readonly ThreadId[] = [];

export class ChangeLog {
  /** Bumped when threads, lineage, a status or the active thread change (the thread list redraws). */
  version = 0;
  /** Threads changed since `take`; `tree`: the tree, a title or the active thread did. */
  private readonly touched = new Set<ThreadId>();
  private tree = false;
  /** Threads whose place in the tree changed since `take` (see `Changes.moved`). */
  private readonly movedIds = new Set<ThreadId>();

  /** Thread `id`'s state changed (its version went up). */
  threadChanged(id: ThreadId): void {
    this.touched.add(id);
  }

  /** Something the list shows changed (a status, a fork that waited), not the tree. */
  listChanged(): void {
    this.version++;
  }

  /** The tree or the active thread changed: the list redraws. */
  treeChanged(): void {
    this.version++;
    this.tree = true;
  }

  /** Thread `id`'s place in the tree changed: the list redraws, and the displays that show it. */
  moved(id: ThreadId): void {
    this.treeChanged();
    this.movedIds.add(id);
  }

  /**
   * What changed since the last call: the threads whose state did, whether the tree did (a fork,
   * an end, a title, the active thread: the list shows it), and which threads moved in it (the
   * displays that show them).
   */
  take(): Changes {
    // After a streamed delta nothing moved: no array is made for it (this runs after every batch).
    const changes = { threads: [...this.touched], tree: this.tree, moved: this.movedIds.size ? [...this.movedIds] : NONE_MOVED };
    this.touched.clear();
    this.movedIds.clear();
    this.tree = false;
    return changes;
  }
}
