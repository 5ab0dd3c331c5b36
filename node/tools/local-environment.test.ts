/**
 * The local environment's own guarantees, asked directly rather than through a tool: a write never
 * goes through a link out of the root (even unasked), "create" never overwrites, a command whose
 * signal is already aborted never starts, and results come back as the contract shapes them.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Environment } from "./environment.ts";
import { localEnvironment } from "./local-environment.ts";

let dir: string;
let outside: string;
let env: Environment;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tine-local-"));
  outside = mkdtempSync(join(tmpdir(), "tine-local-outside-"));
  env = localEnvironment(dir);
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

const bytes = (text: string) => Buffer.from(text, "utf8");

describe("localEnvironment", () => {
  it("writeFile refuses a link out of the root even when the caller did not ask writeRefusal first", async () => {
    writeFileSync(join(outside, "secret.txt"), "keep me\n");
    symlinkSync(join(outside, "secret.txt"), join(dir, "link-out"));
    symlinkSync(outside, join(dir, "dir-out"));
    expect(env.writeRefusal("link-out")).toMatch(/leads outside the working directory through a symbolic link/);
    await expect(env.writeFile("link-out", bytes("changed"), "replace")).rejects.toThrow(/through a symbolic link/);
    await expect(env.writeFile("dir-out/new.txt", bytes("changed"), "create")).rejects.toThrow(/through a symbolic link/);
    expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("keep me\n");
    expect(existsSync(join(outside, "new.txt"))).toBe(false);
  });

  it("writeRefusal leaves paths outside the root to the approval, and links that stay inside alone", () => {
    mkdirSync(join(dir, "src"));
    symlinkSync(join(dir, "src"), join(dir, "link-in"));
    expect(env.writeRefusal("link-in/a.txt")).toBe(null);
    expect(env.writeRefusal(join(outside, "a.txt"))).toBe(null);
  });

  it('"create" writes a new file and never one that exists; "replace" overwrites', async () => {
    await env.writeFile("new.txt", bytes("first\n"), "create");
    expect(readFileSync(join(dir, "new.txt"), "utf8")).toBe("first\n");
    await expect(env.writeFile("new.txt", bytes("second\n"), "create")).rejects.toMatchObject({ code: "EEXIST" });
    expect(readFileSync(join(dir, "new.txt"), "utf8")).toBe("first\n");
    await env.writeFile("new.txt", bytes("third\n"), "replace");
    expect(readFileSync(join(dir, "new.txt"), "utf8")).toBe("third\n");
  });

  it("readFile reads relative to the root, and a missing file is ENOENT", async () => {
    writeFileSync(join(dir, "a.txt"), "a\n");
    expect((await env.readFile("a.txt", { bytes: 10, tool: "test" })).toString()).toBe("a\n");
    await expect(env.readFile("missing.txt", { bytes: 10, tool: "test" })).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("listDirectory tells directories from files", async () => {
    mkdirSync(join(dir, "sub"));
    writeFileSync(join(dir, "f"), "");
    const entries = [...(await env.listDirectory("."))].sort((x, y) => x.name.localeCompare(y.name));
    expect(entries).toEqual([
      { name: "f", isDirectory: false },
      { name: "sub", isDirectory: true },
    ]);
  });

  it("runCommand: an already aborted signal starts nothing; otherwise output and how it ended", async () => {
    const aborted = new AbortController();
    aborted.abort();
    await expect(env.runCommand("touch started", aborted.signal)).rejects.toThrow("The command was aborted before it started.");
    expect(existsSync(join(dir, "started"))).toBe(false);
    expect(await env.runCommand("echo out; exit 2", new AbortController().signal)).toEqual({
      output: "out\n",
      end: { type: "exited", code: 2, signal: null, leftBehind: false },
    });
  });
});
