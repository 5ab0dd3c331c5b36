import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { gitProcessesIn } from "../../test/helpers/git-project.ts";
import { tempFolders } from "../../test/helpers/temp-folders.ts";
import { GitTimeout } from "./git.ts";
import { localGit as git } from "./local-git.ts";

const folder = tempFolders("tine-git-");

describe("git", () => {
  it("past its time limit, git is killed and the call rejects with a GitTimeout", async () => {
    const root = folder();
    execFileSync("git", ["init", "-q"], { cwd: root });
    // An include read from a FIFO nobody writes: git waits on it forever.
    const fifo = join(root, ".git", "blocking");
    execFileSync("mkfifo", [fifo]);
    execFileSync("git", ["config", "include.path", fifo], { cwd: root });
    const started = Date.now();
    await expect(git(["rev-parse", "--show-toplevel"], { cwd: root, user: true, timeoutMs: 200 })).rejects.toThrow(GitTimeout);
    expect(Date.now() - started).toBeLessThan(5000);
    // Killed, not left waiting (once the kill has landed).
    for (let i = 0; i < 100 && gitProcessesIn(root).length; i++) await new Promise((r) => setTimeout(r, 20));
    expect(gitProcessesIn(root)).toEqual([]);
  });
});
