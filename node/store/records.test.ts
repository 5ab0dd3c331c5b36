/** Headers as older versions wrote them still decode, into the runner union the chat takes. */
import { describe, expect, it } from "vitest";
import { decode, FORMAT_VERSION } from "./records.ts";

const header = (extra: Record<string, unknown>) =>
  JSON.stringify({
    t: "header",
    v: FORMAT_VERSION,
    id: "a",
    num: 1,
    title: "T",
    created: 1,
    cwd: "/p",
    model: "m",
    parent: null,
    ...extra,
  });

describe("header runner", () => {
  it("a header from before runners were stored is tine's agent", () => {
    const d = decode(header({}));
    expect(d.ok && d.record.t === "header" && d.record.runner).toEqual({ kind: "api" });
  });

  it("an old Claude Code header keeps its arguments and session but never its program", () => {
    const d = decode(header({ claude: { command: ["sh", "--model", "opus"], sessionId: "s-1" } }));
    expect(d.ok && d.record.t === "header" && d.record.runner).toEqual({
      kind: "claude-code",
      args: ["--model", "opus"],
      sessionId: "s-1",
    });
    expect(d.ok && "claude" in d.record).toBe(false);
  });

  it("a runner of the current format is read as written; a bad one makes the header unreadable", () => {
    const spec = { kind: "claude-code", args: ["-p"], sessionId: "s-2" };
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
