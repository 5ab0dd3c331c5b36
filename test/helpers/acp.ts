/**
 * The real ACP agent of the tests: `@agentclientprotocol/claude-agent-acp` (pinned, a
 * devDependency), which runs Claude Code against the HTTP mock (../../shared/acp.md says what it
 * needs offline): a throwaway HOME and config dir, the mock's URL, no other traffic, and
 * IS_SANDBOX=1 (as root, its bypass mode is refused without it). Its API key comes through
 * acp_agents' `${VAR}`, as a user's would, so tests can check where the key goes.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AcpAgentsConfig } from "../../node/acp/agents.ts";
import type { ChangeRecord } from "../../node/store/records.ts";
import { ThreadStore } from "../../node/store/store.ts";
import { type Reply, textReply } from "../mock-anthropic/script.ts";
import type { MockAnthropic, RecordedRequest } from "../mock-anthropic/server.ts";
import { ROOT, type Session } from "./neovim.ts";

export const ACP_ADAPTER = join(ROOT, "node_modules/@agentclientprotocol/claude-agent-acp/dist/index.js");

/** The host variable the agent's key is read from (`${…}` in acp_agents), and the key: a fake one, unique enough to be searched for. */
export const KEY_VARIABLE = "TINE_TEST_ACP_KEY";
export const TEST_KEY = "sk-test-acp-0f3c9e7b51d2";

export function requireAdapter(): string {
  if (!existsSync(ACP_ADAPTER)) {
    throw new Error(
      `the Claude ACP adapter is not installed at ${ACP_ADAPTER}: \`npm ci\` installs the pinned @agentclientprotocol/claude-agent-acp`,
    );
  }
  return ACP_ADAPTER;
}

/**
 * acp_agents with one agent, `claude`, the adapter under this Node, pointed at `mockUrl`, its
 * config in `home`; and the host environment it reads `${VAR}` from.
 */
export function adapterAgents(home: string, mockUrl: string, cwd: string): { agents: AcpAgentsConfig; host: Record<string, string> } {
  const configDir = join(home, ".claude");
  mkdirSync(configDir, { recursive: true });
  writeFileSync(
    join(configDir, ".claude.json"),
    JSON.stringify({ hasCompletedOnboarding: true, projects: { [cwd]: { hasTrustDialogAccepted: true } } }),
  );
  return {
    agents: {
      claude: {
        command: [process.execPath, requireAdapter()],
        env: {
          HOME: home,
          CLAUDE_CONFIG_DIR: configDir,
          ANTHROPIC_BASE_URL: mockUrl,
          ANTHROPIC_API_KEY: `\${${KEY_VARIABLE}}`,
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
          CLAUDE_CODE_MAX_RETRIES: "0",
          CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL: "1",
          IS_SANDBOX: "1",
        },
      },
    },
    host: { PATH: process.env["PATH"] ?? "", [KEY_VARIABLE]: TEST_KEY },
  };
}

/** Claude Code's own side requests (a session's title, the next-prompt suggestion), told apart from the conversation's. */
export function isSideRequest(req: RecordedRequest): boolean {
  const system = JSON.stringify(req.body.system ?? "");
  const last = JSON.stringify(req.body.messages.at(-1) ?? "");
  return system.includes("naming a coding session") || last.includes("[SUGGESTION MODE");
}

/**
 * Answers the adapter's requests: side requests with a short text, the conversation's from
 * `replies` in order (then a plain text, so an extra request never hangs a test). The
 * conversation's requests are listed by `conversation()`.
 */
export function scriptAdapter(
  mock: MockAnthropic,
  ...replies: Reply[]
): { conversation: () => RecordedRequest[]; reply: (...more: Reply[]) => void } {
  const queue = [...replies];
  mock.otherwise((req) => (isSideRequest(req) ? textReply("A title") : (queue.shift() ?? textReply("(unscripted)"))));
  return { conversation: () => mock.requests.filter((r) => !isSideRequest(r)), reply: (...more) => queue.push(...more) };
}

/** The running (not zombie) processes of process group `pgid`, from /proc. */
export function groupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      // After the command's name (which may hold spaces): state, ppid, pgrp.
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(pgrp) === pgid && state !== "Z" && state !== "X") members.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return members;
}

