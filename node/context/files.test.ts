/**
 * A mention's read of a file judged inside the project: it reads the file at the real path that
 * was judged, never one a link swapped in since leads to (an agent's bash works in the same tree
 * while a send waits on other mentions).
 */
import { mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { localEnvironment } from "../tools/local-environment.ts";
import type { EditorFacts } from "./editor.ts";
import { placeOf, readText, Unreadable } from "./files.ts";

let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "tine-read-text-")));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const editor: EditorFacts = { source: null, buffers: [], diagnostics: [], quickfix: [], modified: new Map() };
const limits = { maxBytes: 10_000, maxFiles: 10, gitTimeoutMs: 10_000 };

describe("readText", () => {
  it("a file judged inside whose folder became a link outside before the read: refused, nothing of the outside file read", async () => {
    const [root, outside] = [join(dir, "project"), join(dir, "outside")];
    mkdirSync(join(root, "docs"), { recursive: true });
    mkdirSync(outside);
    writeFileSync(join(root, "docs", "notes.md"), "Inside.");
    writeFileSync(join(outside, "notes.md"), "OUTSIDE-SECRET");
    const environment = localEnvironment(root);
    const place = placeOf(environment, "docs/notes.md");
    expect(place).toMatchObject({ inside: true, target: join(root, "docs", "notes.md") });
    expect((await readText(environment, place, editor, limits)).text).toBe("Inside.");

    renameSync(join(root, "docs"), join(root, "docs-moved"));
    symlinkSync(outside, join(root, "docs"));
    const read = readText(environment, place, editor, limits);
    await expect(read).rejects.toBeInstanceOf(Unreadable);
    await expect(read).rejects.toThrow(/changed as it was opened \(a folder on its path became a link\)/);
  });

  it("a file judged inside that became a link itself: refused, not followed", async () => {
    const root = join(dir, "project");
    mkdirSync(root);
    writeFileSync(join(dir, "secret.txt"), "OUTSIDE-SECRET");
    writeFileSync(join(root, "notes.md"), "Inside.");
    const environment = localEnvironment(root);
    const place = placeOf(environment, "notes.md");
    rmSync(join(root, "notes.md"));
    symlinkSync(join(dir, "secret.txt"), join(root, "notes.md"));
    await expect(readText(environment, place, editor, limits)).rejects.toThrow(/notes\.md is a symbolic link/);
  });
});
