/**
 * Signing in to a remote MCP server as a user does in real Neovim: tine's test OAuth server
 * (test/mcp-servers/oauth-server.mjs, on the SDK's authorization server and bearer auth), the
 * model's calls scripted on the mock. The opener stands in for a browser: it fetches the page and
 * follows its redirect to tine's callback.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, inject, it } from "vitest";
import { body, openSidebar, typeAndSend } from "../helpers/chat-driver.ts";
import { mcpNames, resultFor, shows, told } from "../helpers/mcp.ts";
import { alive, ROOT, type Session, tempProjects, withNeovim } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");
const project = tempProjects();
const OAUTH_SERVER = join(ROOT, "test/mcp-servers/oauth-server.mjs");

const servers = new Set<ChildProcess>();
afterEach(() => {
  for (const c of servers) c.kill();
  servers.clear();
});

/** Starts the OAuth test server (logging to `<cwd>/oauth.log`); resolves to its /mcp URL. */
function oauthServer(cwd: string, env: Record<string, string> = {}): Promise<string> {
  const child = spawn("node", [OAUTH_SERVER], { env: { ...process.env, MCP_TEST_LOG: join(cwd, "oauth.log"), ...env } });
  servers.add(child);
  return new Promise((resolve) => child.stdout!.once("data", (d: Buffer) => resolve(d.toString().trim())));
}

/**
 * A browser, as the opener setup() is given (over the options the test started with): fetches the
 * page, follows the redirect to the callback; the pages are noted in _G.opened.
 */
const BROWSER_OPENER = `
  _G.opened = {}
  require("tine").setup(vim.tbl_extend("force", require("tine.config").options, {
    mcp_open_url = function(url, server)
      table.insert(_G.opened, { url = url, server = server })
      vim.system({ "node", "-e", "fetch(process.argv[1]).then((r) => process.exit(r.ok ? 0 : 1))", url })
    end,
  }))`;

/** The same browser, slow: it opens the pages it was given once the test calls _G.browse(). */
const HELD_BROWSER_OPENER = `${BROWSER_OPENER}
  local held = {}
  require("tine").setup(vim.tbl_extend("force", require("tine.config").options, {
    mcp_open_url = function(url, server)
      table.insert(_G.opened, { url = url, server = server })
      table.insert(held, url)
    end,
  }))
  _G.browse = function()
    for _, url in ipairs(held) do
      vim.system({ "node", "-e", "fetch(process.argv[1]).then((r) => process.exit(r.ok ? 0 : 1))", url })
    end
  end`;

/** Every file under `dir`. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    const st = statSync(path, { throwIfNoEntry: false });
    return st?.isDirectory() ? filesUnder(path) : st?.isFile() ? [path] : [];
  });
}

/** The sign-in files tine keeps under its data folder. */
const signInFiles = (cwd: string) => filesUnder(cwd).filter((f) => f.includes(`${join("tine", "mcp-auth")}/`));

/** `:Tine mcp`, answering its pickers with `answers` (an index each); what each picker listed. */
async function pickMcp(s: Session, ...answers: number[]): Promise<string[][]> {
  await s.lua(
    `local answers = ...
    _G.mcp_selects = {}
    vim.ui.select = function(items, opts, cb)
      table.insert(_G.mcp_selects, vim.tbl_map((opts or {}).format_item or tostring, items))
      cb(items[table.remove(answers, 1)])
    end`,
    answers,
  );
  await s.cmd("Tine mcp");
  return s.lua<string[][]>("return _G.mcp_selects");
}

