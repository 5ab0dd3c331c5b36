/**
 * Headers as older versions wrote them still decode, into the runner union the chat takes; a record
 * of the wrong types is refused with the reason, so replay, the list and the view never see it.
 */

import { describe, expect, it } from "vitest";
import { headerLine } from "../../test/helpers/stored-header.ts";
import { writeContextBlock } from "../context/blocks.ts";
import { LINE_BOUNDS } from "../util/bounded-json.ts";
import { decode } from "./records.ts";

const S1 = "11111111-1111-4111-8111-111111111111";
const S2 = "22222222-2222-4222-8222-222222222222";
const header = headerLine;

describe("header runner", () => {
  it("a header from before runners were stored is tine's agent", () => {
    const d = decode(header({}));
    expect(d.ok && d.record.t === "header" && d.record.runner).toEqual({ kind: "api" });
  });

  it("an old Claude Code header keeps its arguments and session but never its program", () => {
    const d = decode(header({ claude: { command: ["sh", "--model", "opus"], sessionId: S1 } }));
    expect(d.ok && d.record.t === "header" && d.record.runner).toEqual({
      kind: "claude-code",
      args: ["--model", "opus"],
      sessionId: S1,
    });
    expect(d.ok && "claude" in d.record).toBe(false);
  });

  it("a runner of the current format is read as written; a bad one makes the header unreadable", () => {
    const spec = { kind: "claude-code", args: ["-p"], sessionId: S2 };
    const d = decode(header({ runner: spec }));
    expect(d.ok && d.record.t === "header" && d.record.runner).toEqual(spec);
    expect(decode(header({ runner: { kind: "shell", args: [] } }))).toEqual({
      ok: false,
      error: 'header record: unknown runner kind "shell"',
    });
    expect(decode(header({ runner: { kind: "claude-code", args: [1], sessionId: "x" } }))).toEqual({
      ok: false,
      error: "header record: runner.args is not a list of strings",
    });
  });
});

const deep = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;

