/** The record of a merge under way: read back as written, and a file tine did not write is no record. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempFolders } from "../../test/helpers/temp-folders.ts";
import { type MergeUnderWay, mergeOver, mergesUnderWay, recordMerge } from "./merge-record.ts";

const temp = tempFolders("tine-merge-record-");
const FORK = "11111111-1111-4111-8111-111111111111";
const merge: MergeUnderWay = {
  fork: FORK,
  forkTitle: "try it",
  parentTitle: "Thread 1",
  into: "/project",
  ours: "a".repeat(40),
  files: [
    { path: "src/a.ts", ours: "b".repeat(64), merged: "c".repeat(64) },
    { path: "b.txt", ours: null, merged: "d".repeat(64) },
  ],
  pid: 4242,
};

describe("a merge's record", () => {
  it("is read back as written until the merge is over", () => {
    const dir = join(temp(), "tine-merges");
    expect(mergesUnderWay(dir)).toEqual([]);
    recordMerge(dir, merge);
    expect(mergesUnderWay(dir)).toEqual([merge]);
    mergeOver(dir, FORK);
    expect(mergesUnderWay(dir)).toEqual([]);
  });

  it("is ignored when it is not one tine wrote: a path out of the folder, no snapshot, a file's hash that is none, a relative folder, another fork's name", () => {
    const dir = temp();
    const plant = (name: string, record: unknown) => writeFileSync(join(dir, name), JSON.stringify(record));
    plant(`${FORK}.json`, { ...merge, files: [{ path: "../../.ssh/authorized_keys", ours: null, merged: null }] });
    plant("66666666-6666-4666-8666-666666666666.json", {
      ...merge,
      fork: "66666666-6666-4666-8666-666666666666",
      files: [{ path: "b.txt", ours: "HEAD", merged: null }],
    });
    plant("22222222-2222-4222-8222-222222222222.json", { ...merge, fork: "22222222-2222-4222-8222-222222222222", ours: "HEAD" });
    plant("33333333-3333-4333-8333-333333333333.json", { ...merge, fork: "33333333-3333-4333-8333-333333333333", into: "project" });
    plant("44444444-4444-4444-8444-444444444444.json", merge);
    writeFileSync(join(dir, "55555555-5555-4555-8555-555555555555.json"), "{not json");
    expect(mergesUnderWay(dir)).toEqual([]);
  });
});
