import { describe, expect, it } from "vitest";
import { testChat } from "../../test/helpers/test-chat.ts";
import { History } from "../core/history.ts";
import { assistantMessage, entry, userMessage } from "../core/native.ts";
import { displayParts } from "./display-parts.ts";

const words = { keys: { report: "gR", promote: "gP", discard: "gD", resolveMerge: "<CR>" }, emptyHint: "type below" };
const extras = {
  worksIn: () => null,
  unattended: () => false,
  notSaved: () => undefined,
  merges: () => [],
  fanOutNotes: () => [],
  waitNotes: () => [],
};

function twoMessages() {
  const { chat, dispatch } = testChat();
  const history = History.of([
    entry(userMessage([{ type: "text", text: "why?" }])),
    entry(assistantMessage([{ type: "text", text: "because" }])),
  ]);
  dispatch({ type: "chat-msg", msg: { type: "new-thread", newId: "src", num: 1, runner: { kind: "api", history } } });
  dispatch({ type: "thread-msg", id: "src", msg: { type: "rename", title: "Source" } });
  return { chat, dispatch };
}

describe("what a display says besides its messages", () => {
  it("a fork's banner names its parent, the message it branched at and the keys that end it; the parent marks the fork there", () => {
    const { chat, dispatch } = twoMessages();
    dispatch({
      type: "chat-msg",
      msg: {
        type: "fork-thread",
        sourceId: "src",
        newId: "f",
        num: 2,
        prompt: "",
        atMessage: 0,
        opener: { by: "user", background: false },
      },
    });
    dispatch({ type: "thread-msg", id: "src", msg: { type: "label", target: 1, text: "keep" } });
    const fork = displayParts(chat.threads.get("f")!, chat, extras, words);
    expect(fork.headerLines.slice(0, 2)).toEqual([
      `⑂ Forked from "Source" at your message "why?" · gp: go to parent`,
      "  ends with, keys in this display: gR report to it · gP promote into it · gD discard · anywhere: :Tine fork report|promote|discard",
    ]);
    const source = displayParts(chat.threads.get("src")!, chat, extras, words);
    expect(source.forkMarks).toEqual([
      { atMessage: 1, text: "🏷 keep" },
      { atMessage: 0, text: `⑂ ${chat.titleOf("f")}` },
    ]);
    expect(source.headerLines).toEqual([]);
  });

  it("an empty thread shows the hint; one in a worktree, or not being saved, says so", () => {
    const { chat, dispatch } = testChat();
    dispatch({ type: "chat-msg", msg: { type: "new-thread", newId: "t", num: 1, runner: { kind: "api" } } });
    const parts = displayParts(
      chat.threads.get("t")!,
      chat,
      { ...extras, worksIn: () => "/wt/a", notSaved: () => "the disk is full" },
      words,
    );
    expect(parts.headerLines).toEqual([
      "⎇ Works in a git worktree of its own: /wt/a",
      "",
      "type below",
      "",
      "⚠ Not being saved: the disk is full. It works on in memory and is written once saving works again.",
      "",
    ]);
    expect(parts.noteLines).toEqual([]);
    const unattended = displayParts(chat.threads.get("t")!, chat, { ...extras, worksIn: () => "/wt/a", unattended: () => true }, words);
    expect(unattended.headerLines[0]).toBe(
      "🔒 unattended: its tools run in the sandbox, confined to its git worktree (nothing inside it waits for approval): /wt/a",
    );
  });

  it("a merge waiting to be accepted is a line of its own, however its marker spells the files", () => {
    const { chat } = twoMessages();
    const merge = { worktree: "/wt/a", fork: "try A", parent: "src", into: "/p", files: ["a.txt", "b\nc.txt"] };
    const parts = displayParts(chat.threads.get("src")!, chat, { ...extras, merges: () => [merge] }, words);
    expect(parts.merges).toEqual([
      {
        line: '⚠ merge of "try A": 2 conflicts in a.txt, b c.txt · :copen · :Tine merge done · <CR> asks the agent to resolve them',
        merge,
      },
    ]);
    const unmapped = displayParts(
      chat.threads.get("src")!,
      chat,
      { ...extras, merges: () => [merge] },
      { ...words, keys: { ...words.keys, resolveMerge: false } },
    );
    expect(unmapped.merges?.[0]?.line).toMatch(/:Tine merge done$/);
  });
});
