/**
 * Properties of the fork tree, over random sequences of forks and promotes: it agrees with a
 * plain list model of the same rules (children in fork order, ordinals never reused, promote's
 * moves), no thread is ever lost from the tree or made its own ancestor, and a promote moves
 * exactly the forks its rule names.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ForkTree, type Lineage } from "./tree.ts";

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
