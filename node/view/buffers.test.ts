/**
 * Which displays a change draws again: a chat with mounted threads, a bridge that records what
 * goes to Neovim, and the renders counted, and the displays looked at: a fork draws its source and
 * itself, whatever else is open, and looks at no other; a rename draws the threads whose banner or
 * marks name it.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { NO_LIST_EXTRAS } from "../../test/helpers/list-extras.ts";
import { testChat } from "../../test/helpers/test-chat.ts";
import { History } from "../core/history.ts";
import type { ThreadId } from "../core/ids.ts";
import { assistantMessage, entry, userMessage } from "../core/native.ts";
import type { NvimBridge } from "../nvim/bridge.ts";
import { Buffers } from "./buffers.ts";
import { ThreadView } from "./thread-view.ts";

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A bridge whose calls answer at once: each thread gets buffers numbered in order. */
function fakeBridge(): NvimBridge {
  let buf = 0;
  return {
    call: async (fn: string) => (fn === "create_thread_buffers" ? { display: ++buf, input: ++buf } : null),
    applyView: async () => {},
    together: (work: () => void) => work(),
    notifyInfo: () => {},
    notifyError: () => {},
    log: () => {},
  } as unknown as NvimBridge;
}

function setup() {
  const { chat, dispatch } = testChat({
    events: { threadCreated: (thread, how) => buffers.mount(thread, how), threadDeleted: (id) => buffers.unmount(id) },
    afterBatch: (_chat, { changes }) => buffers.scheduleRender(changes),
  });
  const buffers = new Buffers(
    fakeBridge(),
    chat,
    "split",
    NO_LIST_EXTRAS,
    "",
    "",
    { report: "r", promote: "p", discard: "d", editQueued: false, resolveMerge: false },
    1 << 16,
  );
  const history = History.of([entry(userMessage([{ type: "text", text: "q" }])), entry(assistantMessage([{ type: "text", text: "a" }]))]);
  let n = 0;
  const newThread = (id: ThreadId) =>
    dispatch({ type: "chat-msg", msg: { type: "new-thread", newId: id, num: ++n, runner: { kind: "api", history } } });
  const fork = (sourceId: ThreadId, id: ThreadId) =>
    dispatch({
      type: "chat-msg",
      msg: { type: "fork-thread", sourceId, newId: id, num: ++n, prompt: "", opener: { by: "user", background: false } },
    });
  /**
   * The threads drawn while `act` runs and the renders it schedules are done; checks that no other
   * display was even looked at (its fork marks read to see whether they changed).
   */
  const drawn = async (act: () => void): Promise<ThreadId[]> => {
    await settle();
    const sync = vi.spyOn(ThreadView.prototype, "sync");
    const marksRead = vi.spyOn(chat, "childrenOf");
    act();
    await settle();
    const ids = [...new Set(sync.mock.calls.map(([input]) => input.thread.id))].sort();
    expect([...new Set(marksRead.mock.calls.map(([id]) => id))].sort()).toEqual(ids);
    sync.mockRestore();
    marksRead.mockRestore();
    return ids;
  };
  /** Every mount and render scheduled so far done. */
  const settle = async () => {
    for (let i = 0; i < 5; i++) await nextTurn();
  };
  return { chat, dispatch, newThread, fork, drawn, settle };
}

afterEach(() => vi.restoreAllMocks());

describe("what a change draws again", () => {
  it("a fork draws its source and itself, not the other forks open", async () => {
    const { newThread, fork, drawn, settle } = setup();
    newThread("src");
    newThread("other");
    for (let i = 0; i < 40; i++) fork("src", `f${i}`);
    await settle();
    expect(await drawn(() => fork("src", "new"))).toEqual(["new", "src"]);
    // A fork of a fork: its source and itself again, not the source's source nor its siblings.
    expect(await drawn(() => fork("f3", "deep"))).toEqual(["deep", "f3"]);
  });

  it("a rename draws the renamed thread, its parent's marks and its forks' banners", async () => {
    const { dispatch, newThread, fork, drawn, settle } = setup();
    newThread("src");
    newThread("other");
    fork("src", "a");
    fork("src", "b");
    fork("a", "a1");
    await settle();
    const renamed = await drawn(() => dispatch({ type: "thread-msg", id: "a", msg: { type: "rename", title: "renamed" } }));
    expect(renamed).toEqual(["a", "a1", "src"]);
  });

  it("a deleted fork draws its parent (its mark goes)", async () => {
    const { dispatch, newThread, fork, drawn, settle } = setup();
    newThread("src");
    fork("src", "a");
    fork("src", "b");
    await settle();
    expect(await drawn(() => dispatch({ type: "chat-msg", msg: { type: "delete-thread", id: "a" } }))).toEqual(["src"]);
  });
});
