/**
 * Properties of the fork tree, over random sequences of forks and promotes: it agrees with a
 * plain list model of the same rules (children in fork order, ordinals never reused, promote's
 * moves), no thread is ever lost from the tree or made its own ancestor, and a promote moves
 * exactly the forks its rule names. With loops planted (links a damaged transcript would ask for:
 * a thread under itself, under its own fork), the tree refuses them and every walk still ends, and
 * a project's stored tree cuts the loops its pointers make.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { projectTree } from "../store/project-tree.ts";
import type { ThreadSummary } from "../store/summary.ts";
import { NO_STORED_USAGE } from "../usage/stored.ts";
import { ForkTree, type Lineage, onLoops } from "./tree.ts";

type Op = { type: "fork"; parent: number; at: number } | { type: "promote"; fork: number; withTail: boolean };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ type: fc.constant("fork" as const), parent: fc.nat(40), at: fc.nat(6) }),
  fc.record({ type: fc.constant("promote" as const), fork: fc.nat(40), withTail: fc.boolean() }),
);

/** The rules as a list of [child, lineage] in first-link order, scanned in full every time. */
class ListModel {
  readonly entries: [string, Lineage][] = [];
  get(id: string) {
    return this.entries.find(([c]) => c === id)?.[1];
  }
  set(id: string, l: Lineage) {
    const e = this.entries.find(([c]) => c === id);
    if (e) e[1] = l;
    else this.entries.push([id, l]);
  }
  children(id: string) {
    return this.entries.filter(([, l]) => l.parentId === id).map(([c]) => c);
  }
  promote(fork: string, sibling: string | null) {
    const { parentId, atMessage } = this.get(fork)!;
    if (sibling) this.set(sibling, { parentId, atMessage, relation: "fork" });
    for (const [child, l] of this.entries.map(([c, x]) => [c, x] as const)) {
      if (child === fork || child === sibling) continue;
      if (l.parentId === fork) this.set(child, { ...l, parentId });
      else if (sibling && l.parentId === parentId && l.atMessage > atMessage) this.set(child, { ...l, parentId: sibling });
    }
  }
}

function run(ops: Op[]) {
  const tree = new ForkTree();
  const model = new ListModel();
  const ids = ["root"];
  const ordinals: [string, number][] = [];
  for (const o of ops) {
    if (o.type === "fork") {
      const parent = ids[o.parent % ids.length]!;
      const id = `t${ids.length}`;
      ordinals.push([parent, tree.nextOrdinal(parent)]);
      tree.link(id, { parentId: parent, atMessage: o.at, relation: "fork" });
      model.set(id, { parentId: parent, atMessage: o.at, relation: "fork" });
      ids.push(id);
    } else {
      const forks = ids.filter((id) => tree.has(id));
      if (!forks.length) continue;
      const fork = forks[o.fork % forks.length]!;
      const sibling = o.withTail ? `t${ids.length}` : null;
      if (sibling) ids.push(sibling);
      tree.promote(fork, sibling);
      model.promote(fork, sibling);
    }
  }
  return { tree, model, ids, ordinals };
}

describe("fork tree", () => {
  it("agrees with the list model: lineage and children in fork order", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const { tree, model, ids } = run(ops);
        for (const id of ids) {
          expect(tree.get(id)).toEqual(model.get(id));
          expect(tree.childrenOf(id)).toEqual(model.children(id));
        }
      }),
    );
  });

  it("loses no thread and makes none its own ancestor", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const { tree, ids } = run(ops);
        for (const id of ids) {
          const seen = new Set([id]);
          for (let p = tree.get(id)?.parentId; p !== undefined; p = tree.get(p)?.parentId) {
            expect(seen.has(p)).toBe(false);
            seen.add(p);
          }
          // Every linked thread is its parent's child exactly once.
          const l = tree.get(id);
          if (l) expect(tree.childrenOf(l.parentId).filter((c) => c === id)).toHaveLength(1);
        }
        const listed = ids.flatMap((id) => tree.childrenOf(id));
        expect(new Set(listed).size).toBe(listed.length);
      }),
    );
  });

  it("never gives one parent's ordinal twice while nothing is promoted", () => {
    fc.assert(
      fc.property(
        fc.array(
          op.filter((o) => o.type === "fork"),
          { maxLength: 60 },
        ),
        (ops) => {
          const { ordinals } = run(ops);
          const keys = ordinals.map(([p, n]) => `${p}:${n}`);
          expect(new Set(keys).size).toBe(keys.length);
        },
      ),
    );
  });

  it("a promote moves the fork's forks to the parent and the parent's later forks to the old tail, nothing else", () => {
    fc.assert(
      fc.property(
        fc.array(
          op.filter((o) => o.type === "fork"),
          { minLength: 1, maxLength: 40 },
        ),
        fc.nat(),
        (ops, pick) => {
          const { tree, ids } = run(ops);
          const forks = ids.filter((id) => tree.has(id));
          const fork = forks[pick % forks.length]!;
          const { parentId, atMessage } = tree.get(fork)!;
          const before = new Map(ids.map((id) => [id, tree.get(id)]));
          tree.promote(fork, "tail");
          expect(tree.get("tail")).toEqual({ parentId, atMessage, relation: "fork" });
          for (const id of ids) {
            const was = before.get(id);
            const now = tree.get(id);
            if (!was) continue;
            if (was.parentId === fork) expect(now).toEqual({ ...was, parentId });
            else if (was.parentId === parentId && id !== fork && was.atMessage > atMessage)
              expect(now).toEqual({ ...was, parentId: "tail" });
            else expect(now).toEqual(was);
          }
        },
      ),
    );
  });
});

