/** Stream work gives way: other input is handled between slices of a long backlog, not after it. */
import { describe, expect, it } from "vitest";
import { giveWay, StreamLane } from "./fair-share.ts";

const busy = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end) {}
};

/** A lane on a clock of its own: each event of stream work moves it by 1 ms. */
function fakeLane(budgetMs: number) {
  const clock = { now: 0 };
  const lane = new StreamLane(budgetMs, () => clock.now);
  const order: string[] = [];
  /** A stream with `events` events waiting (the mock sent them at once), as the agent reads one. */
  const backlog = async (name: string, events: number) => {
    for (let i = 0; i < events; i++) {
      const wait = lane.giveWay();
      if (wait) await wait;
      clock.now += 1;
      order.push(name);
    }
  };
  return { lane, order, backlog };
}

/** Calls `probe` once per turn of the event loop (in its check phase, where setImmediate runs) until `done`. */
async function everyTurn(probe: () => void, done: Promise<unknown>): Promise<void> {
  let finished = false;
  void done.then(() => (finished = true));
  while (!finished) {
    await new Promise((resolve) => setImmediate(resolve));
    probe();
  }
}

describe("StreamLane", () => {
  it("gives one turn of the event loop one budget of stream work in all, however many streams have a backlog", async () => {
    const { order, backlog } = fakeLane(4);
    const streams = Promise.all(Array.from({ length: 30 }, (_, i) => backlog(`s${i}`, 20)));
    // Between two turns the loop reads its input: a request from Neovim waits for this much stream work.
    const perTurn: number[] = [];
    let seen = order.length;
    await everyTurn(() => {
      perTurn.push(order.length - seen);
      seen = order.length;
    }, streams);
    expect(order).toHaveLength(30 * 20);
    // 4 ms of budget, 1 ms an event (before: 4 for the first stream, then one for each of the 29 others).
    expect(Math.max(...perTurn)).toBe(4);
  });

  it("takes the streams with a backlog in line, one event each, so that none waits behind another's backlog", async () => {
    const { order, backlog } = fakeLane(4);
    await Promise.all([backlog("a", 10), backlog("b", 10), backlog("c", 10)]);
    // Turn by turn: a alone (b and c had not asked yet), then the three in the order they queued.
    expect(order.join("").slice(0, 16)).toBe("aaaa" + "abca" + "bcab" + "cabc");
  });

  it("lets a lone stream go on at once while the turn has budget left", async () => {
    const clock = { now: 0 };
    const lane = new StreamLane(4, () => clock.now);
    expect(lane.giveWay()).toBeUndefined();
    clock.now = 3;
    expect(lane.giveWay()).toBeUndefined();
    clock.now = 4;
    const wait = lane.giveWay();
    expect(wait).toBeInstanceOf(Promise);
    await wait;
    // A fresh turn of the event loop: its budget is whole.
    expect(lane.giveWay()).toBeUndefined();
    expect(lane.queued).toBe(0);
  });
});

describe("giveWay", () => {
  it("lets the event loop handle other work while several backlogs are worked through", async () => {
    const order: string[] = [];
    const backlog = async (name: string) => {
      for (let i = 0; i < 40; i++) {
        const wait = giveWay();
        if (wait) await wait;
        busy(1);
      }
      order.push(`${name} done`);
    };
    const streams = Promise.all([backlog("a"), backlog("b"), backlog("c")]);
    // Another piece of input arriving meanwhile (a request from Neovim).
    setTimeout(() => order.push("request"), 0);
    await streams;
    expect(order[0]).toBe("request");
  });
});
