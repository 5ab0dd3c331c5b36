/**
 * Fan-outs on the chat alone (test/helpers/test-chat.ts), the fork flow stood in for by what it is
 * asked: what each fork is asked to be, and what bad input refuses with nothing made.
 */
import { describe, expect, it } from "vitest";
import { testChat } from "../../test/helpers/test-chat.ts";
import { History } from "../core/history.ts";
import { assistantMessage, entry, userMessage } from "../core/native.ts";
import type { CodeSnapshots } from "../snapshot/code.ts";
import type { ThreadSummary } from "../store/summary.ts";
import type { Environment } from "../tools/environment.ts";
import { NO_STORED_USAGE } from "../usage/stored.ts";
import { type FanOutHost, FanOuts } from "./fanout.ts";
import type { ForkRequest } from "./request.ts";

/** Where a fork works: not used by what these tests ask. */
const project = { root: "/nowhere", environment: {} as Environment, snapshots: {} as CodeSnapshots, ready: Promise.resolve() };

const usage = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };

function setUp(over: Partial<FanOutHost> = {}) {
  const { chat, dispatch } = testChat();
  const history = History.of([
    entry(userMessage([{ type: "text", text: "q1" }])),
    entry(assistantMessage([{ type: "text", text: "a1" }]), { stopReason: "end_turn", usage }),
  ]);
  dispatch({ type: "chat-msg", msg: { type: "new-thread", newId: "src", num: 1, runner: { kind: "api", history } } });
  const asked: ForkRequest[] = [];
  const told: string[] = [];
  const bases: string[] = [];
  const folders = { available: async () => true, unattendedRefusal: async (): Promise<string | null> => null, of: () => project };
  const fanouts = new FanOuts({
    chat,
    flow: {
      start: async (request) => {
        asked.push(request);
        return "later";
      },
      // The fork flow's rule, on these folders.
      unattendedRefusal: () => (over.folders ?? folders).unattendedRefusal(),
    },
    folders,
    baseNow: async (_source, owner) => {
      bases.push(owner);
      return "a".repeat(40);
    },
    // Setup's models here: a, m-a, m-b.
    unknownModel: (name) => (["a", "m-a", "m-b"].includes(name) ? null : `tine: no model "${name}" in setup`),
    max: 8,
    checkCommand: false,
    tell: (text) => told.push(text),
    usage: { info: () => ({ cost_usd: 0, cache_read: 0 }), storedInfo: () => null },
    changed: () => {},
    filesChanged: () => {},
    keepCheck: () => {},
    ...over,
  });
  return { chat, fanouts, asked, told, bases };
}

