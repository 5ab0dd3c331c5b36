// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${VAR}" is what the config takes, written as a user writes it
/**
 * What a project's MCP file or a server may not do, in real Neovim with tine's stdio test server
 * (test/mcp-servers/): a project's file reads neither the API key nor tool_env_deny's variables;
 * tool names a server offers that the API would take as one are offered apart, each calling its
 * own tool; a huge result is read and capped (or refused by its size) and the server serves on,
 * over stdio and over HTTP (test/mcp-servers/http-server.mjs), whose answer that never ends is cut.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, inject, it } from "vitest";
import { body, exchange, openSidebar, typeAndSend } from "../helpers/chat-driver.ts";
import {
  isError,
  logLines,
  mcpNames,
  resultFor,
  STDIO_SERVER,
  shows,
  startHttpServer,
  stopHttpServers,
  testServer,
} from "../helpers/mcp.ts";
import { tempProjects, withNeovim } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");
const project = tempProjects();

/** Setup with the test server named `test`, offering the tools `more` names besides its own, logging to `<cwd>/mcp.log`. */
function withServer(cwd: string, more: readonly string[], options: Record<string, unknown>): Record<string, unknown> {
  return { mcp_servers: { test: testServer(cwd, { MCP_TEST_MORE_TOOLS: JSON.stringify(more) }) }, ...options };
}

afterEach(stopHttpServers);

const started = (cwd: string) => logLines(cwd).filter((l) => l.startsWith("started")).length;

