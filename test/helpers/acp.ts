/**
 * The real ACP agent of the tests: `@agentclientprotocol/claude-agent-acp` (pinned, a
 * devDependency), which runs Claude Code against the HTTP mock (../../shared/acp.md says what it
 * needs offline): a throwaway HOME and config dir, the mock's URL, no other traffic, and
 * IS_SANDBOX=1 (as root, its bypass mode is refused without it). Its API key comes through
 * acp_agents' `${VAR}`, as a user's would, so tests can check where the key goes.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AcpAgentsConfig } from "../../node/acp/agents.ts";
import { ROOT } from "./neovim.ts";

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
