import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { needsApproval } from "./approval.ts";
import { localEnvironment } from "./local-environment.ts";

const root = mkdtempSync(join(tmpdir(), "tine-approval-"));
const cwd = join(root, "project");
mkdirSync(join(cwd, "src"), { recursive: true });
writeFileSync(join(cwd, "src", "a.ts"), "");
writeFileSync(join(root, "secret.txt"), "");
symlinkSync(join(root, "secret.txt"), join(cwd, "link-out"));
symlinkSync(join(cwd, "src"), join(cwd, "link-in"));
const env = localEnvironment(cwd);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("needsApproval", () => {
  it("reads inside the working directory run at once, also through .. that stays inside and links that point inside", () => {
    for (const path of ["src/a.ts", ".", "src/../src/a.ts", join(cwd, "src"), "link-in/a.ts", "new-file.txt"]) {
      expect(needsApproval("get_file", { path }, env, []), path).toBe(false);
    }
  });

  it("reads outside it wait for approval: .., absolute paths, /proc, links that point out", () => {
    for (const path of ["../secret.txt", join(root, "secret.txt"), "/proc/self/environ", "link-out", "src/../../secret.txt"]) {
      expect(needsApproval("get_file", { path }, env, []), path).toBe(true);
      expect(needsApproval("list_directory", { path }, env, []), path).toBe(true);
    }
  });

  it("configured tools always wait; others never do; a read without a path string waits", () => {
    expect(needsApproval("bash_command", { command: "ls" }, env, ["bash_command"])).toBe(true);
    expect(needsApproval("edit_file", { path: "src/a.ts" }, env, [])).toBe(false);
    expect(needsApproval("get_file", {}, env, [])).toBe(true);
  });
});
