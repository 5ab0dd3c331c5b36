/**
 * A thread's instructions are stored with it: in a root's header beside its runner (never in the
 * list's index), not again in a fork's (a fork sends its source's), and a header from before
 * they were kept loads with none.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { headerLine } from "../../test/helpers/stored-header.ts";
import type { ThreadInstructions } from "../core/runner-spec.ts";
import { decode } from "./records.ts";
import { ThreadStore } from "./store.ts";

const INSTRUCTIONS: ThreadInstructions = {
  text: '[tine] …\n\n<instructions file="AGENTS.md">\nBe brief.\n</instructions>',
  files: [{ path: "AGENTS.md", state: "read" }],
};
const ROOT = "00000000-0000-4000-8000-000000000001";
const FORK = "00000000-0000-4000-8000-000000000002";

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "tine-stored-instructions-"));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

const firstLine = (store: ThreadStore, id: string) => JSON.parse(readFileSync(join(store.dir, `${id}.jsonl`), "utf8").split("\n")[0]!);

describe("stored instructions", () => {
  it("a root's header holds them beside the runner; its fork's header holds none, yet the fork loads with them", () => {
    const store = new ThreadStore(dataDir, "/project");
    store.create({ id: ROOT, num: 1, title: "T", model: "m", parent: null, runner: { kind: "api", instructions: INSTRUCTIONS } }).close();
    const fork = { relation: "fork" as const, id: ROOT, records: 0, atMessage: 0, messages: 0 };
    store
      .create({ id: FORK, num: 2, title: "T ⑂1", model: "m", parent: fork, runner: { kind: "api", instructions: INSTRUCTIONS } })
      .close();

    expect(firstLine(store, ROOT).runner).toEqual({ kind: "api" });
    expect(firstLine(store, ROOT).instructions).toEqual(INSTRUCTIONS);
    expect(firstLine(store, FORK).instructions).toBeUndefined();
    expect(store.list().threads.map((t) => t.runner)).toEqual([{ kind: "api" }, { kind: "api" }]);

    const reread = new ThreadStore(dataDir, "/project");
    expect(reread.load(ROOT).runner).toEqual({ kind: "api", instructions: INSTRUCTIONS });
    expect(reread.load(FORK).runner).toEqual({ kind: "api", instructions: INSTRUCTIONS });
  });

  it("a header from before instructions were kept loads with none; one whose instructions are of another shape is unreadable", () => {
    const store = new ThreadStore(dataDir, "/project");
    const old = decode(headerLine());
    expect(old.ok && old.record.t === "header" && old.record.instructions).toBeUndefined();
    expect(decode(headerLine({ instructions: { text: 5, files: [] } }))).toEqual({
      ok: false,
      error: "header record: instructions are not a text and the files it came from",
    });
    store.create({ id: ROOT, num: 1, title: "T", model: "m", parent: null, runner: { kind: "api" } }).close();
    expect(new ThreadStore(dataDir, "/project").load(ROOT).runner).toEqual({ kind: "api" });
  });
});
