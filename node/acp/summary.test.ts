import { assert, describe, it } from "vitest";
import { healthLines, summaryOf } from "./summary.ts";

// What @agentclientprotocol/claude-agent-acp 0.101.0 answered to initialize (shared/acp.md), trimmed.
const CLAUDE = {
  protocolVersion: 1,
  agentCapabilities: {
    loadSession: true,
    sessionCapabilities: { additionalDirectories: {}, close: {}, delete: {}, fork: {}, list: {}, resume: {}, systemPrompt: {} },
    promptCapabilities: { image: true, embeddedContext: true },
    mcpCapabilities: { http: true, sse: true },
  },
  agentInfo: { name: "@agentclientprotocol/claude-agent-acp", title: "Claude Agent", version: "0.101.0" },
};

describe("the initialize summary", () => {
  it("says who the agent is and what it can do with sessions, for :checkhealth", () => {
    assert.deepEqual(healthLines(summaryOf("claude", CLAUDE)), [
      "claude: Claude Agent 0.101.0, ACP protocol 1",
      "can load, can list, can resume, can fork sessions",
    ]);
  });

  it("an agent that says little can do nothing it did not say", () => {
    const s = summaryOf("bare", { protocolVersion: 1 });
    assert.deepEqual(healthLines(s), [
      "bare: (no name given), ACP protocol 1",
      "cannot load, cannot list, cannot resume, cannot fork sessions",
    ]);
    assert.deepEqual(s.prompt, { image: false, audio: false, embeddedContext: false });
  });
});