describe(`MCP sign-in (${nv.version})`, () => {
  it("a thread that needs the server waits for the sign-in, then gets its tools; the tokens stay in a 0600 file; :Tine mcp signs out", async () => {
    const cwd = project();
    const url = await oauthServer(cwd);
    await withNeovim(
      nv,
      async (s) => {
        await s.lua(HELD_BROWSER_OPENER);
        s.mock.reply(response([{ toolUse: { id: "r1", name: "mcp__remote__echo", input: { text: "signed" } } }]), textReply("Done."));
        const t = await openSidebar(s);
        await typeAndSend(s, "use the remote server");
        await told(s, /^tine: MCP server remote needs you to sign in: its sign-in page is opened/);
        // The thread says what its request waits for, until the user has signed in.
        await shows(s, t.id, "⏳ Waits for you to sign in to the MCP server remote: its page is open in your browser");
        assert.equal(s.mock.requests.length, 0, "nothing is sent before the sign-in");
        await s.lua("_G.browse()");
        await shows(s, t.id, "Done.");
        assert.doesNotMatch(await s.display(t.id), /⏳ Waits for you to sign in/);
        // The first request waited for the sign-in: it offers the server's tools.
        assert.ok(mcpNames(body(s, 0)).includes("mcp__remote__echo"));
        assert.equal(resultFor(s, 1, "r1"), "echo: signed");
        const opened = await s.lua<{ url: string; server: string }[]>("return _G.opened");
        assert.equal(opened.length, 1);
        assert.equal(opened[0]!.server, "remote");
        assert.match(opened[0]!.url, /code_challenge_method=S256/);
        await told(s, /^tine: MCP server remote: signed in$/);

        const [files] = [signInFiles(cwd)];
        assert.equal(files.length, 1);
        assert.equal(statSync(files[0]!).mode & 0o777, 0o600);
        const { access_token, refresh_token } = JSON.parse(readFileSync(files[0]!, "utf8")).tokens;
        const [list, actions] = await pickMcp(s, 1, 0);
        assert.match(list![0]!, /^remote {2}ready with 8 tools {2}\[signed in\] {2}\(setup: http:\/\/127\.0\.0\.1:\d+\/mcp\)$/);
        assert.deepEqual(actions, ["tools", "restart", "stop", "sign out"]);

        // Signing out forgets the tokens; the server needs a sign-in from :Tine mcp (no page opens by itself).
        await pickMcp(s, 1, 4);
        await s.until("the server to need a sign-in", async () => (await pickMcp(s))[0]!.join("").includes("[needs sign-in"), 15_000);
        assert.deepEqual(
          signInFiles(cwd).filter((f) => JSON.parse(readFileSync(f, "utf8")).tokens),
          [],
          "no file holds the tokens after signing out",
        );
        assert.equal((await s.lua<unknown[]>("return _G.opened")).length, 1);

        // The tokens were nowhere else: not in a request to the model, a notification, a transcript or the log.
        const requests = JSON.stringify(s.mock.requests);
        const notices = JSON.stringify(await s.notifications());
        for (const secret of [access_token, refresh_token]) {
          assert.ok(!requests.includes(secret) && !notices.includes(secret), "a token reached the model or a notification");
        }
        const logPath = await s.lua<string>("return require('tine.host').log_path()");
        const host = await s.hostPid();
        await s.lua("require('tine.host').stop()");
        await s.until("the host to exit", async () => !alive(host), 10_000);
        for (const f of [...filesUnder(cwd), ...(existsSync(logPath) ? [logPath] : [])]) {
          const text = readFileSync(f, "latin1");
          assert.ok(!text.includes(access_token) && !text.includes(refresh_token), `${f} holds a token`);
        }
      },
      { cwd, setup: { mcp_servers: { remote: { url } }, mcp_auto_approve: ["remote"] } },
    );
  });

  it("without a browser the page's URL is shown to open elsewhere; a refused consent says so and the thread goes on without the server", async () => {
    const cwd = project();
    const url = await oauthServer(cwd, { OAUTH_TEST_DENY: "1" });
    await withNeovim(
      nv,
      async (s) => {
        // No browser here: vim.ui.open fails, as it does on a machine without one.
        await s.lua(`vim.ui.open = function() return nil, "no handler found" end`);
        s.mock.reply(textReply("Without it."));
        const t = await openSidebar(s);
        await typeAndSend(s, "hello");
        await told(s, /^tine: sign in to MCP server remote at:\nhttp:\/\/127\.0\.0\.1:\d+\/authorize\?/);
        const shown = (await s.notifications()).find((n) => n.msg.startsWith("tine: sign in to MCP server remote at:"))!;
        // The user opens it elsewhere (here: fetched, its redirect followed to the callback), and refuses.
        const page = await fetch(shown.msg.split("\n")[1]!);
        assert.match(await page.text(), /Sign-in refused/);
        await told(s, /^tine: MCP server remote: the sign-in was refused \(access_denied: the user said no\)$/);
        await shows(s, t.id, "Without it.");
        assert.deepEqual(mcpNames(body(s, 0)), []);
        const [list, actions] = await pickMcp(s, 1, 0);
        assert.match(list![0]!, /\[needs sign-in \(the sign-in was refused: access_denied: the user said no\)\]/);
        assert.deepEqual(actions, ["sign in", "tools", "restart", "stop", "sign out"]);
        assert.deepEqual(
          signInFiles(cwd).map((f) => JSON.parse(readFileSync(f, "utf8")).tokens),
          [undefined],
        );
        // An opener that is not a function is refused at setup.
        await s.lua(`require("tine").setup({ mcp_open_url = "firefox" })`);
        await told(s, /setup: mcp_open_url must be a function \(got "firefox"\)/);
      },
      { cwd, setup: { mcp_servers: { remote: { url } } } },
    );
  });
});
