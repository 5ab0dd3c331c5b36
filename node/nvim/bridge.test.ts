/**
 * The calls of a drawing pass reach Neovim as one message, in order, each answered on its own;
 * a call made outside a pass goes at once.
 */
import { describe, expect, it } from "vitest";
import { NvimBridge } from "./bridge.ts";

function fakeNeovim() {
  const sent: { method: string; args: unknown[] }[] = [];
  let answer: (value: unknown) => void = () => {};
  return {
    sent,
    answer: (value: unknown) => answer(value),
    nvim: {
      request(method: string, args: unknown[]): Promise<unknown> {
        sent.push({ method, args });
        return new Promise((resolve) => {
          answer = resolve;
        });
      },
    },
  };
}

describe("NvimBridge.together", () => {
  it("sends a pass's calls as one message, answers each on its own, and a nested pass joins the outer one", async () => {
    const neovim = fakeNeovim();
    const bridge = new NvimBridge(neovim.nvim);
    let first: Promise<unknown> | undefined;
    let second: Promise<unknown> | undefined;
    let third: Promise<unknown> | undefined;
    bridge.together(() => {
      first = bridge.call("apply", [1, { edits: [], marks: null, busy: null }]);
      bridge.together(() => {
        second = bridge.call("set_title", [1, 2, "t"]);
      });
      third = bridge.call("threads_pushed", [{ seq: 1, set: [], order: null }]);
      expect(neovim.sent).toEqual([]);
    });
    expect(neovim.sent).toEqual([
      {
        method: "nvim_exec_lua",
        args: [
          'return require("tine.host_api").batch(...)',
          [
            [
              ["apply", [1, { edits: [], marks: null, busy: null }]],
              ["set_title", [1, 2, "t"]],
              ["threads_pushed", [{ seq: 1, set: [], order: null }]],
            ],
          ],
        ],
      },
    ]);
    neovim.answer([
      [true, null],
      [false, "no such buffer"],
      [true, true],
    ]);
    await expect(first).resolves.toBeUndefined();
    await expect(second).rejects.toThrow("set_title: no such buffer");
    await expect(third).resolves.toBeUndefined();

    void bridge.call("notify", ["hi", "info"]);
    expect(neovim.sent.at(-1)).toEqual({ method: "nvim_exec_lua", args: ['return require("tine.host_api").notify(...)', ["hi", "info"]] });
  });

  it("gives an answer its caller reads only in the shape lua-api.ts names, in a pass or alone", async () => {
    const neovim = fakeNeovim();
    const bridge = new NvimBridge(neovim.nvim);
    let made: Promise<{ display: number; input: number }> | undefined;
    let list: Promise<number> | undefined;
    bridge.together(() => {
      made = bridge.call("create_thread_buffers", ["t1", 1, "title", []]);
      list = bridge.call("list_buffer", []);
    });
    neovim.answer([
      [true, { display: 3, input: 4 }],
      [true, "7"],
    ]);
    await expect(made).resolves.toEqual({ display: 3, input: 4 });
    await expect(list).rejects.toThrow('list_buffer: the answer of list_buffer must be a buffer number (got "7")');

    const alone = bridge.call("create_thread_buffers", ["t2", 2, "title", []]);
    neovim.answer({ display: 5 });
    await expect(alone).rejects.toThrow(
      "create_thread_buffers: the answer of create_thread_buffers.input must be a buffer number (got nil)",
    );
  });
});
