import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { decodeMultiStream, encode } from "@msgpack/msgpack";
import { describe, it } from "vitest";
import { RpcChannel } from "./rpc-channel.ts";

/** A channel whose other end (Neovim's) is driven by the test: what it sends, and what it reads. */
function wired(onRequest: (method: string, args: unknown[]) => Promise<unknown>) {
  const toHost = new PassThrough();
  const fromHost = new PassThrough();
  const notified: unknown[][] = [];
  const channel = new RpcChannel((bytes) => fromHost.write(bytes), {
    request: onRequest,
    notification: (method, args) => notified.push([method, ...args]),
  });
  void channel.listen(toHost);
  const received = decodeMultiStream(fromHost)[Symbol.asyncIterator]();
  return {
    channel,
    notified,
    send: (message: unknown[]) => toHost.write(encode(message)),
    next: async () => (await received.next()).value as unknown[],
  };
}

describe("RpcChannel", () => {
  it("answers Neovim's requests with the handler's result, or its error's message", async () => {
    const nvim = wired(async (method, args) => {
      if (method === "fail") throw new Error("it failed");
      return { method, args };
    });
    nvim.send([0, 7, "tine", ["ping", 1]]);
    assert.deepEqual(await nvim.next(), [1, 7, null, { method: "tine", args: ["ping", 1] }]);
    nvim.send([0, 8, "fail", []]);
    assert.deepEqual(await nvim.next(), [1, 8, "it failed", null]);
  });

  it("answers with an error when the handler throws or its result cannot be sent, and goes on reading", async () => {
    const nvim = wired((method) => {
      if (method === "throws") throw new Error("thrown at once");
      return Promise.resolve(method === "unsendable" ? { n: 1n } : "fine");
    });
    nvim.send([0, 1, "throws", []]);
    assert.deepEqual(await nvim.next(), [1, 1, "thrown at once", null]);
    nvim.send([0, 2, "unsendable", []]);
    const [type, id, error] = await nvim.next();
    assert.deepEqual([type, id], [1, 2]);
    assert.match(String(error), /^tine: the answer could not be sent: /);
    nvim.send([0, 3, "ok", []]);
    assert.deepEqual(await nvim.next(), [1, 3, null, "fine"]);
  });

  it("hands Neovim's notifications to their handler, in order with its requests", async () => {
    const nvim = wired(async (_method, args) => {
      nvim.notified.push(["request", ...args]);
      return true;
    });
    nvim.send([2, "tine", ["init", { a: 1 }]]);
    nvim.send([0, 1, "tine", ["threads"]]);
    assert.deepEqual(await nvim.next(), [1, 1, null, true]);
    assert.deepEqual(nvim.notified, [
      ["tine", "init", { a: 1 }],
      ["request", "threads"],
    ]);
  });

  it("resolves the host's requests by id, in any order; Neovim's errors reject with the method's name", async () => {
    const nvim = wired(async () => null);
    const first = nvim.channel.request("nvim_exec_lua", ["return 1", []]);
    const second = nvim.channel.request("nvim_exec_lua", ["error('x')", []]);
    const [a, b] = [await nvim.next(), await nvim.next()];
    assert.deepEqual(a.slice(2), ["nvim_exec_lua", ["return 1", []]]);
    nvim.send([1, b[1], [0, "Lua: x"], null]);
    nvim.send([1, a[1], null, 1]);
    assert.equal(await first, 1);
    await assert.rejects(second, { message: "nvim_exec_lua: Lua: x" });
  });
});
