/**
 * Conversations move both ways between Claude Code (the real CLI, against the mock) and tine.
 * Over 300 lines: one file per feature area, each test standing alone in its own Neovim; split
 * by area, not by length.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import { describe, inject, it } from "vitest";
import { encodeProject } from "../../node/claude-code/project.ts";
import { typeAndSend } from "../helpers/chat-driver.ts";
import {
  claudeEnv,
  cliEnv,
  requireClaude,
  runClaude,
  saidIn,
  stopTerminals,
  typeInTerminal,
  waitForCliPrompt,
} from "../helpers/claude-code.ts";
import { withNeovim, withProject } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");

/** A message of a request the mock received: tine's, or the Claude Code CLI's (beta). */
type AnyMessageParam = Anthropic.Messages.MessageParam | Anthropic.Beta.Messages.BetaMessageParam;
type AnyBlockParam = Anthropic.Messages.ContentBlockParam | Anthropic.Beta.Messages.BetaContentBlockParam;

/** What a request carried of the conversation: role and block types/texts, system reminders aside. */
const shape = (messages: readonly AnyMessageParam[]) =>
  messages
    .filter((m) => m.role !== "system")
    .map((m) => {
      if (m.content === undefined) throw new Error(`a ${m.role} message without content`);
      const content: readonly AnyBlockParam[] = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
      return {
        role: m.role,
        blocks: content
          .filter((b) => !(b.type === "text" && b.text.startsWith("<system-reminder>")))
          .map((b) =>
            b.type === "text"
              ? b.text
              : b.type === "tool_use"
                ? `tool_use ${b.id} ${b.name}`
                : b.type === "tool_result"
                  ? `tool_result ${b.tool_use_id}`
                  : b.type,
          ),
      };
    })
    .filter((m) => m.blocks.length);

