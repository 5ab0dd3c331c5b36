import { describe, expect, it } from "vitest";
import type { CodePurpose, CodeRecorder } from "../core/code-marks.ts";
import { History } from "../core/history.ts";
import { assistantMessage, type Entry, entry, userMessage } from "../core/native.ts";
import { TurnCode } from "./turn-code.ts";

const user = (t: string): Entry => entry(userMessage([{ type: "text", text: t }]));
const reply = (t: string): Entry => entry(assistantMessage([{ type: "text", text: t }]));

describe("the code snapshots of an ACP agent's turns (recordedBeforeTurn)", () => {
  it("the next turn's prompt waits for its first snapshot; asked at the same message count as the last turn's end, both are kept", async () => {
    let history = History.of([user("q1")]);
    const asked: { at: number; purpose: CodePurpose; since: string | null }[] = [];
    const recorder: CodeRecorder = {
      prime: () => {},
      record: (_thread, at, since, purpose) => void asked.push({ at, purpose, since }),
      settled: () => Promise.resolve(),
    };
    const code = new TurnCode("t", recorder, () => history);
    code.turnStarts();
    let ready = false;
    void code.recordedBeforeTurn().then(() => (ready = true));
    await Promise.resolve();
    expect(ready).toBe(false);
    code.taken(1, "tools", { at: 1, id: "s1", skipped: [] });
    await Promise.resolve();
    expect(ready).toBe(true);
    history = History.of([user("q1"), reply("a1")]);
    code.turnEnded();
    // The user sends again before the turn's end is recorded: the next turn's first snapshot is asked at the same count.
    code.turnStarts();
    const next = code.recordedBeforeTurn();
    expect(asked).toEqual([
      { at: 1, purpose: "tools", since: null },
      { at: 2, purpose: "turn-end", since: "s1" },
      { at: 2, purpose: "tools", since: null },
    ]);
    code.taken(2, "turn-end", {
      at: 2,
      id: "s2",
      skipped: [],
      turn: { from: "s1", files: [{ path: "a.txt", added: 1, removed: 0 } as never] },
    });
    code.taken(2, "tools", { at: 2, id: "s3", skipped: [] });
    await next;
    expect(code.marks.map((m) => m.id)).toEqual(["s1", "s2", "s3"]);
    // The next turn's end lists its changes from its own first snapshot.
    history = History.of([user("q1"), reply("a1"), user("q2"), reply("a2")]);
    code.turnEnded();
    expect(asked.at(-1)).toEqual({ at: 4, purpose: "turn-end", since: "s3" });
  });
});
