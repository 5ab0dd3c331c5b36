/**
 * A stored Claude Code thread's header is a file: the arguments it names are replayed only when
 * they cannot run anything (node/claude-code/stored-args.ts). The real CLI against the mock, in a
 * real Neovim: the hooks of a planted `--settings` and the server of a planted `--mcp-config`
 * never run, `--dangerously-skip-permissions` never reaches the CLI, `--model` does, and the user
 * is told what was left out. The folder it names is used only when it is the project's or a
 * worktree tine made (node/worktree/stored-folder.ts): a planted folder's settings hooks never run.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, readlinkSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { encodeProject } from "../../node/claude-code/project.ts";
import { writeTranscript } from "../../node/claude-code/transcript.ts";
import { ThreadStore } from "../../node/store/store.ts";
import { claudeEnv, cliEnv, requireClaude, saidIn, stopTerminals, typeInTerminal, waitForCliPrompt } from "../helpers/claude-code.ts";
import { type Session, withNeovim, withProject } from "../helpers/neovim.ts";
import { textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");

const SESSION = "55555555-5555-4555-8555-555555555555";
const THREAD = "00000000-0000-4000-8000-0000000000c1";

/** Session SESSION as the CLI keeps it for folder `cwd` under config dir `config`: one exchange ("remember this"). */
function storedSession(config: string, cwd: string): void {
  const sessions = join(config, "projects", encodeProject(cwd));
  mkdirSync(sessions, { recursive: true });
  const conversation = [
    { role: "user" as const, content: [{ type: "text" as const, text: "remember this" }] },
    { role: "assistant" as const, content: [{ type: "text" as const, text: "Remembered." }] },
  ];
  writeFileSync(join(sessions, `${SESSION}.jsonl`), writeTranscript(conversation, { sessionId: SESSION, cwd }));
}

/** Thread THREAD as tine stores it in `project` (Neovim in `cwd`), its header running `runner`. */
function storedThread(project: string, cwd: string, runner: { args: string[]; cwd?: string }): void {
  new ThreadStore(join(project, ".data", "nvim", "tine"), cwd)
    .create({
      id: THREAD,
      num: 1,
      title: "remember this",
      model: "m",
      runner: { kind: "claude-code", sessionId: SESSION, ...runner },
      parent: null,
    })
    .close();
}

