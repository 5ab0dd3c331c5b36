import assert from "node:assert/strict";
import { closeSync, mkdirSync, mkdtempSync, openSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, it } from "vitest";
import { endOfLastLine, isOpenedAt, openRegular } from "./regular-file.ts";

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

describe("isOpenedAt", () => {
  // A project whose folder `docs` was swapped for a link to a folder outside after its path was checked.
  const top = realpathSync(mkdtempSync(join(tmpdir(), "tine-opened-")));
  afterAll(() => rmSync(top, { recursive: true, force: true }));
  const [project, outside] = [join(top, "project"), join(top, "outside")];
  mkdirSync(project);
  mkdirSync(outside);
  writeFileSync(join(outside, "AGENTS.md"), "outside\n");
  symlinkSync(outside, join(project, "docs"));
  const checked = join(project, "docs", "AGENTS.md");

  for (const [how, procFds] of [
    ["as /proc names it", undefined],
    ["without /proc: the path resolved again, and the same file", join(top, "no-proc")],
  ] as const) {
    it(`tells a file opened through a folder swapped for a link from the one checked (${how})`, () => {
      const fd = openSync(checked, "r");
      try {
        assert.equal(isOpenedAt(fd, checked, procFds), false, "opened elsewhere than the path checked");
        assert.equal(isOpenedAt(fd, join(outside, "AGENTS.md"), procFds), true, "where it is");
      } finally {
        closeSync(fd);
      }
    });
  }
});
