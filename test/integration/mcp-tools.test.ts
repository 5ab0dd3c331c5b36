/**
 * What a user sees of an MCP server's tools, in real Neovim with tine's stdio test server
 * (test/mcp-servers/): `:Tine mcp` lists each tool by the name `mcp_auto_approve` takes, with its
 * description, and the display names a call `server › tool`.
 */
import assert from "node:assert/strict";
import { describe, inject, it } from "vitest";
import { openSidebar, typeAndSend } from "../helpers/chat-driver.ts";
import { logLines, resultFor, shows, testServer, told } from "../helpers/mcp.ts";
import { type Session, tempProjects, withNeovim } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");
const project = tempProjects();

/** Answers `:Tine mcp`'s pickers: the server at `server`, then the action named `action`. */
const choose = (s: Session, server: number, action: string) =>
  s.lua(
    `local server, action = ...
    local n = 0
    vim.ui.select = function(items, _, cb)
      n = n + 1
      cb(n == 1 and items[server] or (vim.tbl_contains(items, action) and action or nil))
    end`,
    server,
    action,
  );

/** The lines of the `tine-mcp://<server>` buffer, once it is shown. */
async function toolsBuffer(s: Session, server: string): Promise<string[]> {
  const name = `tine-mcp://${server}`;
  await s.until(`${name} to open`, async () => s.lua<boolean>("return vim.fn.bufnr(...) ~= -1", name), 30_000);
  return s.lua<string[]>("return vim.api.nvim_buf_get_lines(vim.fn.bufnr(...), 0, -1, false)", name);
}

describe(`MCP tools as the user sees them (${nv.version})`, () => {
  it(":Tine mcp lists a server's tools by the names mcp_auto_approve takes, with their descriptions, starting it when it is not running", async () => {
    const cwd = project();
    await withNeovim(
      nv,
      async (s) => {
        await s.cmd("Tine");
        assert.deepEqual(logLines(cwd), [], "not started yet");
        await choose(s, 1, "tools");
        await s.cmd("Tine mcp");
        const lines = await toolsBuffer(s, "test");
        assert.equal(lines[0], 'MCP server test: 10 tools · mcp_auto_approve takes "test" (all of them) or "test/<tool>"');
        assert.ok(lines.includes("test/echo  Echo the text back."), lines.join("\n"));
        assert.ok(lines.includes("test/wait_for  Returns once the file exists."));
        assert.ok(lines.includes('test/a.b  The tool named "a.b".'), "named as the server names it, not as offered (mcp__test__a_b)");
        assert.deepEqual(
          lines.slice(1).map((l) => l.split("  ")[0]),
          [...lines.slice(1).map((l) => l.split("  ")[0])].sort(),
          "sorted by name",
        );
        assert.equal(logLines(cwd).filter((l) => l.startsWith("started")).length, 1, "started to list them");
        assert.equal(await s.lua<boolean>("return vim.bo.modifiable"), false, "read-only, and focused");
        await s.keys("q");
        await s.until("the list to close", async () => s.lua<boolean>("return vim.fn.bufnr('tine-mcp://test') == -1"));
      },
      {
        cwd,
        setup: { mcp_servers: { test: { ...testServer(cwd), env: { ...testServer(cwd).env, MCP_TEST_MORE_TOOLS: '["a.b","zz"]' } } } },
      },
    );
  });

  it("a server that cannot start: :Tine mcp's tools says why, and lists nothing", async () => {
    const broken = { command: ["node", "-e", "process.exit(3)"] };
    await withNeovim(
      nv,
      async (s) => {
        await s.cmd("Tine");
        await choose(s, 1, "tools");
        await s.cmd("Tine mcp");
        // A real server's start (and the MCP SDK's first load): told's longer wait, as for the other starts.
        await told(s, /^tine: the tools of MCP server broken are not known: failed: /);
        assert.equal(await s.lua<number>("return vim.fn.bufnr('tine-mcp://broken')"), -1);
      },
      { setup: { mcp_servers: { broken } } },
    );
  });

  it("the display names a call and its result `server › tool`", async () => {
    const cwd = project();
    await withNeovim(
      nv,
      async (s) => {
        s.mock.reply(response([{ toolUse: { id: "m1", name: "mcp__test__echo", input: { text: "hi" } } }]), textReply("Echoed."));
        const t = await openSidebar(s);
        await typeAndSend(s, "echo hi");
        const shown = await shows(s, t.id, "Echoed.");
        assert.match(shown, /\n🔧 test › echo: \{"text":"hi"\}\n/);
        assert.match(shown, /\n✓ test › echo: echo: hi\n/);
        assert.doesNotMatch(shown, /mcp__/);
        assert.equal(resultFor(s, 1, "m1"), "echo: hi", "the call went by its whole name");
      },
      { cwd, setup: { mcp_servers: { test: testServer(cwd) }, mcp_auto_approve: ["test/echo"] } },
    );
  });
});
