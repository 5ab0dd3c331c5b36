/**
 * What the MCP integration tests share (mcp.test.ts, mcp-untrusted.test.ts): tine's stdio test
 * server (test/mcp-servers/), what it logged, the tools a request offered, and waits long enough
 * for a server to start.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { type RequestBody, resultOf, sentBlocks } from "./chat-driver.ts";
import { ROOT, type Session } from "./neovim.ts";

export const STDIO_SERVER = resolve(ROOT, "test/mcp-servers/stdio-server.mjs");
export const HTTP_SERVER = resolve(ROOT, "test/mcp-servers/http-server.mjs");

/** The stdio test server as setup's `mcp_servers` names it, logging to `<cwd>/mcp.log`, with `env` besides. */
export const testServer = (cwd: string, env: Record<string, string> = {}) => ({
  command: ["node", STDIO_SERVER],
  env: { MCP_TEST_LOG: join(cwd, "mcp.log"), ...env },
});

const httpServers = new Set<ChildProcess>();

/** Starts the HTTP test server, which takes requests carrying `x-test-token: token`, with `env` besides; resolves to its URL. */
export function startHttpServer(token: string, logFile: string, env: Record<string, string> = {}): Promise<string> {
  const child = spawn("node", [HTTP_SERVER], { env: { ...process.env, MCP_TEST_TOKEN: token, MCP_TEST_LOG: logFile, ...env } });
  httpServers.add(child);
  child.once("exit", () => httpServers.delete(child));
  return new Promise((resolveUrl, reject) => {
    child.stdout!.once("data", (d: Buffer) => resolveUrl(d.toString().trim()));
    child.once("exit", (code) => reject(new Error(`the HTTP test server exited (${code})`)));
  });
}

/** Ends the HTTP test servers started (each test's afterEach). */
export function stopHttpServers(): void {
  for (const child of httpServers) child.kill();
}

/** The lines the test server appended to `<cwd>/mcp.log`. */
export const logLines = (cwd: string) =>
  existsSync(join(cwd, "mcp.log")) ? readFileSync(join(cwd, "mcp.log"), "utf8").trim().split("\n") : [];
export const toolNames = (b: RequestBody) => (b.tools ?? []).map((t) => ("name" in t ? t.name : ""));
export const mcpNames = (b: RequestBody) => toolNames(b).filter((n) => n.startsWith("mcp__"));

/**
 * Waits for thread `ref`'s display to show `text`. Longer than Session's wait: a server starts (a
 * Node process loading the SDK) before the first request, and again after a crash, on a machine
 * other tests share.
 */
export async function shows(s: Session, ref: string, text: string | RegExp): Promise<string> {
  let last = "";
  await s.until(
    `thread ${ref} to show ${String(text)}`,
    async () => {
      last = await s.display(ref).catch(() => "");
      return typeof text === "string" ? last.includes(text) : text.test(last);
    },
    30_000,
  );
  return last;
}

/** Waits (as long as `shows`) for a notification matching `pattern`. */
export async function told(s: Session, pattern: RegExp): Promise<void> {
  await s.until(`a notification matching ${pattern}`, async () => (await s.notifications()).some((n) => pattern.test(n.msg)), 30_000);
}

/** The content of the tool result answering `id` in request `req`'s last message. */
export function resultFor(s: Session, req: number, id: string): ReturnType<typeof resultOf> {
  const block = sentBlocks(s, req, -1).find((b) => b.type === "tool_result" && b.tool_use_id === id);
  if (!block) throw new Error(`request ${req} answers no ${id}`);
  return resultOf(block);
}

export const isError = (s: Session, req: number, id: string) =>
  sentBlocks(s, req, -1).some((b) => b.type === "tool_result" && b.tool_use_id === id && b.is_error === true);
