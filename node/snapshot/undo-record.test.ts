import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempFolders } from "../../test/helpers/temp-folders.ts";
import { readUndo, writeUndo } from "./undo-record.ts";

const temp = tempFolders("tine-undo-");
const SHA = "a".repeat(40);

describe("the kept undo of a restore", () => {
  it("is read back as written, and gone once cleared", () => {
    const file = join(temp(), "tine-undo.json");
    expect(readUndo(file)).toBeNull();
    writeUndo(file, { kind: "snapshot", safety: SHA, paths: ["a.txt", "src/b.ts"] });
    expect(readUndo(file)).toEqual({ kind: "snapshot", safety: SHA, paths: ["a.txt", "src/b.ts"] });
    const files = [
      { path: "big.txt", file: { mode: "100755", bytes: Buffer.from("a\0b\n") } },
      { path: "gone.txt", file: null },
    ];
    writeUndo(file, { kind: "files", safety: SHA, files });
    expect(readUndo(file)).toEqual({ kind: "files", safety: SHA, files });
    // One kept before undos of kept files were: a snapshot's.
    writeFileSync(file, JSON.stringify({ safety: SHA, paths: ["a.txt"] }));
    expect(readUndo(file)).toEqual({ kind: "snapshot", safety: SHA, paths: ["a.txt"] });
    writeUndo(file, null);
    expect(readUndo(file)).toBeNull();
  });

  it("undoes nothing when the file names a path outside the project or is not a snapshot's", () => {
    const file = join(temp(), "tine-undo.json");
    for (const bad of [
      { safety: SHA, paths: ["../outside.txt"] },
      { safety: SHA, paths: ["/etc/passwd"] },
      { safety: "--upload-pack=x", paths: ["a.txt"] },
      { safety: SHA, paths: "a.txt" },
      { kind: "files", safety: SHA, files: [{ path: "../x", mode: "100644", base64: "" }] },
      { kind: "files", safety: SHA, files: [{ path: "a.txt", mode: "040000", base64: "" }] },
      { kind: "files", safety: SHA, files: [{ path: "a.txt", mode: "100644" }] },
      { kind: "other", safety: SHA, paths: ["a.txt"] },
    ]) {
      writeFileSync(file, JSON.stringify(bad));
      expect(readUndo(file)).toBeNull();
    }
    writeFileSync(file, "not json");
    expect(readUndo(file)).toBeNull();
  });
});