describe("a fan-out", () => {
  it("asks for n forks in worktrees of their own, from one snapshot, unattended, on the models in turn", async () => {
    const { chat, fanouts, asked, told, bases } = setUp();
    const ids = await fanouts.fanout("src", "  try it  ", { n: 3, models: ["m-a", "m-b"], check: "npm test" });
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(3);
    expect(bases).toEqual([ids[0]]);
    expect(asked.map((r) => r.when)).toEqual(["worktree-meanwhile", "worktree-meanwhile", "worktree-meanwhile"]);
    for (const [i, r] of asked.entries()) {
      if (r.when !== "worktree-meanwhile") throw new Error(r.when);
      expect(r).toMatchObject({ base: "a".repeat(40), unattended: true });
      expect(r.fork).toMatchObject({ sourceId: "src", newId: ids[i], prompt: "try it" });
      expect(r.fork.opener).toEqual({
        by: "fan-out",
        group: ids[0],
        place: { index: i + 1, of: 3 },
        model: { model: ["m-a", "m-b", "m-a"][i], effort: "setup" },
      });
    }
    expect(fanouts.of(ids[1]!)).toMatchObject({ sourceId: "src", forks: ids, check: "npm test", unattended: true });
    const title = chat.threads.get("src")!.title;
    expect(told).toEqual([
      `tine: 3 forks of "${title}" run the prompt, unattended (🔒), each in a worktree of its own: the list shows them under it`,
    ]);
  });

  it("compare names a thread that is no fan-out's as the list does, never by its id", () => {
    const { chat, fanouts } = setUp();
    const title = chat.threads.get("src")!.title;
    // Thrown as asked (the host's request gives it to the caller).
    expect(() => fanouts.compare("src")).toThrow(
      `tine: #1 "${title}" is neither a fan-out's fork nor the source of one (:ForkThread --n N <prompt> makes one)`,
    );
    expect(() => fanouts.compare(["src"])).toThrow(`tine: #1 "${title}" is not a live fork of a fan-out`);
    expect(() => fanouts.compare("nope")).toThrow('tine: "nope" (no thread has that id) is neither');
  });

  it("refuses bad input, a thread not open, or a folder without worktrees, with nothing made", async () => {
    const { fanouts, asked, bases } = setUp();
    await expect(fanouts.fanout("src", "x", { n: 0 })).rejects.toThrow("1 to 8 forks (fanout_max), not 0");
    await expect(fanouts.fanout("src", "x", { n: 9 })).rejects.toThrow("not 9");
    await expect(fanouts.fanout("src", "x", { n: 2.5 })).rejects.toThrow("not 2.5");
    await expect(fanouts.fanout("src", "   ")).rejects.toThrow("a fan-out needs a prompt");
    await expect(fanouts.fanout("src", "x", { models: ["a", " "] })).rejects.toThrow("model names");
    await expect(fanouts.fanout("src", "x", { models: ["m-a", "no-such-model"] })).rejects.toThrow('no model "no-such-model" in setup');
    await expect(fanouts.fanout("nope", "x")).rejects.toThrow('no thread "nope" to fan out from');
    const none = setUp({ folders: { available: async () => false, unattendedRefusal: async () => null, of: () => project } });
    await expect(none.fanouts.fanout("src", "x")).rejects.toThrow("worktree of its own, which cannot be made here");
    expect([asked, bases, none.asked]).toEqual([[], [], []]);
  });

  it("where the sandbox cannot start is made attended, said once; check_command is the default check", async () => {
    const { fanouts, asked, told } = setUp({
      folders: { available: async () => true, unattendedRefusal: async () => "tine: no sandbox here", of: () => project },
      checkCommand: "make check",
    });
    const a = await fanouts.fanout("src", "one");
    const b = await fanouts.fanout("src", "two", { n: 1, check: false });
    expect(asked.every((r) => r.when === "worktree-meanwhile" && !r.unattended)).toBe(true);
    expect(a).toHaveLength(2);
    expect(told.filter((t) => t.startsWith("tine: no sandbox here"))).toHaveLength(1);
    expect(fanouts.of(a[0]!)?.check).toBe("make check");
    expect(fanouts.of(b[0]!)?.check).toBe(null);
    fanouts.forget(a[0]!);
    expect(fanouts.of(a[1]!)?.forks).toEqual([a[1]]);
    fanouts.forget(a[1]!);
    expect(fanouts.from("src").map((g) => g.forks)).toEqual([b]);
  });

  it("a fork that could not be made is said, left out of the group, the count told and the ids returned; none made: refused", async () => {
    let calls = 0;
    const failing = (bad: (i: number) => boolean) => ({
      start: async () => {
        if (bad(calls++)) throw new Error("disk full");
        return "later" as const;
      },
      unattendedRefusal: async () => null,
    });
    const { chat, fanouts, told } = setUp({ flow: failing((i) => i === 1) });
    const ids = await fanouts.fanout("src", "try it", { n: 3 });
    expect(ids).toHaveLength(2);
    expect(fanouts.of(ids[0]!)?.forks).toEqual(ids);
    const title = chat.threads.get("src")!.title;
    expect(told).toEqual([
      "tine: fork 2 of 3 of the fan-out was not made: disk full",
      `tine: 2 forks of "${title}" run the prompt, unattended (🔒), each in a worktree of its own: the list shows them under it`,
    ]);
    calls = 0;
    const none = setUp({ flow: failing(() => true) });
    await expect(none.fanouts.fanout("src", "try it", { n: 2 })).rejects.toThrow("tine: no fork of the fan-out was made");
    expect(none.fanouts.from("src")).toEqual([]);
  });

  it("a restart groups stored forks again by what their headers keep; a fork whose source, snapshot or place disagree is no member", async () => {
    const { fanouts } = setUp({ checkCommand: "npm test" });
    const ids = await fanouts.fanout("src", "try it\nsecond line", { n: 2, check: "make check" });
    const places = ids.map((id) => fanouts.placeOf(id));
    expect(places).toEqual([
      { group: ids[0], index: 1, of: 2, prompt: "try it", checked: true },
      { group: ids[0], index: 2, of: 2, prompt: "try it", checked: true },
    ]);
    // A new host, whose setup has no check_command: the same forks, stored, listed in any order.
    const again = setUp({ checkCommand: false }).fanouts;
    const base = "a".repeat(40);
    const stored = (id: string, fanOut: ThreadSummary["fanOut"], more: Partial<ThreadSummary> = {}): ThreadSummary => ({
      id,
      num: 2,
      title: "try it",
      cwd: "/p",
      model: "m",
      created: 0,
      parent: { relation: "fork", id: "src", records: 3, atMessage: 1, messages: 2 },
      updated: 0,
      messages: 4,
      deleted: false,
      runner: { kind: "api" },
      branches: [],
      ended: null,
      problems: [],
      worktree: { path: `/w/${id}`, base, unattended: true },
      usage: NO_STORED_USAGE,
      fanOut,
      check: null,
      queued: 0,
      ...more,
    });
    const planted = { group: ids[0]!, index: 3, of: 3, prompt: "x", checked: false };
    again.found([
      stored(ids[1]!, places[1]!, { check: { ok: false, code: 1, output: "no\n" } }),
      stored("other-source", planted, { parent: { relation: "fork", id: "elsewhere", records: 1, atMessage: 0, messages: 1 } }),
      stored("other-base", planted, { worktree: { path: "/w/x", base: "b".repeat(40) } }),
      stored("same-place", { ...planted, index: 2 }),
      stored(ids[0]!, places[0]!),
      stored("no-worktree", { ...planted, group: "g2" }, { worktree: null }),
    ]);
    const group = again.of(ids[0]!)!;
    // Checked before, so their verdicts show; a later turn is checked by check_command alone (a command read from a file is never run).
    expect(group).toMatchObject({ id: ids[0], sourceId: "src", prompt: "try it", check: null, checked: true, unattended: true, base });
    expect(group.forks).toEqual(ids);
    for (const id of ["other-source", "other-base", "same-place", "no-worktree"]) expect(again.of(id)).toBeUndefined();
    expect(again.listMark(ids[1]!)).toBe("⑂×2 2/2 check ✗ 1");
    expect(again.listMark(ids[0]!)).toBe("⑂×2 1/2 check -");
    expect(again.notes("src")).toEqual(["⑂×2 fan-out: try it · :Tine compare"]);
    expect(again.checks.state(ids[0]!)).toBe("running"); // not stored in this chat: not known to be at rest
  });
});
