/**
 * The client the official MCP conformance suite (@modelcontextprotocol/conformance) runs for each of
 * its client scenarios: tine, driven as a user drives it. A real headless Neovim with tine set up
 * with one MCP HTTP server, the suite's, at the URL the suite appends; the mock of the Messages API
 * scripted so the model calls the tool that scenario's server offers; a message sent from the
 * input; the turn waited for; Neovim quit. The suite checks what reached its server.
 *
 *   node24 --experimental-transform-types test/conformance/tine-client.ts <server-url>
 *
 * with MCP_CONFORMANCE_SCENARIO set (the suite sets it). It runs the host built in dist/ (build it
 * first) in TINE_TEST_NVIM, or in the newest Neovim under test. The suite needs Node ≥ 22, and so
 * does this file (TypeScript run as is); the host itself runs on the machine's Node, as for a user.
 */
import { testNvims } from "../../scripts/nvim.mjs";
import { openSidebar, typeAndSend } from "../helpers/chat-driver.ts";
import { type NvimBinary, ROOT, type Session, withNeovim } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

/** The server's name in tine's setup: the model calls its tools as `mcp__conformance__<tool>`. */
const SERVER = "conformance";
/** The model's last words, once the tool's result came back: the turn is over when they show. */
const DONE = "Conformance turn done.";
/** A turn's longest wait: under the suite's own time limit for the scenario (the test gives it 60 s). */
const TURN_MS = 45_000;

/** The tool a scenario's server offers, and the arguments the model calls it with; null: it offers none. */
type Call = { readonly tool: string; readonly input: Record<string, unknown> } | null;

/** What each of the suite's servers offers (read from the suite's scenarios, dist/index.js). */
function callFor(scenario: string): Call {
  if (scenario.startsWith("auth/")) return { tool: "test-tool", input: {} };
  switch (scenario) {
    case "initialize":
      return null;
    case "tools_call":
      return { tool: "add_numbers", input: { a: 2, b: 3 } };
    case "elicitation-sep1034-client-defaults":
      return { tool: "test_client_elicitation_defaults", input: {} };
    case "sse-retry":
      return { tool: "test_reconnection", input: {} };
    default:
      throw new Error(`tine-client: no script for scenario ${scenario}`);
  }
}

/**
 * The user's browser: the suite's authorization servers grant at once and redirect to the
 * redirect URI, so opening a page is following its redirects (to tine's callback on 127.0.0.1).
 */
async function openLikeABrowser(s: Session): Promise<void> {
  s.nvim.on("notification", (method: string, args: unknown[]) => {
    if (method !== "conformance_open") return;
    const url = String(args[0]);
    fetch(url, { redirect: "follow" }).then(
      (r) => console.log(`opened ${url}: ${r.status}`),
      (e: Error) => console.log(`opening ${url} failed: ${e.message}`),
    );
  });
  await s.lua(
    `local chan = ...
    vim.ui.open = function(url)
      vim.rpcnotify(chan, "conformance_open", url)
      return { wait = function() return { code = 0 } end }
    end`,
    await s.nvim.channelId,
  );
}

/**
 * The user, asked by a server's form (elicitation): fills it in, keeping every default (the first
 * item of each choice, where tine lists the default; Enter on each filled-in input).
 */
async function keepTheDefaults(s: Session): Promise<void> {
  await s.lua(`
    vim.ui.select = function(items, _, cb) cb(items[1], 1) end
    vim.ui.input = function(opts, cb) cb((opts or {}).default or "") end`);
}

async function drive(s: Session, call: Call): Promise<void> {
  if (call) s.mock.reply(response([{ toolUse: { id: "c1", name: `mcp__${SERVER}__${call.tool}`, input: call.input } }]));
  s.mock.reply(textReply(DONE));
  await openLikeABrowser(s);
  await keepTheDefaults(s);
  const thread = await openSidebar(s);
  await typeAndSend(s, call ? `Call ${call.tool}.` : "Hello.");
  await s.until(`the turn to end with "${DONE}"`, async () => (await s.display(thread.id)).includes(DONE), TURN_MS);
  console.log((await s.display(thread.id)).trim());
  // Neovim is gone before it could answer a quit: its end is what is waited for.
  void s.nvim.command("qa!").catch(() => {});
  await s.waitForExit();
}

async function newestNvim(): Promise<NvimBinary> {
  const all = testNvims(ROOT) as NvimBinary[];
  const newest = all.at(-1);
  if (!newest) throw new Error("tine-client: no Neovim found");
  return newest;
}

const url = process.argv[2];
const scenario = process.env["MCP_CONFORMANCE_SCENARIO"] ?? "";
if (!url) {
  console.error("usage: tine-client.ts <server-url> (with MCP_CONFORMANCE_SCENARIO set)");
  process.exit(2);
}
const call = callFor(scenario);
/** A client the scenario's authorization server knows (`auth/pre-registration`): in the server's entry, as a user writes it. */
const context = JSON.parse(process.env["MCP_CONFORMANCE_CONTEXT"] ?? "{}") as { client_id?: string; client_secret?: string };
const oauth = context.client_id ? { oauth: { client_id: context.client_id, client_secret: context.client_secret } } : {};
try {
  await withNeovim(await newestNvim(), (s) => drive(s, call), {
    setup: { mcp_servers: { [SERVER]: { url, ...oauth } }, mcp_auto_approve: [SERVER] },
  });
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
// Neovim's RPC client holds the event loop open after it is gone: done is done.
process.exit(0);
