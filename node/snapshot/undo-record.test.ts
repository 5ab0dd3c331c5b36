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
    writeUndo(file, { safety: SHA, paths: ["a.txt", "src/b.ts"] });
    expect(readUndo(file)).toEqual({ safety: SHA, paths: ["a.txt", "src/b.ts"] });
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
    ]) {
      writeFileSync(file, JSON.stringify(bad));
      expect(readUndo(file)).toBeNull();
    }
    writeFileSync(file, "not json");
    expect(readUndo(file)).toBeNull();
  });
});
