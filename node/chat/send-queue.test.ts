import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { type SendMsg, SendQueue } from "./send-queue.ts";

const send = (text: string, extra: Partial<SendMsg> = {}): SendMsg => ({ type: "send", text, ...extra });
const texts = (msgs: readonly SendMsg[]) => msgs.map((m) => m.text);

describe("the send queue", () => {
  it("at the end of a turn everything goes, in the order sent, and only once", () => {
    const q = new SendQueue();
    q.add(send("one"));
    q.add(send("two", { now: true }));
    q.add(send("three"));
    assert.deepEqual(texts(q.takeAtTurnEnd()), ["one", "two", "three"]);
    assert.deepEqual(q.takeAtTurnEnd(), []);
    assert.equal(q.length, 0);
  });

  it("tool results take only the @now messages; the rest wait for the turn to end", () => {
    const q = new SendQueue();
    q.add(send("later"));
    q.add(send("steer", { now: true }));
    assert.deepEqual(texts(q.takeForToolResults()), ["steer"]);
    assert.deepEqual(q.takeForToolResults(), []);
    assert.deepEqual(texts(q.takeAtTurnEnd()), ["later"]);
  });

  it("the whole send is kept, whatever it carries", () => {
    const q = new SendQueue();
    const msg = send("with fields", { now: true });
    q.add(msg);
    assert.equal(q.takeAtTurnEnd()[0], msg);
  });

  it("an abort or an error holds the queue: nothing goes by itself until the user sends", () => {
    for (const why of ["aborted", "failed"] as const) {
      const q = new SendQueue();
      q.add(send("one"));
      q.add(send("steer", { now: true }));
      q.hold(why);
      assert.equal(q.held, why);
      assert.deepEqual(q.takeForToolResults(), []);
      assert.deepEqual(q.takeAtTurnEnd(), []);
      assert.deepEqual(texts(q.takeAll()), ["one", "steer"]);
      assert.equal(q.held, null);
    }
  });

  it("a retry releases a held queue; so does a new send by the user (not one of tine's own prompts)", () => {
    const q = new SendQueue();
    q.add(send("one"));
    q.hold("failed");
    q.release();
    assert.deepEqual(texts(q.takeAtTurnEnd()), ["one"]);
    q.add(send("two"));
    q.hold("aborted");
    q.add(send("wrap up", { auto: true }));
    assert.equal(q.held, "aborted");
    q.add(send("three"));
    assert.equal(q.held, null);
    assert.deepEqual(texts(q.takeAtTurnEnd()), ["two", "wrap up", "three"]);
  });

  it("an empty queue is never held", () => {
    const q = new SendQueue();
    q.hold("aborted");
    assert.equal(q.held, null);
    q.add(send("one"));
    q.hold("aborted");
    q.remove(q.items[0]!.id);
    assert.equal(q.held, null);
  });

  it("a message removed (cancelled or taken back to edit) never goes; one that already went is not found", () => {
    const q = new SendQueue();
    const keep = q.add(send("keep"));
    const drop = q.add(send("drop"));
    assert.equal(q.remove(drop.id)?.msg.text, "drop");
    assert.equal(q.remove(drop.id), undefined);
    assert.deepEqual(texts(q.takeAtTurnEnd()), ["keep"]);
    assert.equal(q.remove(keep.id), undefined);
  });
});
