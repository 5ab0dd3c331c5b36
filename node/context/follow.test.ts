import { describe, expect, it } from "vitest";
import { History } from "../core/history.ts";
import { assistantMessage, entry, userMessage } from "../core/native.ts";
import { type ContextItem, readContextBlock, writeContextBlock } from "./blocks.ts";
import { contextBlocks, type FollowedCopy, followedAfter, type SendContext } from "./follow.ts";

const file = (path: string, text: string): ContextItem => ({ kind: "file", path, text, unsaved: false, changed: false });
const copy = (path: string, text: string, unsaved = false): FollowedCopy => ({ type: "text", path, text, unsaved });

/** The history after a send of `context` (and the user's text), then a reply. */
function sent(history: History, context: SendContext): History {
  const blocks = [...contextBlocks(history, context), "the question"].map((text) => ({ type: "text" as const, text }));
  return history.push(entry(userMessage(blocks)), entry(assistantMessage([{ type: "text", text: "ok" }])));
}
const itemsOf = (history: History) =>
  history
    .last()!
    .message.content.flatMap((b) => (b.type === "text" ? [readContextBlock(b.text)] : []))
    .filter((i) => i !== null);
const lastSend = (history: History) => itemsOf(history.prefix(history.length - 1));

const LONG = `${Array.from({ length: 40 }, (_, i) => `line ${i}`).join("\n")}\n`;

describe("files followed", () => {
  it("a file mentioned is followed with the text sent", () => {
    const h = sent(History.empty, { items: [file("a.ts", "one\n")], followed: [] });
    expect([...followedAfter(h)]).toEqual([["a.ts", "one\n"]]);
  });

  it("unchanged: nothing; changed a little: a diff; changed wholly: the file", () => {
    let h = sent(History.empty, { items: [file("a.ts", LONG)], followed: [] });
    h = sent(h, { items: [], followed: [copy("a.ts", LONG)] });
    expect(lastSend(h)).toEqual([]);
    const edited = LONG.replace("line 20\n", "line twenty\n");
    h = sent(h, { items: [], followed: [copy("a.ts", edited, true)] });
    const [diff] = lastSend(h);
    expect(diff).toMatchObject({ kind: "file-diff", path: "a.ts", unsaved: true });
    expect(diff?.kind === "file-diff" && diff.diff).toContain("-line 20\n+line twenty\n");
    // The last copy is now the edited text: the diff was applied to what was sent before.
    expect(followedAfter(h).get("a.ts")).toBe(edited);
    h = sent(h, { items: [], followed: [copy("a.ts", "all new\n")] });
    expect(lastSend(h)).toEqual([{ kind: "file", path: "a.ts", text: "all new\n", unsaved: false, changed: true }]);
  });

  it("a file mentioned again is sent once, whole; files not followed are ignored", () => {
    let h = sent(History.empty, { items: [file("a.ts", LONG)], followed: [] });
    h = sent(h, { items: [file("a.ts", `${LONG}more\n`)], followed: [copy("a.ts", `${LONG}more\n`), copy("b.ts", "x")] });
    expect(lastSend(h)).toEqual([file("a.ts", `${LONG}more\n`)]);
  });

  it("@drop and a file gone stop following", () => {
    let h = sent(History.empty, { items: [file("a.ts", "a"), file("b.ts", "b")], followed: [] });
    h = sent(h, {
      items: [{ kind: "unfollow", path: "a.ts", why: "dropped with @drop" }],
      followed: [copy("a.ts", "changed"), { type: "gone", path: "b.ts", why: "deleted" }],
    });
    expect(lastSend(h).map((i) => i.kind)).toEqual(["unfollow", "unfollow"]);
    expect(followedAfter(h).size).toBe(0);
  });

  it("a fork at an earlier message follows what was followed there", () => {
    const one = sent(History.empty, { items: [file("a.ts", "a")], followed: [] });
    const two = sent(one, { items: [file("b.ts", "b")], followed: [] });
    expect([...followedAfter(two).keys()]).toEqual(["a.ts", "b.ts"]);
    expect([...followedAfter(two.prefix(2)).keys()]).toEqual(["a.ts"]);
    // A history read again from disk (new entries) gives the same.
    expect(followedAfter(History.of([...two.entries()].map((e) => entry(e.message))))).toEqual(followedAfter(two));
  });

  it("the user's own text that looks like a block is still read as one only when whole", () => {
    const h = History.empty.push(entry(userMessage([{ type: "text", text: `see ${writeContextBlock(file("a.ts", "a"))}` }])));
    expect(followedAfter(h).size).toBe(0);
  });
});
