/**
 * The point of the seam: the same tool calls, handed two environments with different roots, act in
 * each one's own root and never in the other's; and inside or out (approval) is each one's own.
 */
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { needsApproval } from "./approval.ts";
import type { Environment } from "./environment.ts";
import { localEnvironment } from "./local-environment.ts";
import { runTool } from "./run.ts";

let rootA: string;
let rootB: string;
let envA: Environment;
let envB: Environment;
beforeEach(() => {
  rootA = mkdtempSync(join(tmpdir(), "tine-env-a-"));
  rootB = mkdtempSync(join(tmpdir(), "tine-env-b-"));
  writeFileSync(join(rootA, "which.txt"), "root A\n");
  writeFileSync(join(rootB, "which.txt"), "root B\n");
  envA = localEnvironment(rootA);
  envB = localEnvironment(rootB);
});
afterEach(() => {
  rmSync(rootA, { recursive: true, force: true });
  rmSync(rootB, { recursive: true, force: true });
});

const run = (env: Environment, name: string, input: unknown) => runTool(name, input, env, new AbortController().signal);

describe("two environments with different roots", () => {
  it("get_file and list_directory of a relative path read each one's own root", async () => {
    expect(await run(envA, "get_file", { path: "which.txt" })).toEqual({ text: "root A\n", isError: false });
    expect(await run(envB, "get_file", { path: "which.txt" })).toEqual({ text: "root B\n", isError: false });
    writeFileSync(join(rootB, "only-in-b.txt"), "");
    expect(await run(envA, "list_directory", { path: "." })).toEqual({ text: "which.txt", isError: false });
    expect(await run(envB, "list_directory", { path: "." })).toEqual({ text: "only-in-b.txt\nwhich.txt", isError: false });
  });

  it("bash_command starts in each one's own root, and what it writes lands there", async () => {
    expect(await run(envA, "bash_command", { command: "pwd -P; echo from-a > made.txt" })).toEqual({
      text: `${realpathSync(rootA)}\n`,
      isError: false,
    });
    expect(await run(envB, "bash_command", { command: "pwd -P" })).toEqual({ text: `${realpathSync(rootB)}\n`, isError: false });
    expect(readFileSync(join(rootA, "made.txt"), "utf8")).toBe("from-a\n");
    expect(existsSync(join(rootB, "made.txt"))).toBe(false);
  });

  it("edit_file edits and creates in each one's own root, leaving the other's files as they were", async () => {
    expect(await run(envA, "edit_file", { path: "which.txt", find: "root", replace: "edited" })).toEqual({
      text: "Edited which.txt",
      isError: false,
    });
    expect(readFileSync(join(rootA, "which.txt"), "utf8")).toBe("edited A\n");
    expect(readFileSync(join(rootB, "which.txt"), "utf8")).toBe("root B\n");

    expect((await run(envB, "edit_file", { path: "new.txt", find: "", replace: "in B\n" })).isError).toBe(false);
    expect(readFileSync(join(rootB, "new.txt"), "utf8")).toBe("in B\n");
    expect(existsSync(join(rootA, "new.txt"))).toBe(false);
  });

  it("resolves the model's relative path (the file a written-file notice names) against each one's root", () => {
    expect(envA.resolve("src/../which.txt")).toBe(join(rootA, "which.txt"));
    expect(envB.resolve("src/../which.txt")).toBe(join(rootB, "which.txt"));
    expect(envA.resolve(join(rootB, "which.txt"))).toBe(join(rootB, "which.txt"));
  });

  it("needsApproval: a read is inside relative to each one's root, and the other's root is outside", () => {
    // The two roots are siblings in the temporary folder, so each reaches the other with `..`.
    const fromA = `../${basename(rootB)}/which.txt`;
    const fromB = `../${basename(rootA)}/which.txt`;
    for (const [env, own, other, otherRelative] of [
      [envA, rootA, rootB, fromA],
      [envB, rootB, rootA, fromB],
    ] as const) {
      expect(needsApproval("get_file", { path: "which.txt" }, env, []), own).toBe(false);
      expect(needsApproval("get_file", { path: join(own, "which.txt") }, env, []), own).toBe(false);
      expect(needsApproval("get_file", { path: join(other, "which.txt") }, env, []), own).toBe(true);
      expect(needsApproval("list_directory", { path: otherRelative }, env, []), own).toBe(true);
    }
  });
});
