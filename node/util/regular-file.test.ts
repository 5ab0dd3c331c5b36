import assert from "node:assert/strict";
import { closeSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, it } from "vitest";
import { endOfLastLine, openRegular } from "./regular-file.ts";

describe("endOfLastLine", () => {
  const dir = mkdtempSync(join(tmpdir(), "tine-regular-"));
  afterEach(() => rmSync(join(dir, "f"), { force: true }));
  const endOf = (text: string) => {
    writeFileSync(join(dir, "f"), text);
    const fd = openRegular(join(dir, "f"), "read");
    try {
      return endOfLastLine(fd);
    } finally {
      closeSync(fd);
    }
  };

  it("is the end of a file that ends with a newline, and just after the last newline of one cut mid-line", () => {
    assert.equal(endOf("a\nbb\n"), 5);
    assert.equal(endOf("a\nbb\nccc"), 5);
    assert.equal(endOf(""), 0);
    assert.equal(endOf("no newline at all"), 0);
  });

  it("finds the last newline behind a cut line longer than what it reads at once", () => {
    const head = `${"x".repeat(70_000)}\n`;
    assert.equal(endOf(head + "y".repeat(200_000)), head.length);
    assert.equal(endOf("z".repeat(150_000)), 0);
  });
});