describe("decoding what a transcript holds", () => {
  const text = (t: string) => ({ type: "text", text: t });
  const usage = { input_tokens: 1, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
  const refused: [string, Record<string, unknown>, RegExp][] = [
    ["a header whose num is not a number", JSON.parse(header({ num: "7" })), /num is not a whole number/],
    ["a header whose id would leave the folder", JSON.parse(header({ id: "../../../etc/x" })), /id is not a thread id/],
    ["a header whose parent is not a pointer", JSON.parse(header({ parent: { id: "p", records: "3" } })), /parent is not a pointer/],
    [
      "a Claude Code runner whose session is not a UUID",
      JSON.parse(header({ runner: { kind: "claude-code", args: [], sessionId: "../../x" } })),
      /runner\.sessionId is not a UUID/,
    ],
    ["a text block whose text is a number", { t: "block", b: { type: "text", text: 5 } }, /text block without a string text/],
    ["a tool call whose input is a list", { t: "block", b: { type: "tool_use", id: "t", name: "n", input: [] } }, /input is not an object/],
    ["a message holding a null block", { t: "append", m: { role: "user", content: [null] } }, /block 0: a content block is not an object/],
    [
      "a user message holding a tool call",
      { t: "append", m: { role: "user", content: [{ type: "tool_use", id: "t", name: "n", input: {} }] } },
      /cannot hold a "tool_use" block/,
    ],
    [
      "a reply whose usage is missing",
      { t: "append", m: { role: "assistant", content: [text("a")] }, meta: { stopReason: "end_turn" } },
      /meta with bad usage/,
    ],
    [
      "a tool result whose content is a number",
      { t: "result", r: { type: "tool_result", tool_use_id: "t", content: 5 } },
      /neither text nor a list/,
    ],
    ["a truncation to half a message", { t: "truncate", n: 0.5 }, /n is not a whole number/],
    ["a branch record with a negative count", { t: "branched", to: "b", after: 1, upTo: -1 }, /to, after or upTo missing/],
    ["an end that points out of the folder", { t: "ended", how: "promoted", into: "../x" }, /into is not a thread id/],
  ];
  it.each(refused)("refuses %s, saying why", (_what, record, why) => {
    const d = decode(JSON.stringify(record));
    expect(d.ok).toBe(false);
    expect(!d.ok && d.error).toMatch(why);
  });

  it("keeps only what the API takes of a message, and the records it reads whole", () => {
    const d = decode(
      JSON.stringify({ t: "append", m: { role: "assistant", content: [text("hi")], extra: 1 }, meta: { stopReason: "end_turn", usage } }),
    );
    expect(d).toEqual({
      ok: true,
      record: { t: "append", m: { role: "assistant", content: [text("hi")] }, meta: { stopReason: "end_turn", usage } },
    });
  });

  it("refuses a line nested deeper than its bound before anything recurses over it", () => {
    const line = `{"t":"append","m":{"role":"user","content":[{"type":"text","text":"x","citations":${deep(6000)}}]}}`;
    expect(decode(line)).toEqual({ ok: false, error: `nested more than ${LINE_BOUNDS.depth} levels deep` });
  });
});

describe("queue record", () => {
  it("holds the messages as they wait, each its text and whether it is @now; only those fields are kept", () => {
    const line = JSON.stringify({
      t: "queue",
      items: [{ text: "one" }, { text: "two", now: true, extra: 1 }, { text: "three", now: false }],
    });
    expect(decode(line)).toEqual({
      ok: true,
      record: { t: "queue", items: [{ text: "one" }, { text: "two", now: true }, { text: "three" }] },
    });
  });

  it("an agent's settings are read back entry by entry: short printable ids and values, or the record is refused", () => {
    expect(decode(JSON.stringify({ t: "settings", settings: { model: "sonnet", mode: "plan" }, extra: 1 }))).toEqual({
      ok: true,
      record: { t: "settings", settings: { model: "sonnet", mode: "plan" } },
    });
    for (const settings of [{ model: 5 }, ["sonnet"], { "a\nb": "x" }, { model: "" }, null])
      expect(decode(JSON.stringify({ t: "settings", settings }))).toEqual({
        ok: false,
        error: "settings record: settings is not a set of short ids and values",
      });
  });

  it("a queue of the wrong shape is refused", () => {
    for (const items of [null, "x", [{}], [{ text: 1 }], [{ text: "a", now: "yes" }]])
      expect(decode(JSON.stringify({ t: "queue", items }))).toEqual({ ok: false, error: "queue record: items is not a list of messages" });
  });

  it("a message's mentions are kept as context blocks; a block the request format cannot read is refused", () => {
    const block = writeContextBlock({ kind: "file", path: "a.md", text: "A\n", unsaved: false, changed: false });
    const good = JSON.stringify({ t: "queue", items: [{ text: "see @file:a.md", context: [block] }] });
    expect(decode(good)).toEqual({ ok: true, record: { t: "queue", items: [{ text: "see @file:a.md", context: [block] }] } });
    for (const context of ["x", [1], ['<context kind="file">cut']])
      expect(decode(JSON.stringify({ t: "queue", items: [{ text: "a", context }] }))).toEqual({
        ok: false,
        error: "queue record: a message's context is not a list of context blocks",
      });
  });
});

describe("graft record", () => {
  const note = { path: "src/a.ts", hunk: 2, from: "try A", conflicts: 1, root: "/p" };

  it("is read as written, a whole file's (hunk null) too", () => {
    expect(decode(JSON.stringify({ t: "graft", note }))).toEqual({ ok: true, record: { t: "graft", note } });
    const whole = { ...note, hunk: null };
    expect(decode(JSON.stringify({ t: "graft", note: whole }))).toEqual({ ok: true, record: { t: "graft", note: whole } });
    expect(decode(JSON.stringify({ t: "grafts-sent" }))).toEqual({ ok: true, record: { t: "grafts-sent" } });
    // One `:Tine restore undo` took back: still noted (undone), not told.
    const undone = { ...note, undone: true };
    expect(decode(JSON.stringify({ t: "graft", note: undone }))).toEqual({ ok: true, record: { t: "graft", note: undone } });
  });

  it("of the wrong types is refused: a hunk 0, a path that is no text, conflicts below 0, a missing note", () => {
    for (const bad of [{ ...note, hunk: 0 }, { ...note, path: 3 }, { ...note, conflicts: -1 }, { ...note, undone: "yes" }, undefined])
      expect(decode(JSON.stringify({ t: "graft", note: bad }))).toEqual({ ok: false, error: "graft record: note is not a graft's" });
  });
});

describe("a fan-out fork's records", () => {
  const place = { group: S1, index: 2, of: 3, prompt: "try it", checked: true };
  const fanOutOf = (line: string) => {
    const d = decode(line);
    if (!d.ok || d.record.t !== "header") throw new Error(`not a header: ${JSON.stringify(d)}`);
    return d.record.fanOut;
  };

  it("a header's place is read back; one of another shape is dropped and the header still reads", () => {
    expect(fanOutOf(header({ fanOut: place }))).toEqual(place);
    for (const planted of [
      { ...place, index: 4 },
      { ...place, index: 0 },
      { ...place, of: 1e9, index: 1e9 },
      { ...place, group: "../../etc" },
      { ...place, prompt: "two\nlines" },
      { ...place, prompt: "x".repeat(5000) },
      { ...place, checked: "yes" },
      { ...place, check: "rm -rf ~", checked: undefined },
      "a fan-out",
      [place],
    ])
      expect(fanOutOf(header({ fanOut: planted }))).toBeUndefined();
  });

  it("a check's end is read back, or its clearing; one that says it passed with another exit, or is not one, is refused", () => {
    const result = { ok: false, code: 4, output: "2 failed\n" };
    expect(decode(JSON.stringify({ t: "check", result }))).toEqual({ ok: true, record: { t: "check", result } });
    expect(decode(JSON.stringify({ t: "check", result: null }))).toEqual({ ok: true, record: { t: "check", result: null } });
    for (const planted of [
      { ok: true, code: 4, output: "" },
      { ok: false, code: 0, output: "" },
      { ok: true, code: 0 },
      { ok: false, code: 1.5, output: "" },
      { ok: false, code: null, output: "x".repeat(100_000) },
      "passed",
      undefined,
    ])
      expect(decode(JSON.stringify({ t: "check", result: planted }))).toEqual({
        ok: false,
        error: "check record: result is not a check's end",
      });
  });
});
