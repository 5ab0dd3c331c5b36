// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${VAR}" is what the config takes, written as a user writes it
/**
 * Tools from MCP servers as a user meets them in real Neovim: tine's test servers (test/mcp-servers/,
 * written with the SDK) over stdio and over Streamable HTTP on loopback, the model's calls scripted
 * on the mock of the Messages API; what a project or server may not do is in mcp-untrusted.test.ts.
 */
import assert from "node:assert/strict";
import { createHash, randomUUID } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, inject, it } from "vitest";
import { STILL_RUNNING_WHEN_FORKED } from "../../node/chat/prompts.ts";
import { readsCacheOf } from "../helpers/cache-prefix.ts";
import { body, exchange, openSidebar, typeAndSend } from "../helpers/chat-driver.ts";
import {
  isError,
  logLines,
  mcpNames,
  resultFor,
  shows,
  startHttpServer,
  stopHttpServers,
  testServer,
  told,
  toolNames,
} from "../helpers/mcp.ts";
import { alive, type Session, tempProjects, withNeovim } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");
const project = tempProjects();

const PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const TEST_TOOLS = ["change_list", "crash", "echo", "env_hash", "fail", "image", "sleep", "wait_for"];

/** The setup of a project with the stdio test server named `test`, writing what it hears to `<cwd>/mcp.log`. */
function withServer(cwd: string, more: Record<string, unknown> = {}): Record<string, unknown> {
  return { mcp_servers: { test: testServer(cwd, { SECRET: "${TINE_TEST_SECRET:-none}" }) }, ...more };
}