describe(`Claude Code sessions (${nv.version})`, () => {
  it("a session made by the real CLI, with a tool call, is imported (:Tine import); a send from tine carries the same conversation", async () => {
    requireClaude();
    await withNeovim(nv, async (s) => {
      const config = join(s.cwd, ".claude-config");
      const env = claudeEnv(config, s.mock.url, s.cwd);
      s.mock.reply(
        response([
          { text: "I will look." },
          { toolUse: { id: "toolu_01", name: "Bash", input: { command: "echo from-the-cli", description: "echo" } } },
        ]),
        textReply("The command said from-the-cli."),
      );
      const session = "11111111-1111-4111-8111-111111111111";
      await runClaude(["-p", "run a command for me", "--session-id", session, "--dangerously-skip-permissions"], s.cwd, env);
      assert.equal(s.mock.requests.length, 2);
      assert.equal(s.mock.requests[0]!.headers["x-claude-code-session-id"], session);
      const cliSaw = shape(s.mock.requests[1]!.body.messages);

      await s.pick(1);
      await s.cmd("Tine import");
      assert.match((await s.asked()).items?.[0] ?? "", /run a command for me · 4 msgs · 11111111$/);
      const t = (await s.threads()).at(-1)!;
      assert.equal(t.title, "run a command for me");
      s.mock.reply(textReply("Continued in tine."));
      await typeAndSend(s, "and now?");
      await s.waitForDisplay(t.id, "Continued in tine.");
      const tineSent = shape(s.mock.requests.at(-1)!.body.messages);
      assert.deepEqual(tineSent.slice(0, -1), [...cliSaw, { role: "assistant", blocks: ["The command said from-the-cli."] }]);
      assert.deepEqual(tineSent.at(-1), { role: "user", blocks: ["and now?"] });
    });
  });

  it("a tine thread with thinking, tool calls and results is exported; `claude -p --resume` sends that history", async () => {
    requireClaude();
    await withNeovim(
      nv,
      async (s) => {
        const config = join(s.cwd, ".claude-config");
        const env = claudeEnv(config, s.mock.url, s.cwd);
        s.mock.reply(
          response([
            { thinking: "read it first", signature: "sig-1" },
            { toolUse: { id: "toolu_r1", name: "get_file", input: { path: "hello.txt" } } },
          ]),
          textReply("It says hello."),
        );
        await s.cmd("Tine");
        await typeAndSend(s, "what does hello.txt say?");
        await s.waitForDisplay(1, "It says hello.\n── end_turn");
        const tineSaw = shape(s.mock.requests.at(-1)!.body.messages);
        const id = (await s.thread(1)).id;
        const out = await s.lua<{ session_id: string; path: string }>("return require('tine.host').request('export_claude', ...)", id);
        // It goes on in Claude Code as a thread of its own, under the tine thread.
        const child = (await s.threads()).find((t) => t.parent_id === id)!;
        assert.equal(child.title, "what does hello.txt say? → Claude Code");
        assert.equal(out.path, join(config, "projects", encodeProject(s.cwd), `${out.session_id}.jsonl`));
        assert.equal(statSync(out.path).mode & 0o777, 0o600);
        assert.ok(!readFileSync(out.path, "utf8").includes("test-key"));
        assert.equal((await s.messages(id)).length, 4, "the thread is unchanged");

        s.mock.reply(textReply("Claude Code goes on."));
        const before = s.mock.requests.length;
        await runClaude(["-p", "continue", "--resume", out.session_id], s.cwd, env);
        const cli = s.mock.requests[before]!;
        assert.equal(cli.headers["x-claude-code-session-id"], out.session_id);
        // The transcript holds the thinking with its signature; the CLI itself leaves earlier turns'
        // thinking out of its requests, so what it sends is compared without it.
        const stored = readFileSync(out.path, "utf8")
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l));
        assert.ok(stored.some((r) => r.message?.content?.[0]?.type === "thinking" && r.message.content[0].signature === "sig-1"));
        const sent = cli.body.messages.filter((m: AnyMessageParam) => m.role !== "system");
        const withoutThinking = (ms: ReturnType<typeof shape>) =>
          ms.map((m) => ({ ...m, blocks: m.blocks.filter((b) => b !== "thinking") }));
        assert.deepEqual(withoutThinking(shape(sent)).slice(0, tineSaw.length + 1), [
          ...withoutThinking(tineSaw),
          { role: "assistant", blocks: ["It says hello."] },
        ]);
        await stopTerminals(s);
        await s.waitForStatus(child.id, "exited");
      },
      { setup: { claude_command: [requireClaude()] }, env: cliEnv },
    );
  });

  it("import errors are clear and change nothing: an unknown session, a transcript that cannot be parsed", async () => {
    await withNeovim(nv, async (s) => {
      await s.cmd("Tine import 22222222-2222-4222-8222-222222222222");
      assert.match(
        await s.lastNotification(),
        /no Claude Code session 22222222-2222-4222-8222-222222222222 \(looked in .*\.claude-config\/projects\)/,
      );
      const bad = join(s.cwd, "bad.jsonl");
      (await import("node:fs")).writeFileSync(bad, '{"type":"user"}\n{not json\n{"type":"user"}\n');
      await s.lua("pcall(require('tine').import_claude, ...)", bad);
      await s.cmd(`Tine import ${bad}`);
      assert.match(await s.lastNotification(), /bad\.jsonl cannot be imported: line 2 is not JSON/);
      assert.equal((await s.threads()).length, 0);
    });
  });

  it(":Tine claude runs the CLI in a terminal with an injected session id; :ForkThread there forks it with --resume --fork-session, the source's file untouched", async () => {
    const bin = requireClaude();
    await withProject(async (cwd) => {
      const config = join(cwd, ".claude-config");
      claudeEnv(config, "http://unused", realpathSync(cwd));
      await withNeovim(
        nv,
        async (s) => {
          s.mock.reply(textReply("Hi from the mock."), textReply("Forked reply."));
          await s.cmd("Tine claude");
          const source = (await s.threads())[0]!;
          assert.equal(source.status, "running");
          const terminalText = (buf: number) => s.lines(buf).then((l) => l.join("\n"));
          await waitForCliPrompt(s, source.bufnr!);
          await typeInTerminal(s, source.bufnr!, "hello from the terminal");
          await s.until("the first request", async () => s.mock.requests.length >= 1, 30_000);
          const sessionId = String(s.mock.requests[0]!.headers["x-claude-code-session-id"]);
          assert.match(sessionId, /^[0-9a-f-]{36}$/);
          const file = join(config, "projects", encodeProject(cwd), `${sessionId}.jsonl`);
          await s.until(
            "the reply in the transcript",
            async () => existsSync(file) && readFileSync(file, "utf8").includes("Hi from the mock."),
            30_000,
          );
          await s.until("the CLI to be idle", async () => /Hi from the mock\./.test(await terminalText(source.bufnr!)), 30_000);
          const before = readFileSync(file);
          await s.lua("vim.api.nvim_set_current_buf(...)", source.bufnr);
          await s.cmd("ForkThread next question");
          await s.until("the fork's request", async () => s.mock.requests.length >= 2, 30_000);
          const fork = s.mock.requests[1]!;
          const forkId = String(fork.headers["x-claude-code-session-id"]);
          assert.notEqual(forkId, sessionId);
          const said = saidIn(fork.body);
          assert.ok(
            said.includes("hello from the terminal") && said.includes("Hi from the mock.") && said.includes("next question"),
            said.join(" | "),
          );
          // The source's own CLI may append to its transcript (a last-prompt record) at any time;
          // the fork never writes there: what was written stays, and nothing of the fork is added.
          const after = readFileSync(file);
          assert.deepEqual(after.subarray(0, before.length), before, "the source's transcript keeps its bytes");
          const added = after.subarray(before.length).toString("utf8");
          assert.ok(!added.includes(forkId) && !added.includes("next question"), `the fork wrote to the source's transcript: ${added}`);
          const threads = await s.threads();
          assert.equal(threads[1]!.parent_id, source.id);
          await s.openList();
          const list = await s.listText();
          // Titled from the first prompt typed in the terminal, as other threads are from their first message.
          assert.match(list, /\[claude\] hello from the terminal {2}▷ running/);
          assert.match(list, /⑂ \[claude\] next question {2}▷ running/);
          // Both CLIs end with their terminals; the list says so.
          await stopTerminals(s);
          await s.until("both exited", async () => (await s.threads()).every((t) => t.status === "exited"), 10_000);
        },
        { cwd, setup: { claude_command: [bin] }, env: cliEnv },
      );
    });
  });

  it("a Claude Code thread survives a restart: listed as stored, opened it resumes its session (--resume <id>)", async () => {
    const bin = requireClaude();
    await withProject(async (cwd) => {
      const config = join(cwd, ".claude-config");
      claudeEnv(config, "http://unused", realpathSync(cwd));
      let sessionId = "";
      let id = "";
      await withNeovim(
        nv,
        async (s) => {
          s.mock.reply(response([{ text: "First session reply.", holdInside: { hold: "h", afterDeltas: 1 } }]));
          await s.cmd("Tine claude");
          const t = (await s.threads())[0]!;
          id = t.id;
          await waitForCliPrompt(s, t.bufnr!);
          await typeInTerminal(s, t.bufnr!, "remember this");
          await s.until("the request", async () => s.mock.requests.length === 1, 30_000);
          sessionId = String(s.mock.requests[0]!.headers["x-claude-code-session-id"]);
          // Busy while it works, idle when its turn is over: told from its transcript.
          await s.openList();
          await s.listLine("▷ running (busy)", 30_000);
          s.mock.release("h");
          await s.until("the reply shown", async () => /First session reply\./.test((await s.lines(t.bufnr!)).join("\n")), 30_000);
          await s.listLine("▷ running (idle)", 30_000);
          await s.lua("vim.fn.jobstop(vim.b[...].tine_job)", t.bufnr);
          await s.waitForStatus(id, "exited");
        },
        { cwd, setup: { claude_command: [bin] }, env: cliEnv },
      );
      await withNeovim(
        nv,
        async (s) => {
          await s.openList();
          assert.match(await s.listText(), /\[claude\] remember this {2}○ stored/);
          s.mock.reply(textReply("Resumed reply."));
          await s.open(id);
          const t = await s.thread(id);
          assert.equal(t.status, "running");
          await waitForCliPrompt(s, t.bufnr!);
          await typeInTerminal(s, t.bufnr!, "what did I say?");
          await s.until("the request", async () => s.mock.requests.length === 1, 30_000);
          assert.equal(s.mock.requests[0]!.headers["x-claude-code-session-id"], sessionId);
          const said = saidIn(s.mock.requests[0]!.body);
          assert.ok(
            said.includes("remember this") && said.includes("First session reply.") && said.includes("what did I say?"),
            said.join(" | "),
          );
          await s.lua("vim.fn.jobstop(vim.b[...].tine_job)", t.bufnr);
          await s.waitForStatus(id, "exited");
        },
        { cwd, setup: { claude_command: [bin] }, env: cliEnv },
      );
    });
  });

  it(":ForkThread in a terminal tine did not start says the session is unknown and changes nothing", async () => {
    await withNeovim(nv, async (s) => {
      await s.cmd("terminal");
      await s.cmd("ForkThread");
      assert.match(
        await s.lastNotification(),
        /this terminal was not started by tine \(:Tine claude\), so its Claude Code session id is unknown/,
      );
      assert.equal((await s.threads()).length, 0);
    });
  });

  it("without Claude Code installed, :Tine claude says how to set claude_command and changes nothing", async () => {
    await withNeovim(
      nv,
      async (s) => {
        await s.cmd("Tine claude");
        assert.match(await s.lastNotification(), /`no-such-claude` was not found: install Claude Code, or set claude_command in setup\(\)/);
        assert.equal((await s.threads()).length, 0);
      },
      { setup: { claude_command: ["no-such-claude"] } },
    );
  });

  it(":checkhealth tine says whether Claude Code is there, and which version", async () => {
    const bin = requireClaude();
    await withNeovim(
      nv,
      async (s) => {
        assert.match(await s.health(), /Claude Code: 2\.1\.330 \(Claude Code\)/);
      },
      { setup: { claude_command: [bin] } },
    );
    await withNeovim(
      nv,
      async (s) => {
        assert.match(await s.health(), /Claude Code: `no-such-claude` not found \(only :Tine claude and :Tine export need it/);
      },
      { setup: { claude_command: ["no-such-claude"] } },
    );
  });
});