/** Waits until nothing of process group `pgid` runs; fails after `timeoutMs`, naming what still runs. */
export async function groupGone(pgid: number, timeoutMs = 5000): Promise<void> {
  const start = Date.now();
  for (let left = groupMembers(pgid); left.length; left = groupMembers(pgid)) {
    if (Date.now() - start > timeoutMs)
      throw new Error(`process group ${pgid} still runs ${left.join(", ")} ${timeoutMs} ms after its agent ended`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * OpenCode's Linux x64 binary (opencode-linux-x64, pinned, a devDependency: the registry these
 * tests install from keeps no other platform's, so the opencode-ai wrapper's lock cannot be whole;
 * the tests run on Linux x64 only, as their Neovim does): its `opencode acp` is a real ACP agent
 * whose sessions fork whole only.
 */
export const OPENCODE = join(ROOT, "node_modules/opencode-linux-x64/bin/opencode");

/** The model the OpenCode agent asks the mock for (a model OpenCode's bundled list knows). */
export const OPENCODE_MODEL = "claude-sonnet-4-5";

/**
 * acp_agents' entry for `opencode acp` against the mock at `mockUrl` (a URL, or `${VAR}` naming
 * one), offline: all its state under `home` (HOME and the XDG folders), its config given whole
 * in OPENCODE_CONFIG_CONTENT (its Anthropic provider's baseURL pointed at the mock; the project's
 * and the user's config never read), models.dev, updates, sharing and LSP downloads off. Its key
 * comes through `${KEY_VARIABLE}` as ANTHROPIC_API_KEY, which OpenCode's Anthropic provider reads.
 * Tried with no network at all (a network namespace with loopback only): it answers, prompts and
 * forks; its one outside attempt, an npm install of its plugin package into its config folder,
 * fails quietly.
 */
export function openCodeAgent(home: string, mockUrl: string): AcpAgentsConfig[string] {
  if (!existsSync(OPENCODE)) throw new Error(`OpenCode is not installed at ${OPENCODE}: \`npm ci\` installs the pinned opencode-ai`);
  const config = {
    autoupdate: false,
    share: "disabled",
    model: `anthropic/${OPENCODE_MODEL}`,
    small_model: `anthropic/${OPENCODE_MODEL}`,
    provider: { anthropic: { options: { baseURL: `${mockUrl}/v1` } } },
  };
  return {
    command: [OPENCODE, "acp"],
    env: {
      HOME: home,
      XDG_CONFIG_HOME: join(home, ".config"),
      XDG_DATA_HOME: join(home, ".local/share"),
      XDG_CACHE_HOME: join(home, ".cache"),
      XDG_STATE_HOME: join(home, ".local/state"),
      OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
      OPENCODE_DISABLE_PROJECT_CONFIG: "1",
      OPENCODE_DISABLE_MODELS_FETCH: "1",
      OPENCODE_DISABLE_AUTOUPDATE: "1",
      OPENCODE_DISABLE_SHARE: "1",
      OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
      OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
      OPENCODE_DISABLE_CLAUDE_CODE: "1",
      ANTHROPIC_API_KEY: `\${${KEY_VARIABLE}}`,
    },
  };
}

/** OpenCode's own side request (a session's title), told apart from the conversation's. */
export function isOpenCodeSideRequest(req: RecordedRequest): boolean {
  return JSON.stringify(req.body.system ?? "").includes("You are a title generator");
}

/** As scriptAdapter, for OpenCode: its title requests get a short text, the conversation's `replies` in order. */
export function scriptOpenCode(
  mock: MockAnthropic,
  ...replies: Reply[]
): { conversation: () => RecordedRequest[]; reply: (...more: Reply[]) => void } {
  const queue = [...replies];
  mock.otherwise((req) => (isOpenCodeSideRequest(req) ? textReply("A title") : (queue.shift() ?? textReply("(unscripted)"))));
  return { conversation: () => mock.requests.filter((r) => !isOpenCodeSideRequest(r)), reply: (...more) => queue.push(...more) };
}

/** Types `text` in thread `id`'s input and sends it, as a user does (`:Tine send` in the input). */
export async function sendIn(s: Session, id: string, text: string): Promise<void> {
  await s.open(id);
  const t = await s.thread(id);
  await s.setLines(t.input_bufnr!, [text]);
  await s.focus(t.input_bufnr!);
  await s.cmd("Tine send");
}

/**
 * A stored thread of agent "claude" in `project`'s store (for Neovim working in `cwd`) whose
 * session no agent knows: "Earlier question", "Earlier answer", then `more` records. Its next use
 * must fork or go on the seeded way.
 */
export function storedAcpThread(project: string, cwd: string, id: string, more: readonly ChangeRecord[] = []): void {
  const log = new ThreadStore(join(project, ".data", "nvim", "tine"), cwd).create({
    id,
    num: 1,
    title: "stored",
    model: "m",
    runner: { kind: "acp", agent: "claude", sessionId: "a-session-no-agent-knows" },
    parent: null,
  });
  const usage = { input_tokens: 1, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
  log.append([
    { t: "append", m: { role: "user", content: [{ type: "text", text: "Earlier question" }] } },
    { t: "append", m: { role: "assistant", content: [{ type: "text", text: "Earlier answer" }] }, meta: { stopReason: "end_turn", usage } },
    ...more,
  ]);
  log.close();
}
