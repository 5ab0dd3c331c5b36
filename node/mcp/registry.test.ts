// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${VAR}" is what the config takes, written as a user writes it
/**
 * The MCP servers and their tools against tine's real test server (test/mcp-servers/, started as
 * a child process over stdio): start on first use, the tool list offered, calls, a crash and the
 * restart after it, the time limit and abort cancelling through the protocol, a changed list.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { localEnvironment } from "../tools/local-environment.ts";
import { mcpServersOption } from "./config.ts";
import { type McpNotice, McpServers } from "./registry.ts";
import { McpTools } from "./tools.ts";

const SERVER = resolve(import.meta.dirname, "../../test/mcp-servers/stdio-server.mjs");
const HTTP_SERVER = resolve(import.meta.dirname, "../../test/mcp-servers/http-server.mjs");

let dir: string;
let logFile: string;
let servers: McpServers | null = null;
let notices: McpNotice[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tine-mcp-"));
  logFile = join(dir, "server.log");
  notices = [];
});
afterEach(async () => {
  for (const s of servers?.all() ?? []) await s.stop();
  servers = null;
  rmSync(dir, { recursive: true, force: true });
});

/** A registry of one stdio test server named `test`, with `vars` as the environment `${VAR}` reads. */
function start(
  options: {
    timeoutMs?: number;
    autoApprove?: string[];
    vars?: Record<string, string>;
    projectFiles?: boolean;
    more?: string[];
    /** The question the server's `ask` tool puts to the user (an elicitation/create's params). */
    elicit?: object;
  } = {},
) {
  const env: Record<string, string> = {
    MCP_TEST_LOG: logFile,
    SECRET: "${TINE_SECRET}",
    MCP_TEST_MORE_TOOLS: JSON.stringify(options.more ?? []),
    ...(options.elicit ? { MCP_TEST_ELICIT: JSON.stringify(options.elicit) } : {}),
  };
  const spec = mcpServersOption({ test: { command: [process.execPath, SERVER], env } }, "mcp_servers");
  if (!spec.ok) throw new Error("bad spec");
  servers = new McpServers(spec.value, {
    root: dir,
    vars: options.vars ?? { TINE_SECRET: "s3cret" },
    denied: new Set(["ANTHROPIC_API_KEY"]),
    timeoutMs: options.timeoutMs ?? 30_000,
    notify: (n) => void notices.push(n),
    projectFiles: options.projectFiles ?? false,
    elicitationWaiting: () => {},
    dataDir: dir,
    openUrl: () => {},
  });
  return { servers, tools: new McpTools(servers, options.autoApprove ?? []) };
}

const env = () => localEnvironment(dir);
const signal = () => new AbortController().signal;
const logLines = () => (existsSync(logFile) ? readFileSync(logFile, "utf8").trim().split("\n") : []);

