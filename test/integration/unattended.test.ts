/**
 * Unattended forks as a user meets them in real Neovim, real git and a real bubblewrap sandbox: an
 * `@bg!` fork's tools run in its worktree without approval, and what leaves the sandbox's policy
 * (the project's folder, ~/.ssh, tine's data, the host's /tmp, git's hooks) fails inside it; a call
 * that leaves the policy waits for approval, saying why, and once approved runs where the user
 * allowed (an edit written by the host, a command with the host's network); MCP tools wait as in
 * any thread; the list, banner and threads() mark it, also after a restart; where bwrap cannot
 * start, an unattended fork is refused with the reason and the fix, nothing made, and a stored one
 * works on attended.
 *
 * The project and the home folder live in /var/tmp, not /tmp: the sandbox has a private /tmp, so
 * a file under /tmp would be out of its reach whatever the policy said, and these tests could not fail.
 */
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, inject, it } from "vitest";
import { resultOf, sentBlocks, typeAndSend } from "../helpers/chat-driver.ts";
import { firstThread, HELLO } from "../helpers/code-session.ts";
import { gitProject } from "../helpers/git-project.ts";
import { testServer } from "../helpers/mcp.ts";
import { type Session, withNeovim } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");

const SECRET = "UNATTENDED-SSH-SECRET";
const BANNER = "🔒 unattended: its tools run in the sandbox, confined to its git worktree (nothing inside it waits for approval): ";

const folders: string[] = [];
afterEach(() => {
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});
/** A folder outside /tmp (see the header), removed after the test. */
function folder(prefix: string): string {
  const dir = mkdtempSync(join("/var/tmp", prefix));
  folders.push(dir);
  return dir;
}

/** A git project holding hello.txt, and a home folder whose ~/.ssh holds a key; Neovim (and its host, and bwrap) get that HOME. */
function world(): { cwd: string; home: string; env: Record<string, string> } {
  const cwd = folder("tine-unattended-");
  gitProject(cwd, { "hello.txt": HELLO });
  const home = folder("tine-home-");
  mkdirSync(join(home, ".ssh"));
  writeFileSync(join(home, ".ssh", "id_test"), `${SECRET}\n`, { mode: 0o600 });
  return { cwd, home, env: { HOME: home } };
}

/** A PATH whose first folder holds a `bwrap` that fails as bwrap does where user namespaces are off (as health.test.ts). */
function failingBwrap(): { PATH: string } {
  const bin = folder("tine-bwrap-");
  writeFileSync(join(bin, "bwrap"), "#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n");
  chmodSync(join(bin, "bwrap"), 0o755);
  return { PATH: `${bin}:${process.env["PATH"]}` };
}

/** The worktree folders made for this project so far. */
function worktrees(cwd: string): string[] {
  const dir = join(cwd, ".data", "nvim", "tine", "worktrees");
  return existsSync(dir) ? readdirSync(dir).flatMap((p) => readdirSync(join(dir, p))) : [];
}

/** A bash command (`label` first, to tell them apart on the display) that opens a TCP connection to the mock's port and says whether it got through. */
const reachMock = (s: Session, label: string) =>
  `: ${label}; (exec 3<>/dev/tcp/127.0.0.1/${new URL(s.mock.url).port}) 2>/dev/null && echo reached || echo unreachable`;

/** The request's tool results, by tool_use_id. */
function results(s: Session, req: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (const b of sentBlocks(s, req, -1)) if (b.type === "tool_result") out[b.tool_use_id] = String(resultOf(b));
  return out;
}