/** Every file under `dir` (links not followed). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    const st = statSync(path, { throwIfNoEntry: false });
    return st?.isDirectory() ? filesUnder(path) : st?.isFile() ? [path] : [];
  });
}

afterEach(stopHttpServers);

describe(`MCP (${nv.version})`, () => {
  it("offers the server's tools sorted after tine's; a call waits for approval, `a` runs it on the server, the result goes back; every request and a fork's first send the same list", async () => {
    const cwd = project();
    await withNeovim(
      nv,
      async (s) => {
        s.mock.reply(response([{ toolUse: { id: "m1", name: "mcp__test__echo", input: { text: "hi" } } }]), textReply("Echoed."));
        const t = await openSidebar(s);
        assert.deepEqual(logLines(cwd), [], "no server starts before a thread sends");
        await typeAndSend(s, "echo hi");
        const shown = await shows(s, t.id, "awaiting approval");
        assert.match(shown, /🔧 test › echo: \{"text":"hi"\}\n {3}⏳ awaiting approval/);
        assert.equal(s.mock.requests.length, 1, "nothing runs before approval");
        await s.onDisplayLine(t.id, "🔧 test › echo", "a");
        await shows(s, t.id, "Echoed.");
        assert.equal(resultFor(s, 1, "m1"), "echo: hi");
        assert.deepEqual(
          mcpNames(body(s, 0)),
          TEST_TOOLS.map((n) => `mcp__test__${n}`),
        );
        assert.deepEqual(toolNames(body(s, 0)).slice(0, 4), ["get_file", "list_directory", "bash_command", "edit_file"]);
        assert.deepEqual(
          (body(s, 0).tools ?? []).find((x) => "name" in x && x.name === "mcp__test__echo"),
          {
            name: "mcp__test__echo",
            description: "Echo the text back.",
            input_schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
          },
        );
        assert.equal(JSON.stringify(body(s, 1).tools), JSON.stringify(body(s, 0).tools), "the list is byte-identical between requests");
        await s.focus(t.input_bufnr!);
        await exchange(s, 2, "@fork and now?", "Fork answer.");
        assert.equal(JSON.stringify(body(s, 2).tools), JSON.stringify(body(s, 0).tools), "and in a fork's first request");
        assert.ok(readsCacheOf(body(s, 2), body(s, 1)), "the fork's first request reads its source's cache");
        const started = logLines(cwd).filter((l) => l.startsWith("started"));
        assert.equal(started.length, 1, "one process, shared by the fork");
        const pid = Number(started[0]!.split(" ")[1]);
        await s.lua("require('tine.host').stop()");
        await s.until("the server to end with the host", async () => !alive(pid), 10_000);
      },
      { cwd, setup: withServer(cwd) },
    );
  });

  it("`A` approves the tool for the rest of the thread and forks taken later; an `A` in the fork never reaches its source", async () => {
    const cwd = project();
    await withNeovim(
      nv,
      async (s) => {
        const echo = (id: string, text: string) => response([{ toolUse: { id, name: "mcp__test__echo", input: { text } } }]);
        const fail = (id: string) => response([{ toolUse: { id, name: "mcp__test__fail", input: {} } }]);
        s.mock.reply(echo("s1", "one"), echo("s2", "two"), textReply("Source done."));
        const t = await openSidebar(s);
        await typeAndSend(s, "echo twice");
        await shows(s, t.id, "awaiting approval");
        await s.onDisplayLine(t.id, "🔧 test › echo", "A");
        await shows(s, t.id, "Source done.");
        assert.equal(resultFor(s, 2, "s2"), "echo: two", "the second call ran without asking");
        assert.equal(s.mock.requests.length, 3);

        s.mock.reply(echo("f1", "three"), fail("f2"), textReply("Fork done."));
        await s.focus((await s.thread(t.id)).input_bufnr!);
        await typeAndSend(s, "@fork go on");
        await s.waitForThreadCount(2);
        const fork = (await s.threads()).find((x) => x.id !== t.id)!;
        await shows(s, fork.id, "awaiting approval");
        assert.equal(resultFor(s, 4, "f1"), "echo: three", "the fork inherited the approval");
        await s.onDisplayLine(fork.id, "🔧 test › fail", "A");
        await shows(s, fork.id, "Fork done.");

        s.mock.reply(fail("s3"), textReply("Denied, fine."));
        await s.open(t.id);
        await s.focus((await s.thread(t.id)).input_bufnr!);
        await typeAndSend(s, "fail once");
        await shows(s, t.id, /test › fail: \{\}\n {3}⏳ awaiting approval/);
        await s.onDisplayLine(t.id, "🔧 test › fail", "d");
        await shows(s, t.id, "Denied, fine.");
        assert.equal(resultFor(s, 7, "s3"), "The user denied this tool call.");
      },
      { cwd, setup: withServer(cwd) },
    );
  });

  it("mcp_auto_approve trusts a tool up front; another call still waits, and a denied one is answered so", async () => {
    const cwd = project();
    await withNeovim(
      nv,
      async (s) => {
        s.mock.reply(
          response([
            { toolUse: { id: "e", name: "mcp__test__echo", input: { text: "trusted" } } },
            { toolUse: { id: "f", name: "mcp__test__fail", input: {} } },
          ]),
          textReply("Both answered."),
        );
        const t = await openSidebar(s);
        await typeAndSend(s, "two calls");
        const shown = await shows(s, t.id, "awaiting approval");
        assert.equal(shown.match(/awaiting approval/g)?.length, 1, "only the untrusted call waits");
        await s.onDisplayLine(t.id, "🔧 test › fail", "d");
        await shows(s, t.id, "Both answered.");
        assert.equal(resultFor(s, 1, "e"), "echo: trusted");
        assert.equal(resultFor(s, 1, "f"), "The user denied this tool call.");
        assert.ok(isError(s, 1, "f"));
      },
      { cwd, setup: withServer(cwd, { mcp_auto_approve: ["test/echo"] }) },
    );
  });

  it("an image result goes to the model as an image block, the resources it names listed; an error result as an error", async () => {
    const cwd = project();
    await withNeovim(
      nv,
      async (s) => {
        s.mock.reply(
          response([
            { toolUse: { id: "i", name: "mcp__test__image", input: {} } },
            { toolUse: { id: "f", name: "mcp__test__fail", input: {} } },
          ]),
          textReply("Seen."),
        );
        const t = await openSidebar(s);
        await typeAndSend(s, "show me");
        await shows(s, t.id, "Seen.");
        assert.deepEqual(resultFor(s, 1, "i"), [
          { type: "text", text: "a picture\nResources named in the result:\n- picture: file:///tmp/picture.png (image/png)" },
          { type: "image", source: { type: "base64", media_type: "image/png", data: PNG_1X1 } },
        ]);
        assert.equal(resultFor(s, 1, "f"), "it failed, as it always does");
        assert.ok(isError(s, 1, "f"));
      },
      { cwd, setup: withServer(cwd, { mcp_auto_approve: ["test"] }) },
    );
  });

  it("a server that crashes mid-call gives an error result, and starts again on next use with a notice", async () => {
    const cwd = project();
    await withNeovim(
      nv,
      async (s) => {
        s.mock.reply(
          response([{ toolUse: { id: "c", name: "mcp__test__crash", input: {} } }]),
          response([{ toolUse: { id: "e", name: "mcp__test__echo", input: { text: "back" } } }]),
          textReply("Recovered."),
        );
        const t = await openSidebar(s);
        await typeAndSend(s, "crash it");
        await shows(s, t.id, "Recovered.");
        assert.match(
          String(resultFor(s, 1, "c")),
          /^The MCP server test exited \(its stderr ends: crashing on purpose\) during the call; it starts again on its next use$/,
        );
        assert.ok(isError(s, 1, "c"));
        assert.equal(resultFor(s, 2, "e"), "echo: back");
        await told(s, /^tine: MCP server test exited \(its stderr ends: crashing on purpose\); starting it again$/);
        assert.equal(logLines(cwd).filter((l) => l.startsWith("started")).length, 2);
      },
      { cwd, setup: withServer(cwd, { mcp_auto_approve: ["test"] }) },
    );
  });

  it("a call past mcp_timeout is cancelled through the protocol and answered as timed out", async () => {
    const cwd = project();
    await withNeovim(
      nv,
      async (s) => {
        s.mock.reply(response([{ toolUse: { id: "z", name: "mcp__test__sleep", input: { ms: 60_000 } } }]), textReply("Too slow."));
        const t = await openSidebar(s);
        await typeAndSend(s, "sleep");
        await shows(s, t.id, "Too slow.");
        assert.equal(resultFor(s, 1, "z"), "[timed out: no result after 4 s (mcp_timeout), so the call was cancelled]");
        await s.until("the server to hear the cancellation", async () => logLines(cwd).includes("cancelled sleep 60000"), 30_000);
      },
      // Long enough for the server to start on a busy machine (the limit covers the start too).
      { cwd, setup: withServer(cwd, { mcp_auto_approve: ["test"], mcp_timeout: 4 }) },
    );
  });

  it("abort cancels a running call through the protocol", async () => {
    const cwd = project();
    await withNeovim(
      nv,
      async (s) => {
        s.mock.reply(response([{ toolUse: { id: "z", name: "mcp__test__sleep", input: { ms: 60_000 } } }]));
        const t = await openSidebar(s);
        await typeAndSend(s, "sleep");
        await s.until("the server to run the call", async () => logLines(cwd).includes("sleeping 60000"), 30_000);
        await s.cmd("Tine abort");
        await s.until("the server to hear the cancellation", async () => logLines(cwd).includes("cancelled sleep 60000"), 30_000);
        await s.waitForStatus(t.id, "idle");
      },
      { cwd, setup: withServer(cwd, { mcp_auto_approve: ["test"] }) },
    );
  });

  it("a fork taken while a call runs says so; the source gets the real result", async () => {
    const cwd = project();
    const flag = join(cwd, "go");
    await withNeovim(
      nv,
      async (s) => {
        s.mock.reply(response([{ toolUse: { id: "w", name: "mcp__test__wait_for", input: { path: flag } } }]), textReply("Fork reply."));
        const t = await openSidebar(s);
        await typeAndSend(s, "wait");
        await shows(s, t.id, "⋯ running");
        await typeAndSend(s, "@fork meanwhile");
        await s.waitForThreadCount(2);
        const fork = (await s.threads()).find((x) => x.id !== t.id)!;
        await shows(s, fork.id, "Fork reply.");
        assert.equal(resultFor(s, 1, "w"), STILL_RUNNING_WHEN_FORKED);
        s.mock.reply(textReply("Source done."));
        writeFileSync(flag, "");
        await shows(s, t.id, "Source done.");
        assert.equal(resultFor(s, 2, "w"), `${flag} is there`);
      },
      { cwd, setup: withServer(cwd, { mcp_auto_approve: ["test"] }) },
    );
  });

  it("variables named in config reach the servers (a stdio env, an HTTP header from .mcp.json) and appear nowhere on disk", async () => {
    const cwd = project();
    const secret = `secret-${randomUUID()}`;
    const token = `token-${randomUUID()}`;
    const url = await startHttpServer(token, join(cwd, "http.log"));
    writeFileSync(
      join(cwd, ".mcp.json"),
      JSON.stringify({ mcpServers: { web: { type: "http", url, headers: { "x-test-token": "${TINE_TEST_TOKEN}" } } } }),
    );
    await withNeovim(
      nv,
      async (s) => {
        s.mock.reply(
          response([
            { toolUse: { id: "h", name: "mcp__test__env_hash", input: { name: "SECRET" } } },
            { toolUse: { id: "w", name: "mcp__web__echo", input: { text: "over http" } } },
          ]),
          textReply("Both."),
        );
        const t = await openSidebar(s);
        await typeAndSend(s, "check");
        await shows(s, t.id, "Both.");
        assert.equal(resultFor(s, 1, "h"), createHash("sha256").update(secret).digest("hex"));
        assert.equal(resultFor(s, 1, "w"), "echo: over http");
        assert.deepEqual(
          mcpNames(body(s, 0)).filter((n) => n.startsWith("mcp__web__")),
          TEST_TOOLS.map((n) => `mcp__web__${n}`),
        );
        const logPath = await s.lua<string>("return require('tine.host').log_path()");
        // Everything the host wrote, once it is gone (its locks released).
        const host = await s.hostPid();
        await s.lua("require('tine.host').stop()");
        await s.until("the host to exit", async () => !alive(host), 10_000);
        const files = [...filesUnder(cwd), ...(existsSync(logPath) ? [logPath] : [])];
        assert.ok(
          files.some((f) => f.includes(".data")),
          "the data dir is among the files searched",
        );
        for (const f of files) {
          const text = readFileSync(f, "latin1");
          assert.ok(!text.includes(secret) && !text.includes(token), `${f} holds a secret`);
        }
      },
      {
        cwd,
        setup: withServer(cwd, { mcp_auto_approve: ["test", "web"], mcp_project_files: true }),
        env: { TINE_TEST_SECRET: secret, TINE_TEST_TOKEN: token },
      },
    );
  });

  it("a server that changes its tools mid-thread: the thread keeps its list, a new thread gets the new one, and the user is told", async () => {
    const cwd = project();
    await withNeovim(
      nv,
      async (s) => {
        s.mock.reply(response([{ toolUse: { id: "c", name: "mcp__test__change_list", input: {} } }]), textReply("Changed."));
        const t = await openSidebar(s);
        await typeAndSend(s, "change");
        await shows(s, t.id, "Changed.");
        await told(
          s,
          /^tine: MCP server test changed its tools \(added added_later\): new threads get them; threads already started keep theirs$/,
        );
        // Sent once the server's new list is known: the thread still sends the list it started with.
        await exchange(s, t.id, "and now?", "Same tools.");
        assert.equal(JSON.stringify(body(s, 2).tools), JSON.stringify(body(s, 0).tools));
        await s.cmd("Tine new");
        await exchange(s, 2, "hello", "Hi.");
        assert.ok(mcpNames(body(s, 3)).includes("mcp__test__added_later"));
        assert.deepEqual(mcpNames(body(s, 3)), [...mcpNames(body(s, 3))].sort());
      },
      { cwd, setup: withServer(cwd, { mcp_auto_approve: ["test"] }) },
    );
  });

  it(":Tine mcp lists the servers with their state and restarts or stops one; :checkhealth tine reports them, a failed one with its stderr", async () => {
    const cwd = project();
    const broken = { command: ["node", "-e", "console.error('broken on purpose'); process.exit(1)"] };
    await withNeovim(
      nv,
      async (s) => {
        const before = await s.health();
        assert.match(before, /test {2}not started yet {2}\(setup: node .*stdio-server\.mjs\)/);
        await oneExchange(s);
        await told(s, /^tine: MCP server broken could not start: /);
        const health = await s.health();
        assert.match(health, /test {2}ready with 8 tools/);
        assert.match(health, /broken {2}failed: .*\n.*its last lines of stderr:\n.*broken on purpose/);
        // The first picker shows the servers; the second what to do with the one picked.
        const choose = (...answers: number[]) =>
          s.lua(
            `local answers = ...
            _G.mcp_selects = {}
            vim.ui.select = function(items, opts, cb)
              table.insert(_G.mcp_selects, vim.tbl_map((opts or {}).format_item or tostring, items))
              cb(items[table.remove(answers, 1)])
            end`,
            answers,
          );
        await choose(2, 2);
        await s.cmd("Tine mcp");
        const [servers, actions] = await s.lua<string[][]>("return _G.mcp_selects");
        assert.match(servers!.join("\n"), /^broken {2}failed: .*\ntest {2}ready with 8 tools {2}\(setup: node .*\)$/);
        assert.deepEqual(actions, ["tools", "restart", "stop", "stderr"]);
        await told(s, /^tine: MCP server test: ready with 8 tools$/);
        assert.equal(logLines(cwd).filter((l) => l.startsWith("started")).length, 2, "restarted");
        await choose(2, 3);
        await s.cmd("Tine mcp");
        await s.until("the server to be stopped", async () => (await s.health()).includes("test  stopped by you"), 30_000);
      },
      { cwd, setup: { mcp_servers: { ...(withServer(cwd)["mcp_servers"] as object), broken } } },
    );
  });
});

/** One exchange in a first thread (its first send starts the servers). */
async function oneExchange(s: Session) {
  await s.cmd("Tine");
  await exchange(s, 1, "hello", "Hi.");
}