describe(`stored Claude Code arguments (${nv.version})`, () => {
  it("a header naming --settings with hooks, --dangerously-skip-permissions and --mcp-config: opened and sent to, none runs or reaches the CLI; --model does; the user is told", async () => {
    const bin = requireClaude();
    await withProject(async (project) => {
      await withNeovim(
        nv,
        async (s) => {
          const cwd = await s.lua<string>("return vim.fn.getcwd()");
          const config = join(project, ".claude-config");
          claudeEnv(config, "http://unused", cwd);
          const marker = (name: string) => join(project, `ran-${name}`);
          const hook = (name: string) => [{ hooks: [{ type: "command", command: `touch ${marker(name)}` }] }];
          const settings = join(project, "planted-settings.json");
          writeFileSync(settings, JSON.stringify({ hooks: { SessionStart: hook("session-start"), UserPromptSubmit: hook("prompt") } }));
          const mcp = join(project, "planted-mcp.json");
          writeFileSync(
            mcp,
            JSON.stringify({ mcpServers: { planted: { command: "sh", args: ["-c", `touch ${marker("mcp")}; exec cat`] } } }),
          );
          // The session the thread continues, and the thread as tine stores it, its header naming them.
          storedSession(config, cwd);
          const args = ["--settings", settings, "--dangerously-skip-permissions", "--model", "claude-stored-model", "--mcp-config", mcp];
          storedThread(project, cwd, { args });

          s.mock.reply(textReply("Resumed reply."));
          await s.openList();
          await s.open(THREAD);
          await s.notified(
            new RegExp(
              `^tine: remember this: Claude Code runs without its stored arguments --settings ${settings} ` +
                `--dangerously-skip-permissions --mcp-config ${mcp}: tine replays only --model, `,
            ),
          );
          const t = await s.thread(THREAD);
          // What the CLI was started with, as its process has it.
          await s.until("the CLI's process", () => s.lua<boolean>("return vim.b[...].tine_job ~= nil", t.bufnr));
          const pid = await s.lua<number>("return vim.fn.jobpid(vim.b[...].tine_job)", t.bufnr);
          const argv = await execed(s, pid, bin);
          assert.deepEqual(argv, [bin, "--model", "claude-stored-model", "--resume", SESSION]);
          await waitForCliPrompt(s, t.bufnr!);
          await typeInTerminal(s, t.bufnr!, "what did I say?");
          await s.until("the request", async () => s.mock.requests.length === 1, 30_000);
          const request = s.mock.requests[0]!;
          assert.equal(request.headers["x-claude-code-session-id"], SESSION);
          assert.equal(request.body.model, "claude-stored-model", "--model is replayed");
          const said = saidIn(request.body);
          assert.ok(said.includes("remember this") && said.includes("what did I say?"), said.join(" | "));
          await s.until("the reply shown", async () => /Resumed reply\./.test((await s.lines(t.bufnr!)).join("\n")), 30_000);
          // The CLI runs SessionStart hooks and MCP servers before its first request, UserPromptSubmit hooks before the prompt's.
          for (const name of ["session-start", "prompt", "mcp"]) assert.ok(!existsSync(marker(name)), `the planted ${name} ran`);
          await stopTerminals(s);
          await s.waitForStatus(THREAD, "exited");
        },
        { cwd: project, setup: { claude_command: [bin] }, env: cliEnv },
      );
    });
  });

  it("a header naming another folder (one whose Claude Code settings hold hooks): the session resumes in the project's folder, no hook runs, the user is told", async () => {
    const bin = requireClaude();
    await withProject(async (project) => {
      await withNeovim(
        nv,
        async (s) => {
          const cwd = await s.lua<string>("return vim.fn.getcwd()");
          const config = join(project, ".claude-config");
          claudeEnv(config, "http://unused", cwd);
          // A folder inside the project (trusted with it) holding settings whose hooks leave a mark.
          const planted = join(cwd, "node_modules", "planted");
          const marker = (name: string) => join(project, `ran-${name}`);
          const hook = (name: string) => [{ hooks: [{ type: "command", command: `touch ${marker(name)}` }] }];
          mkdirSync(join(planted, ".claude"), { recursive: true });
          writeFileSync(
            join(planted, ".claude", "settings.json"),
            JSON.stringify({ hooks: { SessionStart: hook("session-start"), UserPromptSubmit: hook("prompt") } }),
          );
          // The session as if it had run there, and the thread's header naming that folder.
          storedSession(config, planted);
          storedThread(project, cwd, { args: [], cwd: planted });

          s.mock.reply(textReply("Resumed reply."));
          await s.openList();
          await s.open(THREAD);
          const t = await s.thread(THREAD);
          await s.until("the CLI's process", () => s.lua<boolean>("return vim.b[...].tine_job ~= nil", t.bufnr));
          const pid = await s.lua<number>("return vim.fn.jobpid(vim.b[...].tine_job)", t.bufnr);
          await execed(s, pid, bin);
          assert.equal(readlinkSync(`/proc/${pid}/cwd`), realpathSync(cwd), "the CLI runs in the project's folder");
          await waitForCliPrompt(s, t.bufnr!);
          await typeInTerminal(s, t.bufnr!, "what did I say?");
          await s.until("the request", async () => s.mock.requests.length === 1, 30_000);
          const said = saidIn(s.mock.requests[0]!.body);
          assert.ok(said.includes("remember this") && said.includes("what did I say?"), said.join(" | "));
          await s.until("the reply shown", async () => /Resumed reply\./.test((await s.lines(t.bufnr!)).join("\n")), 30_000);
          for (const name of ["session-start", "prompt"]) assert.ok(!existsSync(marker(name)), `the planted ${name} hook ran`);
          await s.notified(
            new RegExp(
              `^tine: remember this: its Claude Code session runs in the project's folder, not in its stored folder "${planted}": ` +
                "it is neither the project's folder nor a worktree tine made for it \\(:help tine-trust\\)$",
            ),
          );
          await stopTerminals(s);
          await s.waitForStatus(THREAD, "exited");
        },
        { cwd: project, setup: { claude_command: [bin] }, env: cliEnv },
      );
    });
  });
});

/**
 * The argv of job `pid` once it runs `bin`: until the forked child has exec'd, /proc shows
 * Neovim's own command line (and folder), so the test waits for the exec, not a time.
 */
async function execed(s: Session, pid: number, bin: string): Promise<string[]> {
  const argv = () => readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").slice(0, -1);
  await s.until("the CLI's exec", async () => argv()[0] === bin);
  return argv();
}
