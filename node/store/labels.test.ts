/**
 * Labels on disk: the record is checked like every other, replayed onto the state (a cut history
 * takes its messages' labels with it), and written as the difference between two snapshots.
 */
import { describe, expect, it } from "vitest";
import { NO_LABELS, withLabel } from "../chat/labels.ts";
import { History } from "../core/history.ts";
import { decode } from "./records.ts";
import { applyRecord, emptyState } from "./replay.ts";
import { diff, type Snapshot } from "./sync.ts";

const snapshot = (labels = NO_LABELS): Snapshot => ({
  history: History.empty,
  open: [],
  streamed: "",
  results: new Map(),
  title: "t",
  reports: [],
  labels,
});

describe("label records", () => {
  it("decode a thread's label and a message's; refuse one without text or with a bad index", () => {
    expect(decode('{"t":"label","text":"keeper"}')).toEqual({ ok: true, record: { t: "label", text: "keeper" } });
    expect(decode('{"t":"label","message":3,"text":"x"}')).toEqual({ ok: true, record: { t: "label", message: 3, text: "x" } });
    expect(decode('{"t":"label","message":-1,"text":"x"}').ok).toBe(false);
    expect(decode('{"t":"label","message":1}').ok).toBe(false);
  });

  it("replay: put, replaced, removed; a truncate takes the labels of the messages it cut", () => {
    let state = emptyState("t");
    state = applyRecord(state, { t: "label", text: "keeper" });
    state = applyRecord(state, { t: "label", message: 0, text: "first" });
    state = applyRecord(state, { t: "label", message: 2, text: "third" });
    state = applyRecord(state, { t: "label", message: 0, text: "" });
    expect(state.labels.thread).toBe("keeper");
    expect([...state.labels.messages]).toEqual([[2, "third"]]);
    state = applyRecord(state, { t: "truncate", n: 0 });
    expect([...state.labels.messages]).toEqual([]);
    expect(state.labels.thread).toBe("keeper");
  });

  it("sync writes one record per label that changed, and none when they are the same", () => {
    const before = withLabel(withLabel(NO_LABELS, null, "a"), 1, "one");
    const after = withLabel(withLabel(before, 1, ""), 4, "four");
    expect(diff(snapshot(before), snapshot(after))).toEqual([
      { t: "label", message: 4, text: "four" },
      { t: "label", message: 1, text: "" },
    ]);
    expect(diff(snapshot(before), snapshot(withLabel(NO_LABELS, null, "a")))).toEqual([{ t: "label", message: 1, text: "" }]);
    expect(diff(snapshot(after), snapshot(after))).toEqual([]);
  });
});
