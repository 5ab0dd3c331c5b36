import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readSession } from "./sessions.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tine-sessions-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("a session read for import", () => {
  it("whose only prompt is on a line too long to read says which line and how long, not just that it holds nothing", () => {
    const path = join(dir, "s.jsonl");
    const prompt = { parentUuid: null, type: "user", message: { role: "user", content: "x".repeat(33 * 1024 * 1024) }, uuid: "u1" };
    writeFileSync(path, `{"type":"queue-operation"}\n${JSON.stringify(prompt)}\n`);
    expect(() => readSession(path)).toThrow(
      `tine: ${path} holds no conversation to import (left out: line 2: 33.0 MB long, more than the 32.0 MB a line may hold)`,
    );
  });
});
