/** Stream work gives way: other input is handled between slices of a long backlog, not after it. */
import { describe, expect, it } from "vitest";
import { giveWay } from "./fair-share.ts";

const busy = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end) {}
};

describe("giveWay", () => {
  it("lets the event loop handle other work while several backlogs are worked through", async () => {
    const order: string[] = [];
    const backlog = async (name: string) => {
      for (let i = 0; i < 40; i++) {
        busy(1);
        const wait = giveWay();
        if (wait) await wait;
      }
      order.push(`${name} done`);
    };
    const streams = Promise.all([backlog("a"), backlog("b"), backlog("c")]);
    // Another piece of input arriving meanwhile (a request from Neovim).
    setTimeout(() => order.push("request"), 0);
    await streams;
    expect(order[0]).toBe("request");
  });

  it("costs nothing while the turn has budget left", async () => {
    await giveWay();
    // A fresh turn of the event loop: its budget is whole.
    await new Promise((resolve) => setImmediate(resolve));
    expect(giveWay()).toBeUndefined();
  });
});
