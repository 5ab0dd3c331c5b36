import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, watch } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { gitProject, writeFiles } from "../../test/helpers/git-project.ts";
import { GitError } from "../tools/git.ts";
import { gitEnv, localGit } from "../tools/local-git.ts";
import { SnapshotRepo } from "./repo.ts";
import { lockInside } from "./stale-lock.ts";

const dirs: string[] = [];
const holders: ChildProcess[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const p of holders.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function temp(): string {
  const d = mkdtempSync(join(tmpdir(), "tine-lock-"));
  dirs.push(d);
  return d;
}

/** A project with one snapshot taken (its store's index written), and the host's log lines from now on. */
async function store() {
  const root = temp();
  gitProject(root, { "a.txt": "one\n" });
  const repo = await SnapshotRepo.open(root, temp(), 2 * 1024 * 1024, localGit);
  await repo.take("t");
  const log: string[] = [];
  const logged = new Set<(line: string) => void>();
  vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    const line = String(chunk);
    log.push(line);
    for (const f of logged) f(line);
    return true;
  });
  /** Resolves once the log has a line matching `re`. */
  const logs = (re: RegExp) =>
    new Promise<void>((resolve) => {
      if (log.some((l) => re.test(l))) return resolve();
      const f = (line: string) => {
        if (re.test(line)) resolve();
      };
      logged.add(f);
    });
  return { root, repo, index: repo.viewIndex(root), log, logs };
}

/** A real git holding the store's index lock, as a host's snapshot does while it runs: `update-index --stdin` waiting for its input. */
async function holdIndex(repo: SnapshotRepo, index: string): Promise<ChildProcess> {
  const git = spawn("git", ["update-index", "-z", "--add", "--stdin"], {
    cwd: repo.root,
    env: gitEnv({ GIT_DIR: repo.gitDir, GIT_WORK_TREE: repo.root, GIT_INDEX_FILE: index }),
    stdio: ["pipe", "ignore", "ignore"],
  });
  holders.push(git);
  await appears(`${index}.lock`);
  return git;
}

/** Resolves once `path` exists (its folder watched). */
function appears(path: string): Promise<void> {
  return new Promise((resolve) => {
    const watcher = watch(dirname(path), () => {
      if (existsSync(path)) done();
    });
    const done = () => {
      watcher.close();
      resolve();
    };
    if (existsSync(path)) done();
  });
}

const ended: [() => void, () => void] = [() => {}, () => {}];

const exited = (p: ChildProcess) =>
  new Promise<number | string>((resolve) => {
    if (p.exitCode !== null || p.signalCode !== null) resolve(p.exitCode ?? p.signalCode!);
    else p.on("exit", (code, signal) => resolve(code ?? signal!));
  });

describe("an earlier host's lock on tine's snapshot store", () => {
  it("left by a killed git (kill -9): the next snapshot removes it, says so in the log, and holds the files", async () => {
    const { root, repo, index, log } = await store();
    const git = await holdIndex(repo, index);
    git.kill("SIGKILL");
    expect(await exited(git)).toBe("SIGKILL");
    expect(existsSync(`${index}.lock`)).toBe(true);
    writeFiles(root, { "a.txt": "two\n" });
    const taken = await repo.take("t");
    expect((await repo.read(taken.id, ["a.txt"])).get("a.txt")!.bytes.toString()).toBe("two\n");
    expect(existsSync(`${index}.lock`)).toBe(false);
    expect(log.join("")).toContain(`tine: removed ${index}.lock: a stale git lock on tine's snapshot store`);
  });

  it("held by a live git that then finishes: the snapshot waits for it, then holds the files; the lock is never taken from it", async () => {
    const { root, repo, index, log, logs } = await store();
    const git = await holdIndex(repo, index);
    writeFiles(root, { "a.txt": "three\n" });
    const taking = repo.take("t");
    // A snapshot that does not wait ends (failed, or taken) first.
    let waited = false;
    const waiting = logs(/is held by git \(pid \d+.*\): waiting for it/).then(() => {
      waited = true;
    });
    await Promise.race([waiting, taking.then(...ended)]);
    expect(waited).toBe(true);
    git.stdin!.end();
    const taken = await taking;
    expect(await exited(git)).toBe(0);
    expect((await repo.read(taken.id, ["a.txt"])).get("a.txt")!.bytes.toString()).toBe("three\n");
    expect(log.join("")).not.toContain("removed");
  });

  it("only locks inside tine's snapshot folder are its business: the user's repository's are never", () => {
    const refused = (path: string) => new GitError(["update-index"], 128, `fatal: Unable to create '${path}': File exists.\n`);
    expect(lockInside(refused("/data/snapshots/p.index.lock"), "/data/snapshots")).toBe("/data/snapshots/p.index.lock");
    expect(lockInside(refused("/home/u/project/.git/index.lock"), "/data/snapshots")).toBeNull();
    expect(lockInside(refused("/data/snapshots-other/x.lock"), "/data/snapshots")).toBeNull();
    expect(lockInside(new Error("Unable to create '/data/snapshots/p.index.lock': File exists"), "/data/snapshots")).toBeNull();
  });
});
