/**
 * Drives a real headless Neovim with tine on its runtimepath, the host built from this checkout,
 * and the SDK pointed at a fresh HTTP mock of the Messages API. One Neovim per test.
 *
 * This file starts and ends them (and their project folders); the `Session` the tests speak
 * through, each verb a few lines so that tests repeat none of them, is in session.ts.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { attach } from "neovim";
import { afterEach } from "vitest";

import { quietLogger } from "../../node/nvim/logger.ts";
import { MockAnthropic } from "../mock-anthropic/server.ts";
import { hostsFile, recordHosts, sessionEnded, TERMINAL_PIDS } from "./processes.ts";
import { newSession, type Session } from "./session.ts";

export type { ThreadInfo } from "../../node/nvim/lua-shapes.ts";

export { alive, hostExited } from "./processes.ts";

export const ROOT = resolve(import.meta.dirname, "../..");

export type NvimBinary = { bin: string; version: string };

/** The Neovims under test, as scripts/test.mjs found them. */
export function nvims(): NvimBinary[] {
  const raw = process.env["TINE_TEST_NVIMS"];
  if (raw) return JSON.parse(raw) as NvimBinary[];
  const bin = process.env["TINE_TEST_NVIM"];
  if (!bin) throw new Error("run integration tests through `npm test` (or set TINE_TEST_NVIM)");
  return [{ bin, version: bin }];
}

export type { Session, ThreadRef } from "./session.ts";

export type SessionOptions = {
  env?: Record<string, string | undefined>;
  setup?: Record<string, unknown>;
  rplugin?: boolean;
  /** A project folder to reuse (a later session of the same project); the caller removes it. */
  cwd?: string;
};

/** A project folder (with its XDG data inside) for sessions that share it; remove it when done. */
export function projectDir(): string {
  const cwd = mkdtempSync(join(tmpdir(), "tine-test-"));
  writeFileSync(join(cwd, "hello.txt"), "hello from a fixture\n");
  return cwd;
}

/** Removes a test's folder, once nothing the test started works there any more (its Neovims, their hosts and terminals). */
function removeFolder(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Project folders for the tests of one file, each removed after its test: call at the file's top. */
export function tempProjects(): () => string {
  let dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs) removeFolder(d);
    dirs = [];
  });
  return () => {
    const d = projectDir();
    dirs.push(d);
    return d;
  };
}

/** Runs `fn` with a fresh project folder (for sessions that share it), removed afterwards. */
export async function withProject(fn: (cwd: string) => Promise<void>): Promise<void> {
  const cwd = projectDir();
  try {
    await fn(cwd);
  } finally {
    removeFolder(cwd);
  }
}

export async function withNeovim(binary: NvimBinary, fn: (s: Session) => Promise<void>, options: SessionOptions = {}): Promise<void> {
  const mock = await MockAnthropic.start();
  const cwd = options.cwd ?? projectDir();
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({
    ...process.env,
    ANTHROPIC_API_KEY: "test-key",
    ANTHROPIC_BASE_URL: mock.url,
    XDG_STATE_HOME: join(cwd, ".state"),
    XDG_CONFIG_HOME: join(cwd, ".config"),
    XDG_DATA_HOME: join(cwd, ".data"),
    // Claude Code's sessions too: no test reads or writes the user's own.
    CLAUDE_CONFIG_DIR: join(cwd, ".claude-config"),
    ...options.env,
  }))
    if (v !== undefined) env[k] = v;
  delete env["NVIM"];
  delete env["NVIM_LISTEN_ADDRESS"];
  // auto_title off unless a test turns it on: its request would come after every first reply.
  const setup = JSON.stringify({ retry_delay_ms: 5, auto_title: false, ...options.setup });
  const hosts = hostsFile(cwd, randomUUID());
  const init = [
    `set rtp^=${ROOT}`,
    "set noswapfile shortmess+=I",
    "runtime plugin/tine.lua",
    `lua require("tine").setup(vim.json.decode([[${setup}]]))`,
    // Record notifications so tests can assert on what the user was told.
    `lua _G.tine_notes = {}; vim.notify = function(msg, level) table.insert(_G.tine_notes, { msg = msg, level = level or 2 }) end`,
    recordHosts(hosts),
  ];
  if (options.rplugin) {
    // The classic path: register the plugin with the node remote-plugin host, as a user would.
    const host = [`let g:node_host_prog = '${ROOT}/node_modules/neovim/bin/cli.js'`, `set rtp^=${ROOT}`, "runtime plugin/rplugin.vim"];
    const r = spawnSync(
      binary.bin,
      ["--headless", "-u", "NONE", "-i", "NONE", ...host.flatMap((c) => ["--cmd", c]), "+UpdateRemotePlugins", "+qa"],
      { cwd, env, encoding: "utf8", timeout: 30_000 },
    );
    if (r.status !== 0) throw new Error(`:UpdateRemotePlugins failed: ${r.stderr}`);
    init.unshift(...host, "let g:tine_rplugin = 1");
  }
  const proc: ChildProcess = spawn(
    binary.bin,
    ["--embed", "--headless", "-u", "NONE", "-i", "NONE", "-n", ...init.flatMap((c) => ["--cmd", c])],
    {
      cwd,
      env,
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  let stderr = "";
  proc.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  // Writing to a Neovim that was killed must not fail the run.
  proc.stdin!.on("error", () => {});
  const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  const nvim = attach({ proc, options: { logger: quietLogger } });
  const session = newSession(nvim, mock, cwd, proc, exited);
  let failure: { error: unknown } | null = null;
  try {
    await fn(session);
    const violations = mock.violations();
    if (violations.length) throw new Error(`requests broke the Messages API's rules:\n${violations.join("\n")}`);
  } catch (error) {
    if (stderr) (error as Error).message += `\n--- nvim stderr:\n${stderr}`;
    failure = { error };
  }
  let terminals: number[] = [];
  if (proc.exitCode === null && proc.signalCode === null) {
    await nvim.lua('pcall(function() require("tine.host").stop() end)', []).catch(() => {});
    terminals = ((await nvim.lua(TERMINAL_PIDS, []).catch(() => [])) as number[]) ?? [];
  }
  proc.kill("SIGKILL");
  await mock.close();
  // What works in the project outlives Neovim: it is ended, or waited for, before the folder goes.
  const stuck = await sessionEnded(hosts, terminals);
  if (!options.cwd && !stuck) removeFolder(cwd);
  if (failure) throw failure.error;
  if (stuck) throw stuck;
}