describe(`MCP: what a project or a server may not do (${nv.version})`, () => {
  it("a project's .mcp.json naming ${ANTHROPIC_API_KEY} and a tool_env_deny variable: its server gets neither, even started again, and the user is told once which, in which file", async () => {
    const cwd = project();
    const key = `sk-ant-test-${randomUUID()}`;
    const denied = `denied-${randomUUID()}`;
    const record = join(cwd, "launch.json");
    writeFileSync(
      join(cwd, ".mcp.json"),
      JSON.stringify({
        mcpServers: {
          proj: {
            command: "node",
            args: [STDIO_SERVER, "--key=${ANTHROPIC_API_KEY}", "--token=${TINE_DENIED:-none}"],
            env: {
              MCP_TEST_RECORD: record,
              MCP_TEST_LOG: join(cwd, "mcp.log"),
              KEY: "${ANTHROPIC_API_KEY}",
              TOKEN: "${TINE_DENIED}",
              ALLOWED: "${TINE_ALLOWED}",
            },
          },
        },
      }),
    );
    await withNeovim(
      nv,
      async (s) => {
        s.mock.reply(
          response([{ toolUse: { id: "c", name: "mcp__proj__crash", input: {} } }]),
          response([{ toolUse: { id: "e", name: "mcp__proj__echo", input: { text: "again" } } }]),
          textReply("Done."),
        );
        const t = await openSidebar(s);
        await typeAndSend(s, "crash it, then echo");
        await shows(s, t.id, "Done.");
        assert.equal(resultFor(s, 2, "e"), "echo: again");
        assert.equal(started(cwd), 2, "started again after the crash");
        const launched = JSON.parse(readFileSync(record, "utf8")) as { argv: string[]; env: Record<string, string> };
        assert.deepEqual(launched.argv, ["--key=", "--token=none"]);
        assert.deepEqual([launched.env["KEY"], launched.env["TOKEN"], launched.env["ALLOWED"]], ["", "", "allowed"]);
        const everything = JSON.stringify(launched);
        assert.ok(!everything.includes(key) && !everything.includes(denied), "the server got the key or the denied value");
        const notes = (await s.notifications()).map((n) => n.msg).filter((m) => m.includes("TINE_DENIED"));
        assert.deepEqual(notes, [
          "tine: .mcp.json names ${ANTHROPIC_API_KEY}, ${TINE_DENIED}: a project's MCP servers never get the API key or tool_env_deny's variables, so they read as unset",
        ]);
      },
      {
        cwd,
        setup: { mcp_project_files: true, mcp_auto_approve: ["proj"], tool_env_deny: ["TINE_DENIED"] },
        env: { ANTHROPIC_API_KEY: key, TINE_DENIED: denied, TINE_ALLOWED: "allowed" },
      },
    );
  });

  it("a project's .mcp.json while mcp_project_files is off: :Tine mcp and :checkhealth tine say it is there but not read, and how to use it", async () => {
    const cwd = project();
    writeFileSync(join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: { proj: { command: "node", args: [STDIO_SERVER] } } }));
    await withNeovim(
      nv,
      async (s) => {
        const unread = "no MCP servers are used: .mcp.json is there but not read: set mcp_project_files = true to use it";
        await s.cmd("Tine mcp");
        await s.until(":Tine mcp to tell", async () => (await s.notifications()).some((n) => n.msg === `tine: ${unread}`));
        const health = await s.health();
        assert.ok(health.includes(unread), health);
        assert.ok(!health.includes("none configured (mcp_servers"), health);
      },
      { cwd },
    );
  });

  it("tool names the API would take as one (`a.b` and `a_b`, long names alike up to the cut) are offered apart, an empty one not at all; each name runs its own tool, approved as its own", async () => {
    const cwd = project();
    const long = "l".repeat(130);
    const longName = `mcp__test__${long}`.slice(0, 128);
    const longName2 = `${longName.slice(0, 126)}_2`;
    await withNeovim(
      nv,
      async (s) => {
        s.mock.reply(
          response([
            { toolUse: { id: "n1", name: "mcp__test__a_b", input: {} } },
            { toolUse: { id: "n2", name: "mcp__test__a_b_2", input: {} } },
            { toolUse: { id: "n3", name: longName, input: {} } },
            { toolUse: { id: "n4", name: longName2, input: {} } },
          ]),
          textReply("Ran them."),
        );
        const t = await openSidebar(s);
        await typeAndSend(s, "run them");
        const shown = await shows(s, t.id, "awaiting approval");
        assert.match(shown, /🔧 test › a_b_2: \{\}\n {3}⏳ awaiting approval/);
        assert.equal(shown.match(/awaiting approval/g)?.length, 1, "only `a.b`, not trusted, waits");
        await s.onDisplayLine(t.id, "🔧 test › a_b_2", "a");
        await shows(s, t.id, "Ran them.");
        const names = mcpNames(body(s, 0));
        assert.equal(new Set(names).size, names.length, "every name once");
        for (const name of ["mcp__test__a_b", "mcp__test__a_b_2", longName, longName2]) assert.ok(names.includes(name), name);
        assert.equal(names.length, 8 + 4, "the empty name is not offered");
        assert.equal(resultFor(s, 1, "n1"), 'ran "a_b"');
        assert.equal(resultFor(s, 1, "n2"), 'ran "a.b"');
        assert.equal(resultFor(s, 1, "n3"), `ran "${long}1"`);
        assert.equal(resultFor(s, 1, "n4"), `ran "${long}2"`);
      },
      {
        cwd,
        setup: withServer(cwd, ["a.b", "a_b", "", `${long}1`, `${long}2`], {
          mcp_auto_approve: ["test/a_b", `test/${long}1`, `test/${long}2`],
        }),
      },
    );
  });

  it("a 20 MB result is read and its text capped, head and tail; one over what tine reads is answered with its size; the server and the thread go on", async () => {
    const cwd = project();
    await withNeovim(
      nv,
      async (s) => {
        s.mock.reply(
          response([
            { toolUse: { id: "b1", name: "mcp__test__big", input: { bytes: 20_000_000 } } },
            { toolUse: { id: "b2", name: "mcp__test__big", input: { bytes: 34_000_000 } } },
          ]),
          response([{ toolUse: { id: "e", name: "mcp__test__echo", input: { text: "after" } } }]),
          textReply("Still here."),
        );
        const t = await openSidebar(s);
        await typeAndSend(s, "big ones");
        const shown = await shows(s, t.id, "Still here.");
        const capped = String(resultFor(s, 1, "b1"));
        assert.match(capped, /^BIG-HEAD\nx{99}\n[\s\S]*\n\[… 19970000 bytes of output dropped here …\]\n[\s\S]*\nBIG-TAIL$/);
        assert.ok(!isError(s, 1, "b1"));
        const refused = "[not read: the result is 32.7 MiB, and tine reads at most 32.0 MiB of an MCP server's answer]";
        assert.equal(resultFor(s, 1, "b2"), refused);
        assert.ok(isError(s, 1, "b2"));
        // The display shows a result's first line.
        assert.match(shown, /\n✓ test › big: BIG-HEAD … \(\d+ lines\)\n✗ test › big: \[not read: the result is 32\.7 MiB, /);
        assert.equal(resultFor(s, 2, "e"), "echo: after");
        assert.equal(started(cwd), 1, "the server was never started again");
        await s.focus((await s.thread(t.id)).input_bufnr!);
        await exchange(s, t.id, "and now?", "Fine.");
      },
      { cwd, setup: withServer(cwd, ["big"], { mcp_auto_approve: ["test"] }) },
    );
  });

  it("over HTTP: an answer over what tine reads, and one that never ends, are answered as too large and cut there; the host reads on, a normal call works", async () => {
    const cwd = project();
    const token = `token-${randomUUID()}`;
    const log = join(cwd, "http.log");
    const url = await startHttpServer(token, log, { MCP_TEST_MORE_TOOLS: JSON.stringify(["big", "endless"]) });
    await withNeovim(
      nv,
      async (s) => {
        s.mock.reply(
          response([
            { toolUse: { id: "b", name: "mcp__web__big", input: { bytes: 34_000_000 } } },
            { toolUse: { id: "n", name: "mcp__web__endless", input: {} } },
          ]),
          response([{ toolUse: { id: "e", name: "mcp__web__echo", input: { text: "after" } } }]),
          textReply("Still here."),
        );
        const t = await openSidebar(s);
        await typeAndSend(s, "big ones over http");
        const shown = await shows(s, t.id, "Still here.");
        const refused = "[not read: the result is over 32.0 MiB, and tine reads at most 32.0 MiB of an MCP server's answer]";
        assert.equal(resultFor(s, 1, "b"), refused);
        assert.equal(resultFor(s, 1, "n"), refused);
        assert.ok(isError(s, 1, "b") && isError(s, 1, "n"));
        assert.match(shown, /\n✗ web › big: \[not read: the result is over 32\.0 MiB, /);
        assert.match(shown, /\n✗ web › endless: \[not read: the result is over 32\.0 MiB, /);
        assert.equal(resultFor(s, 2, "e"), "echo: after");
        // The endless answer was cut near the bound: the host stopped reading it (what the socket buffers aside).
        const cut = readFileSync(log, "utf8").match(/endless cut after (\d+)/);
        assert.ok(cut && Number(cut[1]) < 48 * 1024 * 1024, `the endless answer was not cut near the bound: ${cut?.[0]}`);
        await s.focus((await s.thread(t.id)).input_bufnr!);
        await exchange(s, t.id, "and now?", "Fine.");
      },
      {
        cwd,
        setup: {
          mcp_servers: { web: { type: "http", url, headers: { "x-test-token": token } } },
          mcp_auto_approve: ["web"],
        },
      },
    );
  });
});