async function until(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("MCP servers", () => {
  it("start on first use only, and offer their tools as mcp__<server>__<tool>, sorted", async () => {
    const { servers, tools } = start();
    expect(servers.report()[0]).toMatchObject({ name: "test", state: "stopped", detail: "not started yet" });
    expect(logLines()).toEqual([]);
    const offered = await tools.offered(signal());
    expect(offered.map((t) => t.name)).toEqual([
      "mcp__test__change_list",
      "mcp__test__crash",
      "mcp__test__echo",
      "mcp__test__env_hash",
      "mcp__test__fail",
      "mcp__test__image",
      "mcp__test__sleep",
      "mcp__test__wait_for",
    ]);
    expect(offered.find((t) => t.name === "mcp__test__echo")?.input_schema).toMatchObject({ properties: { text: { type: "string" } } });
    expect(servers.report()[0]).toMatchObject({ state: "ready", detail: "ready with 8 tools", stderr: ["test server up"] });
    expect(logLines().filter((l) => l.startsWith("started"))).toHaveLength(1);
  });

  it("run a call on the server; its result is the outcome, an error result an error", async () => {
    const { tools } = start();
    expect(await tools.run("mcp__test__echo", { text: "hi" }, env(), signal())).toEqual({ text: "echo: hi", isError: false });
    expect(await tools.run("mcp__test__fail", {}, env(), signal())).toEqual({ text: "it failed, as it always does", isError: true });
    const image = await tools.run("mcp__test__image", {}, env(), signal());
    expect(image.images).toHaveLength(1);
    expect(image.text).toContain("- picture: file:///tmp/picture.png (image/png)");
  });

  it("give a resolved ${VAR} to the server", async () => {
    const { tools } = start({ vars: { TINE_SECRET: "s3cret" } });
    const { createHash } = await import("node:crypto");
    const hash = createHash("sha256").update("s3cret").digest("hex");
    expect((await tools.run("mcp__test__env_hash", { name: "SECRET" }, env(), signal())).text).toBe(hash);
  });

  it("fail to start, saying which variable is unset (never a value), and offer nothing", async () => {
    const { servers, tools } = start({ vars: {} });
    expect(await tools.offered(signal())).toEqual([]);
    expect(servers.report()[0]!.detail).toBe("failed: ${TINE_SECRET} is not set in Neovim's environment");
    expect(notices).toEqual([
      { level: "error", text: "tine: MCP server test could not start: ${TINE_SECRET} is not set in Neovim's environment" },
    ]);
  });

  it("answer a call whose server crashed mid-call with an error, and start the server again on next use, with a notice", async () => {
    const { servers, tools } = start();
    const crashed = await tools.run("mcp__test__crash", {}, env(), signal());
    expect(crashed.isError).toBe(true);
    expect(crashed.text).toMatch(
      /^The MCP server test exited \(its stderr ends: crashing on purpose\) during the call; it starts again on its next use$/,
    );
    expect(servers.report()[0]!.state).toBe("failed");
    expect((await tools.run("mcp__test__echo", { text: "again" }, env(), signal())).text).toBe("echo: again");
    expect(notices.map((n) => n.text)).toEqual(["tine: MCP server test exited (its stderr ends: crashing on purpose); starting it again"]);
    expect(logLines().filter((l) => l.startsWith("started"))).toHaveLength(2);
  });

  it("read a result of 20 MB and keep its text's head and tail; answer one over the bound with its size; the server serves on", async () => {
    const { tools } = start({ more: ["big"] });
    const capped = await tools.run("mcp__test__big", { bytes: 20_000_000 }, env(), signal());
    expect(capped.isError).toBe(false);
    expect(capped.text).toMatch(/^BIG-HEAD\nx{99}\n[\s\S]*\n\[… 19970000 bytes of output dropped here …\]\n[\s\S]*\nBIG-TAIL$/);
    const refused = await tools.run("mcp__test__big", { bytes: 34_000_000 }, env(), signal());
    expect(refused).toEqual({
      text: "[not read: the result is 32.7 MiB, and tine reads at most 32.0 MiB of an MCP server's answer]",
      isError: true,
    });
    expect(await tools.run("mcp__test__echo", { text: "still here" }, env(), signal())).toEqual({
      text: "echo: still here",
      isError: false,
    });
    expect(logLines().filter((l) => l.startsWith("started"))).toHaveLength(1);
  });

  it("cancel a call past the time limit through the protocol, and answer it as timed out", async () => {
    // The limit covers the start too: long enough for that on a busy machine.
    const { tools } = start({ timeoutMs: 5000 });
    const outcome = await tools.run("mcp__test__sleep", { ms: 60_000 }, env(), signal());
    expect(outcome).toEqual({ text: "[timed out: no result after 5 s (mcp_timeout), so the call was cancelled]", isError: true });
    await until("the server to hear the cancellation", () => logLines().includes("cancelled sleep 60000"));
  });

  it("a call's time limit stands still while the server's question waits for the user", async () => {
    const question = { mode: "form", message: "Go on?", requestedSchema: { type: "object", properties: {} } };
    // The limit covers the call until the server asks: long enough for that on a busy machine.
    const { servers, tools } = start({ timeoutMs: 4000, elicit: question });
    await tools.offered(signal());
    const running = tools.run("mcp__test__ask", {}, env(), signal(), { thread: "t1" });
    await until("the question", () => servers.elicitations.next("t1") !== null);
    // The user takes longer than mcp_timeout to answer: what is measured here is that time passing.
    await new Promise((r) => setTimeout(r, 5000));
    const key = servers.elicitations.next("t1")!.key;
    servers.elicitations.answer("t1", key, "decline", {});
    expect(await running).toEqual({ text: 'answer: {"action":"decline"}', isError: false });
  });

  it("cancel a call through the protocol when it is aborted", async () => {
    const { tools } = start();
    const controller = new AbortController();
    const running = tools.run("mcp__test__sleep", { ms: 60_000 }, env(), controller.signal);
    await until("the server to run the call", () => logLines().includes("sleeping 60000"));
    controller.abort();
    expect(await running).toEqual({ text: "[aborted: the call was cancelled]", isError: true });
    await until("the server to hear the cancellation", () => logLines().includes("cancelled sleep 60000"));
  });

  it("tell the user when a server changes its tools, and offer the new list to what asks next", async () => {
    const { tools } = start();
    await tools.offered(signal());
    await tools.run("mcp__test__change_list", {}, env(), signal());
    await until("the notice", () => notices.length > 0);
    expect(notices[0]!.text).toBe(
      "tine: MCP server test changed its tools (added added_later): new threads get them; threads already started keep theirs",
    );
    expect((await tools.offered(signal())).map((t) => t.name)).toContain("mcp__test__added_later");
  });

  it("wait for approval unless mcp_auto_approve trusts the server or the tool", async () => {
    const { tools: none } = start();
    expect(none.needsApproval("mcp__test__echo")).toBe(true);
    const { tools: server } = start({ autoApprove: ["test"] });
    expect(server.needsApproval("mcp__test__echo")).toBe(false);
    const { tools: tool } = start({ autoApprove: ["test/echo"] });
    // Which tool a name calls is known once its server has listed them: until then only a trusted server's run unasked.
    expect(tool.needsApproval("mcp__test__echo")).toBe(true);
    await tool.offered(signal());
    expect(tool.needsApproval("mcp__test__echo")).toBe(false);
    expect(tool.needsApproval("mcp__test__fail")).toBe(true);
  });

  it("fall back to the older HTTP+SSE transport where Streamable HTTP is refused, the headers going with both", async () => {
    const http = spawn(process.execPath, [HTTP_SERVER], {
      env: { ...process.env, MCP_TEST_TOKEN: "tok" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    try {
      const url = await new Promise<string>((done) => http.stdout!.once("data", (d: Buffer) => done(d.toString().trim())));
      const spec = mcpServersOption({ old: { url: url.replace(/\/mcp$/, "/sse"), headers: { "x-test-token": "${T}" } } }, "mcp_servers");
      if (!spec.ok) throw new Error("bad spec");
      servers = new McpServers(spec.value, {
        root: dir,
        vars: { T: "tok" },
        denied: new Set(),
        timeoutMs: 30_000,
        notify: (n) => void notices.push(n),
        projectFiles: false,
        elicitationWaiting: () => {},
        dataDir: dir,
        openUrl: () => {},
      });
      const tools = new McpTools(servers, []);
      expect((await tools.offered(signal())).map((t) => t.name)).toContain("mcp__old__echo");
      expect(await tools.run("mcp__old__echo", { text: "via sse" }, env(), signal())).toEqual({ text: "echo: via sse", isError: false });
    } finally {
      http.kill();
    }
  });

  it("read the project's .mcp.json (Claude Code's shape) besides setup's servers, setup winning a name; listed by name", async () => {
    writeFileSync(
      join(dir, ".mcp.json"),
      JSON.stringify({ mcpServers: { test: { command: "false" }, other: { type: "http", url: "http://127.0.0.1:1/mcp" } } }),
    );
    const { servers } = start({ projectFiles: true });
    expect(servers.report().map((s) => [s.name, s.from, s.where])).toEqual([
      ["other", ".mcp.json", "http://127.0.0.1:1/mcp"],
      ["test", "setup", `${process.execPath} ${SERVER}`],
    ]);
  });

  it("leave the project's files alone unless mcp_project_files is set (they name programs to run), and say so once", async () => {
    writeFileSync(join(dir, ".mcp.json"), JSON.stringify({ mcpServers: { evil: { command: "touch", args: ["pwned"] } } }));
    const { servers } = start();
    expect(servers.report().map((s) => s.name)).toEqual(["test"]);
    servers.all();
    expect(notices.filter((n) => n.text === "tine: .mcp.json is there but not read: set mcp_project_files = true to use it")).toHaveLength(
      1,
    );
    expect(servers.unread()).toEqual([".mcp.json is there but not read: set mcp_project_files = true to use it"]);
  });
});
