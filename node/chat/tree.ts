import type { ThreadId } from "../core/ids.ts";
/**
 * The fork tree as data: which thread each fork came from and at which message, its children in
 * the order they were forked, and what a promote does to it. Pure: no threads, no effects, no
 * clock. Entries stay when a thread is deleted or a fork ends, so a fork's ordinal (`⑂3`) is never
 * given twice under one parent. Children are indexed by parent, so asking for them costs what
 * they are, not what the tree is. It stays a tree whatever a transcript says: a link that would
 * make a thread its own ancestor is refused, so every walk up or down it ends.
 */

/**
 * How a thread hangs under another: a `fork` shares its parent's history up to `atMessage`; a
 * `handoff` (`@handoff`, an export to Claude Code) is a thread of its own, linked under its source
 * at the message it was made from, and never ends into it; so is a `compact` (`@compact`, `C`),
 * which opens with a summary of its source up to `atMessage`.
 */
export type Relation = "fork" | "handoff" | "compact";

export type Lineage = {
  readonly parentId: ThreadId;
  /** The last source message the fork shares (the message it branched from). */
  readonly atMessage: number;
  readonly relation: Relation;
};

export class ForkTree {
  private readonly parents = new Map<ThreadId, Lineage>();
  /** Children by parent, in the order each child was first linked (fork order). */
  private readonly children = new Map<ThreadId, ThreadId[]>();
  /** When each child was first linked: keeps fork order when a promote moves children. */
  private readonly order = new Map<ThreadId, number>();
  private linked = 0;

  get(id: ThreadId): Lineage | undefined {
    return this.parents.get(id);
  }

  has(id: ThreadId): boolean {
    return this.parents.has(id);
  }

  /** Children of `id` ever linked, in fork order (deleted and ended ones included). */
  childrenOf(id: ThreadId): readonly ThreadId[] {
    return this.children.get(id) ?? NONE;
  }

  /** The ordinal the next fork of `parentId` takes in its title (`⑂N`). */
  nextOrdinal(parentId: ThreadId): number {
    return this.childrenOf(parentId).length + 1;
  }

  /**
   * Links `child` under a parent (or moves it there), keeping its place in fork order. A link that
   * would make `child` its own ancestor is refused (false): `child` stays where it was.
   */
  link(child: ThreadId, lineage: Lineage): boolean {
    for (let at: ThreadId | undefined = lineage.parentId; at !== undefined; at = this.parents.get(at)?.parentId)
      if (at === child) return false;
    const before = this.parents.get(child);
    if (before) this.detach(child, before.parentId);
    if (!this.order.has(child)) this.order.set(child, this.linked++);
    this.parents.set(child, lineage);
    const siblings = this.children.get(lineage.parentId) ?? [];
    const at = this.order.get(child)!;
    let i = siblings.length;
    while (i > 0 && this.order.get(siblings[i - 1]!)! > at) i--;
    siblings.splice(i, 0, child);
    this.children.set(lineage.parentId, siblings);
    return true;
  }

  /**
   * Fork `forkId` is promoted into its parent, whose old tail (if it had one) becomes `siblingId`,
   * a fork of the parent at the same point. The fork's own forks follow its history to the parent;
   * the parent's forks taken after the fork point follow the old tail to the sibling.
   */
  promote(forkId: ThreadId, siblingId: ThreadId | null): void {
    const fork = this.parents.get(forkId);
    if (!fork) throw new Error(`tine: ${forkId} is not a fork`);
    const { parentId, atMessage } = fork;
    if (siblingId !== null) this.link(siblingId, { parentId, atMessage, relation: "fork" });
    const moves: [ThreadId, Lineage][] = [];
    for (const child of this.childrenOf(forkId)) moves.push([child, { ...this.parents.get(child)!, parentId }]);
    if (siblingId !== null) {
      for (const child of this.childrenOf(parentId)) {
        const l = this.parents.get(child)!;
        if (child !== forkId && child !== siblingId && l.atMessage > atMessage) moves.push([child, { ...l, parentId: siblingId }]);
      }
    }
    for (const [child, lineage] of moves) this.link(child, lineage);
  }

  private detach(child: ThreadId, parentId: ThreadId): void {
    const siblings = this.children.get(parentId);
    if (!siblings) return;
    const i = siblings.indexOf(child);
    if (i >= 0) siblings.splice(i, 1);
  }
}

const NONE: readonly ThreadId[] = [];

/**
 * The ids on a loop of parent pointers (`parentOf` as read from transcripts: a thread pointing at
 * itself, or at one that leads back to it). Each id is walked once, so a long chain costs its
 * length, not its square.
 */
export function onLoops(ids: Iterable<string>, parentOf: (id: string) => string | undefined): Set<string> {
  const looped = new Set<string>();
  const done = new Set<string>();
  for (const start of ids) {
    const path: string[] = [];
    const onPath = new Map<string, number>();
    let at: string | undefined = start;
    while (at !== undefined && !done.has(at) && !onPath.has(at)) {
      onPath.set(at, path.length);
      path.push(at);
      at = parentOf(at);
    }
    if (at !== undefined && onPath.has(at)) for (const id of path.slice(onPath.get(at))) looped.add(id);
    for (const id of path) done.add(id);
  }
  return looped;
}
