/**
 * The host as Neovim goes, quitting or killed: it stops the gits it started (the project's first
 * snapshot being written included) and exits within a second. Nothing of it works in the project
 * afterwards, and its snapshot store is left whole: the next session snapshots as before.
 */
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { typeAndSend } from "../helpers/chat-driver.ts";
import { editingTurn, HELLO, withGitProject } from "../helpers/code-session.ts";
import { gitProject } from "../helpers/git-project.ts";
import { hostExited, ROOT, type Session, tempProjects } from "../helpers/neovim.ts";
import { workingIn } from "../helpers/processes.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");
const project = tempProjects();

/** A git project with 10,000 untracked files: its first snapshot hashes each, for a second or two. */
function largeProject(): string {
  const cwd = project();
  gitProject(cwd, { "hello.txt": HELLO });
  for (let d = 0; d < 10; d++) {
    mkdirSync(join(cwd, `d${d}`));
    for (let f = 0; f < 1000; f++) writeFileSync(join(cwd, `d${d}`, `f${f}.txt`), `file ${d}/${f} ${"x".repeat(200)}\n`);
  }
  return cwd;
}

/** Every file under `dir` whose name ends in .lock (a git that was cut off leaves its lock). */
function locksIn(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".lock"));
}

const ways: Record<string, (s: Session) => Promise<void>> = {
  "quits (:qa!)": async (s) => {
    void s.nvim.command("qa!").catch(() => {});
    await s.waitForExit();
  },
  "is killed (kill -9)": (s) => s.killNeovim(),
};

describe(`the host as Neovim goes (${nv.version})`, () => {
  for (const [how, end] of Object.entries(ways))
    it(`Neovim ${how} while a large project's first snapshot is written: the host stops its gits and exits within a second; the store stays whole`, async () => {
      const cwd = largeProject();
      await withGitProject(nv, cwd, async (s) => {
        s.mock.reply(response([{ text: "Thinking." }, { hold: "reply" }]), textReply("Done."));
        await s.cmd("Tine");
        // The first send begins the project's first snapshot, in the background.
        await typeAndSend(s, "hi");
        await s.mock.reached("reply");
        const host = await s.hostPid();
        await s.until(
          "the first snapshot's git hashing the files",
          async () => workingIn(cwd).some((c) => c.includes("update-index")),
          20_000,
        );
        await end(s);
        const took = await hostExited(host, 1000);
        assert.deepEqual(workingIn(cwd), [], `nothing works in the project once the host exited (${took} ms after Neovim went)`);
      });
      const snapshots = join(cwd, ".data", "nvim", "tine", "snapshots");
      assert.deepEqual(locksIn(snapshots), [], "no git of the store was cut off holding its lock");
      const store = readdirSync(snapshots).find((f) => f.endsWith(".git"))!;
      execFileSync("git", ["--git-dir", join(snapshots, store), "fsck", "--no-dangling"], { encoding: "utf8" });
      // The next session records a turn's changes as before (the many files gone: its first snapshot is quick).
      for (let d = 0; d < 10; d++) rmSync(join(cwd, `d${d}`), { recursive: true });
      await withGitProject(nv, cwd, async (s) => {
        await editingTurn(s);
      });
    });

  it("a line the host logs once Neovim's end of its stderr is closed (EPIPE) neither loops nor keeps it from exiting", async () => {
    // The real host, on pipes as Neovim's jobstart gives them; its stderr's reading end closed, as a killed Neovim leaves it.
    const host = spawn(process.execPath, [join(ROOT, "dist", "host.cjs")], { stdio: ["pipe", "pipe", "pipe"] });
    try {
      host.stderr.destroy();
      host.stdout.resume();
      // A msgpack-RPC notification of an unknown method: the host logs its failure to stderr.
      const method = Buffer.from("no_such_method");
      host.stdin.write(Buffer.concat([Buffer.from([0x93, 0x02, 0xa0 | method.length]), method, Buffer.from([0x90])]));
      // Neovim gone: its end of stdin closes too, and the host exits within a second.
      host.stdin.end();
      await hostExited(host.pid!, 3000);
    } finally {
      host.kill("SIGKILL");
    }
  });
});