/** Every thread reached from `roots` by walking down, each counted as often as it is reached (a walk that would not end throws). */
function walkDown(tree: ForkTree, roots: readonly string[], limit: number): string[] {
  const out: string[] = [];
  const visit = (id: string) => {
    out.push(id);
    if (out.length > limit) throw new Error("the walk down does not end");
    for (const c of tree.childrenOf(id)) visit(c);
  };
  for (const r of roots) visit(r);
  return out;
}

/** Where walking up from `id` leads, or null when it comes back to a thread it passed (a loop). */
function rootOf(parentOf: (id: string) => string | undefined, id: string): string | null {
  const seen = new Set<string>();
  let at = id;
  for (let p = parentOf(at); p !== undefined; p = parentOf(at)) {
    if (seen.has(at)) return null;
    seen.add(at);
    at = p;
  }
  return seen.has(at) ? null : at;
}

describe("fork tree with loops planted", () => {
  const link = fc.record({ child: fc.nat(12), parent: fc.nat(12), at: fc.nat(6) });

  it("refuses a link that would make a thread its own ancestor, keeps it where it was, and every walk up and down ends", () => {
    fc.assert(
      fc.property(fc.array(link, { maxLength: 80 }), (links) => {
        const tree = new ForkTree();
        const ids = Array.from({ length: 13 }, (_, i) => `t${i}`);
        for (const l of links) {
          const child = ids[l.child]!;
          const parentId = ids[l.parent]!;
          const before = tree.get(child);
          const loops = rootOf((id) => (id === child ? parentId : tree.get(id)?.parentId), child) === null;
          const linked = tree.link(child, { parentId, atMessage: l.at, relation: "fork" });
          expect(linked).toBe(!loops);
          expect(tree.get(child)).toEqual(loops ? before : { parentId, atMessage: l.at, relation: "fork" });
        }
        // Up: every thread reaches a root. Down: from the roots, every thread once.
        for (const id of ids) expect(rootOf((x) => tree.get(x)?.parentId, id)).not.toBeNull();
        const roots = ids.filter((id) => !tree.has(id));
        expect(walkDown(tree, roots, ids.length).sort()).toEqual([...ids].sort());
      }),
    );
  });

  /** Whether walking up from `id` comes back to it within `n` steps (every loop of `n` threads is shorter). */
  const loopsBack = (parentOf: (id: string) => string | undefined, id: string, n: number) => {
    let at = parentOf(id);
    for (let i = 0; i <= n && at !== undefined; i++, at = parentOf(at)) if (at === id) return true;
    return false;
  };

  it("onLoops names exactly the threads whose walk up comes back to them", () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.nat(15), { nil: undefined }), { maxLength: 16 }), (pointers) => {
        const ids = pointers.map((_, i) => `t${i}`);
        // A pointer past the threads points at one that is not there (a deleted parent).
        const parentOf = (id: string) => {
          const p = pointers[Number(id.slice(1))];
          return p === undefined ? undefined : `t${p}`;
        };
        expect([...onLoops(ids, parentOf)].sort()).toEqual(ids.filter((id) => loopsBack(parentOf, id, ids.length)).sort());
      }),
    );
  });

  it("a project's stored tree cuts every loop its pointers make: those threads are roots and named, the others keep their parent", () => {
    const summary = (id: string, parent: string | null, created: number): ThreadSummary => ({
      id,
      num: created,
      title: id,
      cwd: "/p",
      model: "m",
      created,
      parent: parent === null ? null : { relation: "handoff", id: parent, atMessage: 0 },
      updated: 0,
      messages: 0,
      deleted: false,
      runner: { kind: "api" },
      branches: [],
      ended: null,
      problems: [],
      worktree: null,
      usage: NO_STORED_USAGE,
      fanOut: null,
      check: null,
      queued: 0,
    });
    fc.assert(
      fc.property(fc.array(fc.option(fc.nat(12), { nil: null }), { maxLength: 12 }), (pointers) => {
        const threads = pointers.map((p, i) => summary(`t${i}`, p === null ? null : `t${p}`, i));
        const { visible, looped } = projectTree(threads);
        const given = new Map(threads.map((t) => [t.id, t.parent?.id]));
        const parents = new Map(visible.map((t) => [t.id, t.parent?.id]));
        expect(visible.map((t) => t.id)).toEqual(threads.map((t) => t.id));
        for (const t of threads) {
          const loops = loopsBack((id) => given.get(id), t.id, threads.length);
          expect(looped.has(t.id)).toBe(loops);
          expect(parents.get(t.id)).toBe(loops ? undefined : given.get(t.id));
          expect(rootOf((id) => parents.get(id), t.id)).not.toBeNull();
        }
      }),
    );
  });
});
