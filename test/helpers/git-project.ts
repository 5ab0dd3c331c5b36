/**
 * Real git repositories for the snapshot tests: a project folder made a repository with a first
 * commit, and the state of the user's repository that tine must never change (status, the index
 * file's bytes, every ref, the config), to compare before and after.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** Runs git in `cwd` as a user would (their environment, no GIT_* of the test runner's). */
export function gitIn(cwd: string, ...args: string[]): string {
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith("GIT_")) delete env[k];
  return execFileSync("git", args, {
    cwd,
    env: { ...env, GIT_AUTHOR_NAME: "u", GIT_AUTHOR_EMAIL: "u@x", GIT_COMMITTER_NAME: "u", GIT_COMMITTER_EMAIL: "u@x" },
    encoding: "utf8",
  });
}

/** Writes `files` (path → text) under `root`, making folders as needed. */
export function writeFiles(root: string, files: Record<string, string | Buffer>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

/**
 * Makes `root` a git repository holding `files`, committed. Ignores the folders the integration
 * tests keep Neovim's state and tine's data in (they live inside the project folder there).
 */
export function gitProject(root: string, files: Record<string, string | Buffer> = {}): void {
  writeFiles(root, { ".gitignore": ".state/\n.config/\n.data/\n.claude-config/\n", ...files });
  gitIn(root, "init", "-q", "-b", "main");
  gitIn(root, "add", "-A");
  // No background gc (10,000 loose objects would start one): it would still write as the folder is removed.
  gitIn(root, "-c", "gc.auto=0", "commit", "-q", "-m", "first");
}

/** What tine must leave as it was in the user's repository. */
export type UserGitState = { status: string; index: string; refs: string; config: string; head: string };

export function userGitState(root: string): UserGitState {
  // Read before `status`, which (without --no-optional-locks) may refresh the index itself.
  const index = readFileSync(join(root, ".git", "index")).toString("base64");
  return {
    status: gitIn(root, "--no-optional-locks", "status", "--porcelain", "--untracked-files=all"),
    index,
    refs: gitIn(root, "for-each-ref"),
    config: readFileSync(join(root, ".git", "config"), "utf8"),
    head: readFileSync(join(root, ".git", "HEAD"), "utf8"),
  };
}

/** The ids of the git processes running in folder `root` now (Linux: read from /proc). */
export function gitProcessesIn(root: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, "utf8").trim() === "git" && realpathSync(`/proc/${entry}/cwd`) === realpathSync(root))
        pids.push(Number(entry));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return pids;
}