describe(`unattended forks (${nv.version})`, () => {
  it("@bg! in a thread: its tools run without approval in its worktree; the project and ~/.ssh are out of reach; list and threads() mark it", async () => {
    const { cwd, home, env } = world();
    await withNeovim(
      nv,
      async (s) => {
        const id = await firstThread(s);
        const transcripts = join(cwd, ".data", "nvim", "tine", "projects");
        // A private /tmp (not the host's), and the repository's hooks read-only (the host's git would run them).
        const probe = `tine-unattended-probe-${process.pid}-${Date.now()}`;
        const command = [
          "echo made > inside.txt",
          `echo x > ${cwd}/outside.txt`,
          "cat ~/.ssh/id_test",
          `ls ${transcripts}`,
          `echo t > /tmp/${probe} && echo wrote-tmp`,
          `echo evil > "$(git rev-parse --git-common-dir)/hooks/post-checkout"`,
        ].join("; ");
        s.mock.reply(
          response([
            { toolUse: { id: "b1", name: "bash_command", input: { command } } },
            { toolUse: { id: "e1", name: "edit_file", input: { path: "hello.txt", find: "hello", replace: "sandboxed" } } },
          ]),
          response([{ hold: "fork-ends" }, { text: "bg done." }]),
        );
        await typeAndSend(s, "@bg! do the work");
        // bash_command and edit_file need approval in this setup: the fork's next request comes without any.
        await s.until("the fork's tools to run without approval", async () => s.mock.requests.length === 3, 15_000);
        const fork = (await s.threads()).find((t) => t.id !== id)!;
        assert.equal(fork.unattended, true);
        assert.equal((await s.thread(id)).unattended, false);
        const worktree = fork.cwd!;
        assert.notEqual(worktree, cwd);
        await s.openList();
        assert.match(await s.listText(), /🔒 unattended/);
        assert.equal((await s.listText()).match(/🔒 unattended/g)?.length, 1, "only the fork is marked");
        s.mock.release("fork-ends");
        await s.waitForDisplay(id, "goes with your next message: bg done.");
        // The worktree has its work; the project has neither the fork's edit nor the file written outside.
        assert.equal(readFileSync(join(worktree, "inside.txt"), "utf8"), "made\n");
        assert.equal(readFileSync(join(worktree, "hello.txt"), "utf8"), "sandboxed from a fixture\n");
        assert.equal(existsSync(join(cwd, "outside.txt")), false);
        assert.equal(existsSync(join(cwd, "inside.txt")), false);
        assert.equal(readFileSync(join(cwd, "hello.txt"), "utf8"), HELLO);
        // What the API got: the command's refusals, and no key.
        const got = results(s, 2);
        assert.match(got["b1"]!, new RegExp(`${cwd}/outside\\.txt: Read-only file system`));
        assert.match(got["b1"]!, new RegExp(`${home}/\\.ssh/id_test: No such file or directory`));
        assert.match(got["b1"]!, new RegExp(`ls: cannot access '${transcripts}': No such file or directory`));
        assert.match(got["b1"]!, /wrote-tmp/);
        assert.equal(existsSync(join("/tmp", probe)), false, "the sandbox's /tmp is its own");
        assert.match(got["b1"]!, /hooks\/post-checkout: Read-only file system/);
        assert.equal(existsSync(join(cwd, ".git", "hooks", "post-checkout")), false);
        assert.ok(!JSON.stringify(s.mock.requests.map((r) => r.body)).includes(SECRET), "the key reached the API");
        assert.doesNotMatch(got["e1"]!, /error|denied/i);
      },
      { cwd, env },
    );
  });

  it("what leaves the sandbox waits: an edit of the project's file is written once approved, a command asking for the network gets it once approved, an MCP tool waits; a restart keeps the fork unattended (attended, and said, where the sandbox cannot start)", async () => {
    const { cwd, home, env } = world();
    let fork = { id: "", cwd: "" };
    await withNeovim(
      nv,
      async (s) => {
        const id = await firstThread(s);
        const outside = join(cwd, "hello.txt");
        s.mock.reply(
          response([{ toolUse: { id: "e1", name: "edit_file", input: { path: outside, find: "hello", replace: "approved" } } }]),
        );
        const forkId = await s.lua<string>(`return require("tine").fork(..., "edit the project", { unattended = true })`, id);
        const shown = await s.waitForDisplay(forkId, "awaiting approval");
        const info = await s.thread(forkId);
        fork = { id: forkId, cwd: info.cwd! };
        assert.equal(info.unattended, true);
        assert.ok(shown.includes(`${BANNER}${fork.cwd}\n`), shown);
        // The approval says why this call waits when nothing else in the fork does.
        const why = `\n   🔒 leaves the sandbox: ${outside} is outside what this sandboxed thread may write (its worktree, but for .git's hooks and config)\n`;
        assert.ok(shown.includes(why), shown);
        await s.waitForStatus(forkId, "waiting");
        await s.openList();
        const row = (await s.listLines())[(await s.listLine("🔒 unattended")) - 1]!;
        assert.match(row, new RegExp(`#${info.num} .*waiting`), row);
        assert.equal(readFileSync(outside, "utf8"), HELLO, "nothing is written before approval");
        assert.equal(s.mock.requests.length, 2);
        // Approved: the host writes it; then a command without the network runs at once, one asking for it waits.
        s.mock.reply(
          response([
            { toolUse: { id: "n0", name: "bash_command", input: { command: reachMock(s, "n0") } } },
            {
              toolUse: {
                id: "n1",
                name: "bash_command",
                input: { command: `${reachMock(s, "n1")}; echo y > ${cwd}/net.txt`, network: true },
              },
            },
            { toolUse: { id: "r1", name: "get_file", input: { path: join(home, ".ssh", "id_test") } } },
            { toolUse: { id: "m1", name: "mcp__test__echo", input: { text: "hi" } } },
          ]),
          textReply("All done."),
        );
        await s.onDisplayLine(forkId, "🔧 edit_file:", "a");
        await s.until("the approved edit's result", async () => s.mock.requests.length === 3);
        assert.equal(readFileSync(outside, "utf8"), "approved from a fixture\n");
        // The network call and the read of ~/.ssh wait; the other command has run.
        await s.waitForDisplay(
          forkId,
          /🔧 get_file: [^\n]*\n {3}⏳ awaiting approval[^\n]*\n {3}🔒 leaves the sandbox: [^\n]*id_test is hidden from this sandboxed thread/,
        );
        await s.waitForDisplay(
          forkId,
          /🔧 bash_command: \$ : n1;[^\n]*\n {3}⏳ awaiting approval[^\n]*\n {3}🔒 leaves the sandbox: it asks for the network, which the sandbox has not\n/,
        );
        // An MCP tool waits as in any thread (its server runs outside the sandbox).
        await s.waitForDisplay(forkId, /🔧 test › echo: [^\n]*\n {3}⏳ awaiting approval/);
        await s.waitForStatus(forkId, "waiting");
        assert.equal(s.mock.requests.length, 3, "the calls wait");
        await s.onDisplayLine(forkId, "🔧 test › echo", "a");
        await s.onDisplayLine(forkId, "🔧 bash_command: $ : n1;", "a");
        await s.onDisplayLine(forkId, "🔧 get_file", "d");
        await s.waitForDisplay(forkId, "All done.\n── end_turn");
        const got = results(s, 3);
        assert.equal(got["n0"], "unreachable\n");
        // With the host's network, but its files still confined.
        assert.match(got["n1"]!, new RegExp(`^reached\n.*${cwd}/net.txt: Read-only file system`, "s"));
        assert.equal(existsSync(join(cwd, "net.txt")), false);
        assert.equal(got["r1"], "The user denied this tool call.");
        assert.equal(got["m1"], "echo: hi");
      },
      { cwd, env, setup: { mcp_servers: { test: testServer(cwd) } } },
    );
    // A new Neovim on the same data: the stored fork is still unattended, and once opened its tools still run in the sandbox.
    await withNeovim(
      nv,
      async (s) => {
        await s.openList();
        const stored = await s.thread(fork.id);
        assert.equal(stored.status, "stored");
        assert.equal(stored.unattended, true);
        await s.listLine("🔒 unattended");
        await s.open(fork.id);
        await s.waitForDisplay(fork.id, `${BANNER}${fork.cwd}\n`);
        assert.equal((await s.thread(fork.id)).unattended, true);
        s.mock.reply(
          response([{ toolUse: { id: "b2", name: "bash_command", input: { command: `echo again > ${cwd}/again.txt` } } }]),
          textReply("Tried."),
        );
        await typeAndSend(s, "once more");
        await s.waitForDisplay(fork.id, "Tried.\n── end_turn");
        assert.match(results(s, 1)["b2"]!, /again\.txt: Read-only file system/);
        assert.equal(existsSync(join(cwd, "again.txt")), false);
      },
      { cwd, env },
    );
    // Where the sandbox cannot start, the stored fork opens attended, in the same worktree, and the user is told.
    await withNeovim(
      nv,
      async (s) => {
        await s.openList();
        await s.open(fork.id);
        await s.notified(/bwrap cannot create its namespaces: .* works on in its worktree, attended: its tools ask as any thread's/);
        const info = await s.thread(fork.id);
        assert.deepEqual([info.unattended, info.cwd], [false, fork.cwd]);
        s.mock.reply(
          response([{ toolUse: { id: "b3", name: "bash_command", input: { command: "echo attended > attended.txt" } } }]),
          textReply("Ran."),
        );
        await typeAndSend(s, "and now");
        const shown = await s.waitForDisplay(fork.id, /attended\.txt\n {3}⏳ awaiting approval/);
        assert.ok(!shown.includes(BANNER), shown);
        assert.match(shown, /⎇ Works in a git worktree of its own: /);
      },
      { cwd, env: { ...env, ...failingBwrap() } },
    );
  });

  it("every way of asking makes an unattended fork: :ForkThread --bg --unattended, @fork/@bg --unattended, @bg with fork_unattended = background, fork(); other forks stay attended", async () => {
    const { cwd, env } = world();
    await withNeovim(
      nv,
      async (s) => {
        const id = await firstThread(s);
        const input = (await s.thread(id)).input_bufnr!;
        const asks: [string, () => Promise<void>, boolean][] = [
          ["ForkThread", () => s.cmd("ForkThread --bg --unattended p1"), true],
          ["@fork", () => typeAndSend(s, "@fork --unattended p2"), true],
          ["@bg --unattended", () => typeAndSend(s, "@bg --unattended p3"), true],
          ["@bg", () => typeAndSend(s, "@bg p4"), true],
          ["fork() in the background", () => s.lua(`require("tine").fork(..., "p5", { background = true })`, id), true],
          ["fork()", () => s.lua(`require("tine").fork(..., "p6")`, id), false],
          ["@fork", () => typeAndSend(s, "@fork p7"), false],
        ];
        for (const [n, [how, ask, unattended]] of asks.entries()) {
          s.mock.reply(response([{ hold: `p${n + 1}` }, { text: "done" }]));
          await s.focus(input);
          await ask();
          await s.waitForThreadCount(n + 2, `the fork ${how} makes`);
          const fork = (await s.threads()).find((t) => t.num === n + 2)!;
          assert.equal(fork.unattended, unattended, `${how}: ${JSON.stringify(fork)}`);
          if (unattended) assert.notEqual(fork.cwd, cwd);
        }
      },
      { cwd, env, setup: { fork_unattended: "background" } },
    );
  });

  it("where bwrap cannot start: an unattended fork asked for is refused with the reason and the fix, nothing made; fork_unattended's @bg fork is made attended, the user told once", async () => {
    const { cwd, env } = world();
    // A bwrap first on PATH that fails as bwrap does where user namespaces are off (as health.test.ts).
    const refusal =
      /^tine: an unattended fork runs its tools in a sandbox, which cannot start here: bwrap cannot create its namespaces: bwrap: setting up uid map: Permission denied\. Fix: allow unprivileged user namespaces: /;
    await withNeovim(
      nv,
      async (s) => {
        const id = await firstThread(s);
        await s.cmd("ForkThread --unattended look around");
        await s.notified(refusal);
        // Typed in the input, each way of asking is refused the same, and the text stays to edit.
        const input = (await s.thread(id)).input_bufnr!;
        for (const [n, typed] of ["@bg! look around", "@fork --unattended look around", "@bg --unattended look around"].entries()) {
          await typeAndSend(s, typed);
          await s.until(`refusal of ${typed}`, async () => (await s.notifications()).filter((m) => refusal.test(m.msg)).length === n + 2);
          assert.deepEqual(await s.lines(input), [typed]);
        }
        await s.setLines(input, []);
        assert.equal((await s.threads()).length, 1, "no thread made");
        assert.deepEqual(worktrees(cwd), [], "no worktree made");
        assert.equal(s.mock.requests.length, 1);
        // fork_unattended = "background": a @bg fork is made attended (its tools ask), and the user is told so once.
        s.mock.reply(
          response([{ toolUse: { id: "b1", name: "bash_command", input: { command: "echo hi > bg.txt" } } }]),
          textReply("bg done."),
        );
        await typeAndSend(s, "@bg make bg.txt");
        const told = await s.notified(/the forks fork_unattended names are made as ordinary forks/);
        assert.match(told, refusal);
        await s.waitForThreadCount(2);
        const fork = (await s.threads()).find((t) => t.id !== id)!;
        assert.equal(fork.unattended, false);
        await s.waitForStatus(fork.id, "waiting");
        s.mock.reply(textReply("second."));
        await typeAndSend(s, "@bg say more");
        await s.waitForThreadCount(3);
        const attended = (await s.notifications()).filter((n) => /made as ordinary forks/.test(n.msg));
        assert.equal(attended.length, 1, "told once");
      },
      { cwd, env: { ...env, ...failingBwrap() }, setup: { fork_unattended: "background" } },
    );
  });

  it("a project that is not a git repository: an unattended fork is refused, nothing made", async () => {
    await withNeovim(nv, async (s) => {
      const id = await firstThread(s);
      await assert.rejects(
        s.lua(`require("tine").fork(..., "x", { unattended = true })`, id),
        /^.*tine: an unattended fork works in a git worktree of its own, which cannot be made here: .*not in a git repository/,
      );
      assert.equal((await s.threads()).length, 1);
    });
  });
});
