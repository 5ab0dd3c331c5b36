import { describe, expect, it } from "vitest";
import { hunksOf, parseBatch, parseChanges, skippedInMessage, snapshotMessage, treeEntries } from "./git-output.ts";

describe("git-output", () => {
  it("a snapshot's message names the files it left out, and they are read back from it", () => {
    expect(skippedInMessage(snapshotMessage([], 100))).toEqual([]);
    const message = snapshotMessage(["big.bin", "dir/huge file.iso"], 2048);
    expect(message).toBe("tine snapshot\n\nskipped (over 2048 bytes):\nbig.bin\ndir/huge file.iso\n");
    expect(skippedInMessage(message)).toEqual(["big.bin", "dir/huge file.iso"]);
  });

  it("diff-tree's raw and numstat fields become one change per file; a binary file has no counts", () => {
    const out = [
      ":000000 100644 0000000 1111111 A",
      "new.txt",
      ":100644 000000 2222222 0000000 D",
      "gone.txt",
      ":100644 100644 3333333 4444444 M",
      "logo.png",
      "3\t0\tnew.txt",
      "0\t5\tgone.txt",
      "-\t-\tlogo.png",
    ];
    expect(parseChanges(out)).toEqual([
      { path: "new.txt", status: "added", added: 3, removed: 0 },
      { path: "gone.txt", status: "deleted", added: 0, removed: 5 },
      { path: "logo.png", status: "modified", added: null, removed: null },
    ]);
  });

  it("a file's diff starts at its first hunk; nothing differing gives no lines", () => {
    const text = "diff --git a/a b/a\nindex 1..2 100644\n--- a/a\n+++ b/a\n@@ -1 +1 @@\n-one\n+two\n";
    expect(hunksOf(text)).toEqual(["@@ -1 +1 @@", "-one", "+two"]);
    expect(hunksOf("")).toEqual([]);
  });

  it("ls-tree entries are kept for the paths asked for only", () => {
    const out = ["100644 blob aaa\ta.txt", "100755 blob bbb\tbin/run", "120000 blob ccc\tlink"];
    expect([...treeEntries(out, new Set(["bin/run", "link", "missing"]))]).toEqual([
      ["bin/run", { mode: "100755", sha: "bbb" }],
      ["link", { mode: "120000", sha: "ccc" }],
    ]);
  });

  it("cat-file --batch output gives each object's bytes, newlines inside them kept", () => {
    const out = Buffer.from("aaa blob 4\nx\ny\n\nbbb blob 0\n\n");
    const blobs = parseBatch(out);
    expect(blobs.get("aaa")!.toString()).toBe("x\ny\n");
    expect(blobs.get("bbb")!.length).toBe(0);
  });
});
