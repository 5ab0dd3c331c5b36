/**
 * The sandbox against real escapes, with the real bubblewrap, real git (a real `git worktree
 * add`), real processes and a real TCP server: each escape must fail, seen from the host (the
 * file not there, the server not reached, the process gone), and the same thing done inside the
 * worktree must work. Everything lives under /var/tmp, not /tmp: the sandbox's own /tmp is
 * private, so a path under the host's /tmp would be out of reach for that reason alone.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pidsRunning, until } from "../../test/helpers/processes.ts";
import { needsApproval, outsideConfinement } from "../tools/approval.ts";
import type { Environment } from "../tools/environment.ts";
import { localEnvironment } from "../tools/local-environment.ts";
import { sandboxAvailable } from "./bwrap.ts";
import { openSandbox, type SandboxSettings } from "./sandbox-environment.ts";

let base: string;
let repo: string;
let wt: string;
let outside: string;
let home: string;
let data: string;
let settings: SandboxSettings;
let env: Environment;

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { cwd, encoding: "utf8" });
const run = (command: string, on: Environment = env) => on.runCommand(command, new AbortController().signal);
const bytes = (text: string) => Buffer.from(text, "utf8");

beforeAll(() => {
  const available = sandboxAvailable();
  if (!available.ok) throw new Error(`the sandbox tests need bubblewrap: ${available.reason}; ${available.fix} (package: bubblewrap)`);
  base = mkdtempSync("/var/tmp/tine-sandbox-");
  repo = join(base, "repo");
  wt = join(base, "wt");
  outside = join(base, "outside");
  home = join(base, "home");
  data = join(base, "data");
  for (const d of [repo, outside, join(home, ".ssh"), data]) mkdirSync(d, { recursive: true });
  writeFileSync(join(home, ".ssh", "id_ed25519"), "SECRET-SSH-KEY\n");
  writeFileSync(join(home, ".ssh", "..dotted"), "SECRET-DOTTED\n"); // a name that starts with "..", still inside
  writeFileSync(join(home, "notes.txt"), "visible notes\n");
  mkdirSync(join(home, "private"));
  writeFileSync(join(home, "private", "diary.txt"), "SECRET-DIARY\n");
  writeFileSync(join(data, "transcript.json"), "SECRET-TRANSCRIPT\n");
  git(repo, "init", "-q", "-b", "main");
  writeFileSync(join(repo, "a.txt"), "a\n");
  git(repo, "add", "a.txt");
  git(repo, "commit", "-qm", "first");
  git(repo, "worktree", "add", "-q", "-b", "fork", wt);
  settings = { root: wt, dataDir: data, home, denyRead: ["~/private"], limits: { bashTimeoutSec: 30, envDeny: ["MY_DENIED_TOKEN"] } };
  const opened = openSandbox(settings);
  if (!opened.ok) throw new Error(opened.reason);
  env = opened.environment;
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe("the sandboxed environment", () => {
  it("writes inside the worktree, by command and by the file tools", async () => {
    const r = await run("echo made > inside.txt && cat inside.txt");
    expect(r.end).toEqual({ type: "exited", code: 0, signal: null, leftBehind: false });
    expect(readFileSync(join(wt, "inside.txt"), "utf8")).toBe("made\n");
    await env.writeFile("tool.txt", bytes("by tool"), "create");
    expect(readFileSync(join(wt, "tool.txt"), "utf8")).toBe("by tool");
  });

  it("refuses a write outside the worktree by path, by .. and after remounting / (as root too)", async () => {
    const byPath = await run(`echo x > ${outside}/by-path`);
    const byDots = await run("echo x > ../outside/by-dots");
    const remounted = await run(`mount -o remount,rw / ; echo x > ${outside}/remounted`);
    for (const r of [byPath, byDots, remounted]) {
      expect(r.output).toMatch(/Read-only file system/);
      expect(r.end).toMatchObject({ type: "exited", code: 1 });
    }
    await expect(env.writeFile("../outside/tool", bytes("x"), "create")).rejects.toThrow(/outside what this sandboxed thread may write/);
    expect(readdirSync(outside)).toEqual([]);
  });

  it("refuses a write through a link planted in the worktree, by the user or by the command itself", async () => {
    symlinkSync(outside, join(wt, "planted"));
    const planted = await run("echo x > planted/by-link");
    const own = await run(`ln -s ${outside} own && echo x > own/by-own-link`);
    for (const r of [planted, own]) expect(r.output).toMatch(/Read-only file system/);
    expect(env.writeRefusal("planted/tool")).toMatch(/symbolic link/);
    await expect(env.writeFile("own/tool", bytes("x"), "create")).rejects.toThrow(/symbolic link/);
    expect(readdirSync(outside)).toEqual([]);
  });

  it("hides ~/.ssh, tine's data folder and what sandbox_deny_read names, from commands and from the file tools", async () => {
    const r = await run(
      `cat ${home}/notes.txt; cat ${home}/.ssh/id_ed25519; ls -A ${home}/.ssh; cat ${data}/transcript.json; cat ~/private/diary.txt ${home}/private/diary.txt`,
    );
    expect(r.output).toContain("visible notes"); // the home folder itself is there to read
    expect(r.output).not.toContain("SECRET");
    const limit = { bytes: 1000, tool: "view_file" };
    await expect(env.readFile(join(home, ".ssh/id_ed25519"), limit)).rejects.toThrow(/hidden from this sandboxed thread/);
    await expect(env.readFile(join(data, "transcript.json"), limit)).rejects.toThrow(/hidden/);
    await expect(env.readFile(join(home, ".ssh", "..dotted"), limit)).rejects.toThrow(/hidden/);
    await expect(env.listDirectory(join(home, "private"))).rejects.toThrow(/hidden/);
  });

  it("reaches no server on 127.0.0.1 (one the same command reaches unsandboxed)", async () => {
    let connections = 0;
    const server: Server = createServer((socket) => {
      connections++;
      socket.end("hello\n");
    });
    await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
    const port = (server.address() as { port: number }).port;
    try {
      const connect = `exec 3<>/dev/tcp/127.0.0.1/${port} && head -1 <&3`;
      const sandboxed = await run(connect);
      expect(sandboxed.output).not.toContain("hello");
      expect(sandboxed.end).toMatchObject({ type: "exited", code: 1 });
      expect(connections).toBe(0);
      const unsandboxed = await run(connect, localEnvironment(wt));
      expect(unsandboxed.output).toContain("hello");
      expect(connections).toBe(1);
      // Approved for that command (bash_command's `network`): it has the host's network, its files still confined.
      const approved = await run(`${connect}; echo x > ${outside}/with-network`, env.confinement!.approved);
      expect(approved.output).toContain("hello");
      expect(approved.output).toMatch(/Read-only file system/);
      expect(connections).toBe(2);
      expect(existsSync(join(outside, "with-network"))).toBe(false);
    } finally {
      server.close();
    }
  });

  it("reaches no unix socket in the host's /tmp (where ssh-agent's is; one reached unsandboxed)", async () => {
    const folder = mkdtempSync(join(tmpdir(), "tine-agent-"));
    const path = join(folder, "agent.sock");
    let connections = 0;
    const server: Server = createServer((socket) => {
      connections++;
      socket.end();
    });
    await new Promise<void>((ready) => server.listen(path, ready));
    try {
      const connect = `${process.execPath} -e 'require("net").connect(process.argv[1]).on("connect", () => console.log("connected")).on("error", (e) => console.log(e.code))' ${path}`;
      expect((await run(connect)).output).not.toContain("connected");
      expect(connections).toBe(0);
      expect((await run(connect, localEnvironment(wt))).output).toContain("connected");
    } finally {
      server.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it("commits from the worktree but never writes the repository's hooks/ or config, nor the worktree's .git", async () => {
    const commit = await run(
      "echo c > c.txt && git add c.txt && git -c user.name=t -c user.email=t@example.com commit -qm from-sandbox && echo ok",
    );
    expect(commit.output).toContain("ok");
    expect(git(repo, "log", "-1", "--format=%s", "fork").trim()).toBe("from-sandbox");
    const hook = await run(`echo 'touch ${outside}/ran' > ${repo}/.git/hooks/post-commit`);
    const config = await run("git config core.hooksPath /var/tmp");
    const dotGit = await run(`echo 'gitdir: ${outside}' > .git`);
    for (const r of [hook, config, dotGit]) expect(r.end).not.toMatchObject({ code: 0 });
    expect(existsSync(join(repo, ".git/hooks/post-commit"))).toBe(false);
    expect(readFileSync(join(repo, ".git/config"), "utf8")).not.toContain("hooksPath");
    expect(readFileSync(join(wt, ".git"), "utf8")).toMatch(/^gitdir: .*worktrees/);
    await expect(env.writeFile(join(repo, ".git/hooks/pre-commit"), bytes("x"), "create")).rejects.toThrow(/may write/);
    await expect(env.writeFile(".git", bytes("gitdir: /x"), "replace")).rejects.toThrow(/may write/);
  });

  it("in a repository's own checkout, commits but never writes .git/hooks or .git/config", async () => {
    const opened = openSandbox({ ...settings, root: repo });
    if (!opened.ok) throw new Error(opened.reason);
    const inRepo = opened.environment;
    const commit = await run(
      "echo r > r.txt && git add r.txt && git -c user.name=t -c user.email=t@example.com commit -qm in-repo && echo ok",
      inRepo,
    );
    expect(commit.output).toContain("ok");
    const hook = await run("echo 'touch /var/tmp/ran' > .git/hooks/pre-commit", inRepo);
    const config = await run("git config core.fsmonitor 'touch /var/tmp/ran'", inRepo);
    // The linked worktree's commondir says which config git reads there.
    const commondir = await run("echo /var/tmp > .git/worktrees/wt/commondir", inRepo);
    for (const r of [hook, config, commondir]) expect(r.end).not.toMatchObject({ code: 0 });
    expect(readFileSync(join(repo, ".git/worktrees/wt/commondir"), "utf8")).toBe("../..\n");
    expect(existsSync(join(repo, ".git/hooks/pre-commit"))).toBe(false);
    expect(readFileSync(join(repo, ".git/config"), "utf8")).not.toContain("fsmonitor");
    await expect(inRepo.writeFile(".git/config", bytes("[core]"), "replace")).rejects.toThrow(/may write/);
  });

  it("works in a worktree inside tine's data folder (where forks' worktrees go) while the rest of it stays hidden", async () => {
    const inData = join(data, "worktrees", "wt2");
    git(repo, "worktree", "add", "-q", "-b", "fork2", inData);
    const opened = openSandbox({ ...settings, root: inData });
    if (!opened.ok) throw new Error(opened.reason);
    const r = await run(
      `echo made > made.txt && git add made.txt && git -c user.name=t -c user.email=t@example.com commit -qm in-data && echo ok; cat ${data}/transcript.json`,
      opened.environment,
    );
    expect(r.output).toContain("ok");
    expect(r.output).not.toContain("SECRET");
    expect(readFileSync(join(inData, "made.txt"), "utf8")).toBe("made\n");
    await opened.environment.writeFile("tool.txt", bytes("by tool"), "create");
    await expect(opened.environment.readFile(join(data, "transcript.json"), { bytes: 100, tool: "view_file" })).rejects.toThrow(/hidden/);
  });

  it("never has ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN or a tool_env_deny variable in its environment", async () => {
    const saved = { ...process.env };
    Object.assign(process.env, { ANTHROPIC_API_KEY: "sk-SECRET-1", ANTHROPIC_AUTH_TOKEN: "SECRET-2", MY_DENIED_TOKEN: "SECRET-3" });
    try {
      const r = await run("env; cat /proc/self/environ");
      expect(r.output).not.toContain("SECRET");
      expect(r.output).toContain("PATH=");
    } finally {
      for (const k of ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "MY_DENIED_TOKEN"]) {
        if (saved[k] === undefined) delete process.env[k];
        else process.env[k] = saved[k];
      }
    }
  });

  it("leaves nothing running after abort, the command's exit or the time limit, not even a process that left its group", async () => {
    const tag = 3000 + Math.floor(Math.random() * 1000);
    const controller = new AbortController();
    const aborted = env.runCommand(`sleep ${tag}.1 & setsid sleep ${tag}.2 & wait`, controller.signal);
    await until("both sleeps to start", () => pidsRunning(`sleep ${tag}.`).length === 2);
    controller.abort();
    expect((await aborted).end).toEqual({ type: "aborted" });
    expect(pidsRunning(`sleep ${tag}.`)).toEqual([]);

    const exited = await run(`setsid sleep ${tag}.5 & echo started`);
    expect(exited.end).toMatchObject({ type: "exited", code: 0 });
    expect(pidsRunning(`sleep ${tag}.`)).toEqual([]);

    const opened = openSandbox({ ...settings, limits: { bashTimeoutSec: 1, envDeny: [] } });
    if (!opened.ok) throw new Error(opened.reason);
    const timed = await opened.environment.runCommand(`setsid sleep ${tag}.3 & sleep ${tag}.4`, new AbortController().signal);
    expect(timed.end).toEqual({ type: "timed-out", afterSec: 1 });
    expect(pidsRunning(`sleep ${tag}.`)).toEqual([]);
  });
});

describe("a worktree whose repository borrows objects (alternates, as tine's worktrees do)", () => {
  it("runs git inside though the project is under the host's /tmp; a planted alternates line shows nothing hidden", async () => {
    const project = mkdtempSync(join(tmpdir(), "tine-borrowed-"));
    try {
      git(project, "init", "-q", "-b", "main");
      writeFileSync(join(project, "p.txt"), "p\n");
      git(project, "add", "p.txt");
      git(project, "commit", "-qm", "in tmp");
      const clone = join(base, "borrowing");
      git(base, "clone", "-q", "--shared", project, clone);
      // A planted line naming a hidden folder made to look like a repository's objects: never shown.
      mkdirSync(join(home, ".ssh", "objects"), { recursive: true });
      writeFileSync(join(home, ".ssh", "HEAD"), "ref: refs/heads/main\n");
      const alternates = join(clone, ".git", "objects", "info", "alternates");
      writeFileSync(alternates, `${readFileSync(alternates, "utf8")}${join(home, ".ssh", "objects")}\n`);
      const opened = openSandbox({ ...settings, root: clone });
      if (!opened.ok) throw new Error(opened.reason);
      const r = await run(`git log -1 --format=%s && git status --short && echo listed && ls -A ${join(home, ".ssh")}`, opened.environment);
      // git says the planted folder is missing (it is hidden), and goes on with the project's objects.
      expect(r.output).toMatch(/object directory .*\.ssh\/objects does not exist/);
      expect(r.output).toMatch(/\nin tmp\n(?:[\s\S]*\n)?listed\n$/);
      expect(r.output).not.toContain("id_ed25519");
      expect(r.end).toMatchObject({ type: "exited", code: 0 });
    } finally {
      rmSync(project, { recursive: true, force: true });
      rmSync(join(home, ".ssh", "objects"), { recursive: true, force: true });
      rmSync(join(home, ".ssh", "HEAD"), { force: true });
    }
  });
});

describe("approvals in the sandbox (tools/approval.ts)", () => {
  const configured = ["bash_command", "edit_file", "get_file", "list_directory"];
  const waits = (name: string, input: object) => needsApproval(name, input, env, configured) !== false;

  it("nothing inside waits, not even the tools tools_needing_approval names", () => {
    expect(waits("bash_command", { command: `echo x > ${outside}/refused-anyway` })).toBe(false);
    expect(waits("edit_file", { path: "a.txt", find: "a", replace: "b" })).toBe(false);
    expect(waits("edit_file", { path: "new/deep.txt", find: "", replace: "b" })).toBe(false);
    // A read elsewhere is one its commands could make too.
    expect(waits("get_file", { path: "/etc/hostname" })).toBe(false);
    expect(waits("list_directory", { path: home })).toBe(false);
  });

  it("a call that leaves it waits, and says why: a write outside, a hidden read, the network", () => {
    symlinkSync(outside, join(wt, "approval-link"));
    const confinement = env.confinement!;
    for (const path of [`${outside}/x.txt`, "../outside/x.txt", "approval-link/x.txt", ".git/hooks/pre-commit", ".git/config"]) {
      expect(waits("edit_file", { path, find: "", replace: "x" }), path).toBe(true);
      expect(outsideConfinement("edit_file", { path }, confinement), path).toMatch(/outside what this sandboxed thread may write/);
    }
    for (const path of [join(home, ".ssh", "id_ed25519"), join(home, "private"), join(data, "transcript.json")]) {
      expect(waits("get_file", { path }), path).toBe(true);
      expect(outsideConfinement("list_directory", { path }, confinement), path).toMatch(/hidden from this sandboxed thread/);
    }
    expect(waits("bash_command", { command: "curl example.com", network: true })).toBe(true);
    expect(outsideConfinement("bash_command", { command: "x", network: true }, confinement)).toMatch(/asks for the network/);
  });

  it("an approved edit outside is written by the host where the user allowed it, never through a planted link", async () => {
    const approved = env.confinement!.approved;
    await approved.writeFile(join(outside, "approved.txt"), bytes("yes"), "create");
    expect(readFileSync(join(outside, "approved.txt"), "utf8")).toBe("yes");
    symlinkSync(outside, join(wt, "approved-link"));
    await expect(approved.writeFile("approved-link/through.txt", bytes("x"), "create")).rejects.toThrow(/symbolic link/);
    expect(existsSync(join(outside, "through.txt"))).toBe(false);
    rmSync(join(outside, "approved.txt"));
  });
});
