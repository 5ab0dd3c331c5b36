/**
 * A project's tree as its transcripts leave it, by the same rules for this project and every
 * other one: deleted threads and ended forks are out of it (the ones that can be restored are
 * kept apart), a fork of a fork that was promoted hangs under the thread that took its history,
 * and a fork taken from a parent's old tail, before a promote moved that tail, hangs under the tail.
 * Parent pointers that loop (a damaged transcript: a thread pointing at itself, or two at each
 * other) are cut: the threads on the loop are roots, and said to be; what hangs under them stays.
 */
import { onLoops } from "../chat/tree.ts";
import type { ParentPointer } from "./records.ts";
import type { ThreadSummary } from "./summary.ts";

export type ProjectTree = {
  /** The threads in the tree, their parents remapped. */
  readonly visible: readonly ThreadSummary[];
  /** Forks that ended and can be restored (see `restorable`). */
  readonly ended: readonly ThreadSummary[];
  /** Threads whose parent pointer led back to them: cut, so they are roots. */
  readonly looped: ReadonlySet<string>;
};

/**
 * Whether an ended fork is worth restoring: a discarded or reported one, and a promoted one that
 * worked in a worktree of its own (its files come back with it, as it left them); a fork promoted
 * from its parent's folder lives on whole in its parent.
 */
const restorable = (t: ThreadSummary) => t.ended?.how !== "promoted" || t.worktree !== null;

export function projectTree(threads: readonly ThreadSummary[]): ProjectTree {
  const into = new Map<string, string>();
  for (const t of threads) if (t.ended?.into) into.set(t.id, t.ended.into);
  const parentOf = (id: string | undefined) => {
    let p = id;
    for (let hops = 0; p && into.has(p) && hops < 100; hops++) p = into.get(p);
    return p;
  };
  const byId = new Map(threads.map((t) => [t.id, t]));
  const branchedTo = (p: ParentPointer) =>
    p.relation === "fork" ? byId.get(p.id)?.branches.find((b) => p.records <= b.upTo && p.atMessage > b.after)?.to : undefined;
  const remapped = threads.map((t) => {
    if (!t.parent) return t;
    const moved = branchedTo(t.parent);
    if (moved && moved !== t.id) return { ...t, parent: { ...t.parent, id: moved } };
    return into.has(t.parent.id) ? { ...t, parent: { ...t.parent, id: parentOf(t.parent.id)! } } : t;
  });
  const parents = new Map(remapped.map((t) => [t.id, t.parent?.id]));
  const looped = onLoops(parents.keys(), (id) => parents.get(id));
  const tree = looped.size ? remapped.map((t) => (looped.has(t.id) ? { ...t, parent: null } : t)) : remapped;
  return {
    visible: tree.filter((t) => !t.deleted && !t.ended),
    ended: tree.filter((t) => !t.deleted && t.ended && restorable(t)),
    looped,
  };
}
