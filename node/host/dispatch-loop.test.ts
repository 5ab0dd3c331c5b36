/**
 * The host's dispatch loop: a batch is every message dispatched while it drains, applied in
 * order; after it, each subscriber sees the batch, in the order they registered; a subscriber
 * that dispatches starts a whole batch of its own before the subscribers after it see this one;
 * a message the chat cannot apply is reported and the batch goes on.
 */
import { describe, expect, it } from "vitest";
import type { Changes } from "../chat/changes.ts";
import type { RootMsg } from "../chat/msgs.ts";
import type { ThreadId } from "../core/ids.ts";
import { type Batch, DispatchLoop } from "./dispatch-loop.ts";

const select = (id: string): RootMsg => ({ type: "chat-msg", msg: { type: "select-thread", id: id as ThreadId } });
const selected = (batch: Batch) => batch.msgs.map((m) => (m.type === "chat-msg" && m.msg.type === "select-thread" ? m.msg.id : "?"));

/** A chat that records what it applied and reports, per batch, the threads selected since the last take. */
function loopOver(apply: (msg: RootMsg, dispatch: (msg: RootMsg) => void) => void = () => {}) {
  const applied: string[] = [];
  let since: ThreadId[] = [];
  const failures: unknown[] = [];
  const loop: DispatchLoop = new DispatchLoop(
    {
      update: (msg) => {
        if (msg.type === "chat-msg" && msg.msg.type === "select-thread") {
          applied.push(msg.msg.id);
          since.push(msg.msg.id);
        }
        apply(msg, loop.dispatch);
      },
      takeChanges: (): Changes => {
        const changes = { threads: since, tree: false, moved: [] };
        since = [];
        return changes;
      },
    },
    (error) => failures.push(error),
  );
  return { loop, applied, failures };
}

describe("DispatchLoop", () => {
  it("runs each subscriber after a batch, in the order they registered, with the batch's messages and changes", () => {
    const { loop } = loopOver();
    const seen: string[] = [];
    loop.afterEachBatch((b) => seen.push(`store ${selected(b)} ${b.changes.threads}`));
    loop.afterEachBatch((b) => seen.push(`buffers ${selected(b)} ${b.changes.threads}`));
    loop.dispatch(select("a"));
    loop.dispatch(select("b"));
    expect(seen).toEqual(["store a a", "buffers a a", "store b b", "buffers b b"]);
  });

  it("a message dispatched while a batch drains joins it, after the messages before it: one batch, seen once", () => {
    const { loop, applied } = loopOver((msg, dispatch) => {
      if (msg.type === "chat-msg" && msg.msg.type === "select-thread" && msg.msg.id === "a") dispatch(select("c"));
    });
    const batches: string[][] = [];
    loop.afterEachBatch((b) => batches.push(selected(b)));
    loop.dispatch(select("a"));
    expect(applied).toEqual(["a", "c"]);
    expect(batches).toEqual([["a", "c"]]);
  });

  it("a subscriber that dispatches runs a whole batch of its own before the subscribers after it see this one", () => {
    const { loop } = loopOver();
    const seen: string[] = [];
    loop.afterEachBatch((b) => seen.push(`store ${selected(b)}`));
    loop.afterEachBatch((b) => {
      seen.push(`titles ${selected(b)}`);
      if (selected(b)[0] === "a") loop.dispatch(select("title of a"));
    });
    loop.afterEachBatch((b) => seen.push(`compaction ${selected(b)}`));
    loop.dispatch(select("a"));
    expect(seen).toEqual(["store a", "titles a", "store title of a", "titles title of a", "compaction title of a", "compaction a"]);
  });

  it("a message the chat cannot apply is reported; the rest of the batch is applied and seen", () => {
    const { loop, applied, failures } = loopOver((msg, dispatch) => {
      if (msg.type !== "chat-msg" || msg.msg.type !== "select-thread") return;
      if (msg.msg.id === "first") {
        dispatch(select("bad"));
        dispatch(select("after"));
      }
      if (msg.msg.id === "bad") throw new Error("no such thread");
    });
    const batches: string[][] = [];
    loop.afterEachBatch((b) => batches.push(selected(b)));
    loop.dispatch(select("first"));
    expect(failures.map((e) => (e as Error).message)).toEqual(["no such thread"]);
    expect(applied).toEqual(["first", "bad", "after"]);
    expect(batches).toEqual([["first", "bad", "after"]]);
  });
});
