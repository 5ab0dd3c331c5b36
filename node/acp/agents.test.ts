// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${VAR}" is what acp_agents takes, written as a user writes it
import { assert, describe, it } from "vitest";
import { say } from "../core/checks.ts";
import { ACP_AGENTS } from "../core/options.ts";
import { check } from "../core/rules.ts";
import { AcpConfigError, launchOf } from "./agents.ts";

const problem = (value: unknown) => {
  const checked = check(ACP_AGENTS, value, "acp_agents");
  return checked.ok ? null : say(checked.problem);
};

describe("acp_agents: the rule setup() and the host check", () => {
  it("takes agents by name with a command list and string env", () => {
    assert.equal(problem({ claude: { command: ["claude-agent-acp", "--x"], env: { K: "v" } } }), null);
    assert.equal(problem({ codex: { command: ["codex-acp"] } }), null);
    assert.equal(problem([]), null); // Lua's {}
  });

  it("says what is wrong, where", () => {
    assert.equal(
      problem({ claude: { command: "claude-agent-acp" } }),
      'acp_agents.claude.command must be a non-empty list of strings (the program, then its arguments) (got "claude-agent-acp")',
    );
    assert.equal(
      problem({ claude: { command: [] } }),
      "acp_agents.claude.command must be a non-empty list of strings (the program, then its arguments) (got a table)",
    );
    assert.equal(problem({ claude: { command: ["x"], env: { K: 1 } } }), "acp_agents.claude.env.K must be a string (got 1)");
    assert.match(problem({ claude: { command: ["x"], cmd: ["y"] } })!, /^acp_agents\.claude has no "cmd" \(it takes command, env, mode\)$/);
    assert.match(problem({ "my agent": { command: ["x"] } })!, /must be named with letters, digits, _ and - only/);
    assert.match(problem({ claude: {} })!, /^acp_agents\.claude\.command (is missing|must be)/);
  });
});

describe("launchOf", () => {
  const agents = {
    claude: { command: ["claude-agent-acp", "--flag"], env: { TOKEN: "${MY_TOKEN}", MODE: "${MODE:-fast}", PLAIN: "a b" } },
  };

  it("runs the argv as given (no shell), with env over the host's, ${VAR} read from the host", () => {
    const launch = launchOf(agents, "claude", "/p", { PATH: "/bin", MY_TOKEN: "t0k", PLAIN: "host" });
    assert.deepEqual(launch, {
      name: "claude",
      program: "claude-agent-acp",
      args: ["--flag"],
      cwd: "/p",
      env: { PATH: "/bin", MY_TOKEN: "t0k", TOKEN: "t0k", MODE: "fast", PLAIN: "a b" },
    });
  });

  it("passes the host's own credentials only when env names them", () => {
    const host = { ANTHROPIC_API_KEY: "sk-secret", ANTHROPIC_AUTH_TOKEN: "tok", PATH: "/bin" };
    assert.deepEqual(launchOf({ a: { command: ["x"] } }, "a", "/p", host).env, { PATH: "/bin" });
    const named = launchOf({ a: { command: ["x"], env: { ANTHROPIC_API_KEY: "${ANTHROPIC_API_KEY}" } } }, "a", "/p", host);
    assert.equal(named.env["ANTHROPIC_API_KEY"], "sk-secret");
  });

  it("an unset variable or an unknown name is a clear error", () => {
    assert.throws(
      () => launchOf(agents, "claude", "/p", {}),
      AcpConfigError,
      "tine: acp_agents.claude.env.TOKEN: ${MY_TOKEN} is not set in Neovim's environment",
    );
    assert.throws(() => launchOf(agents, "codex", "/p", {}), /^tine: no ACP agent named "codex" \(acp_agents has claude\)$/);
    assert.throws(() => launchOf({}, "codex", "/p", {}), /acp_agents in setup\(\) names none/);
    assert.throws(() => launchOf(agents, "toString", "/p", {}), /no ACP agent named "toString"/);
  });
});
