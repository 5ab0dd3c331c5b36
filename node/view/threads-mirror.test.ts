/**
 * The list Lua keeps for threads(): nothing is pushed before Lua first asks; after that a pass
 * pushes only after a message other than a streamed delta and when the list differs, the slow
 * tick catches what changed outside the chat, and every list is numbered after the one before.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ThreadInfo } from "../rpc/methods.ts";
import { type MirroredThreads, ThreadsMirror } from "./threads-mirror.ts";

const info = (id: string, status: string): ThreadInfo => ({
  id,
  num: 1,
  parent_id: null,
  title: id,
  status,
  stop_reason: null,
  messages: 0,
  updated: null,
  bufnr: null,
  input_bufnr: null,
  changed_files: [],
  usage: null,
  model: null,
  cwd: null,
});

afterEach(() => {
  vi.useRealTimers();
});

describe("ThreadsMirror", () => {
  it("pushes once asked, on a moved version with a changed list, and on the tick", () => {
    vi.useFakeTimers();
    let threads = [info("a", "idle")];
    let listed = 0;
    const pushed: MirroredThreads[] = [];
    const mirror = new ThreadsMirror(
      () => {
        listed++;
        return threads;
      },
      (m) => pushed.push(m),
      1000,
    );

    mirror.mayChange();
    mirror.passed();
    vi.advanceTimersByTime(5000);
    expect(pushed).toEqual([]);
    expect(listed).toBe(0);

    expect(mirror.now()).toEqual({ seq: 1, threads });

    // A pass after streamed deltas only does not even make the list.
    mirror.passed();
    expect(listed).toBe(1);

    threads = [info("a", "streaming")];
    mirror.mayChange();
    mirror.passed();
    expect(pushed).toEqual([{ seq: 2, threads }]);

    // A message came but the list did not change: nothing goes.
    mirror.mayChange();
    mirror.passed();
    expect(pushed).toHaveLength(1);

    // A change outside the chat (a store write's time, a cache expiring) goes on the tick.
    threads = [info("a", "streaming"), info("b", "idle")];
    vi.advanceTimersByTime(999);
    expect(pushed).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(pushed).toEqual([
      { seq: 2, threads: [info("a", "streaming")] },
      { seq: 3, threads },
    ]);

    // An answer in between is numbered too: a push queued before it is older.
    expect(mirror.now().seq).toBe(4);

    mirror.close();
    threads = [];
    vi.advanceTimersByTime(10_000);
    expect(pushed).toHaveLength(2);
  });
});
