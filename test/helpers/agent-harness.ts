/** Drives an AnthropicAgent against the HTTP mock: the real SDK over real HTTP. */
import Anthropic from "@anthropic-ai/sdk";
import type { AgentMsg, AgentStatus } from "../../node/core/agent.ts";
import { AnthropicAgent } from "../../node/providers/anthropic-agent.ts";
import type { Connection } from "../../node/providers/connection.ts";
import type { ProviderConfig } from "../../node/providers/request.ts";
import { MockAnthropic } from "../mock-anthropic/server.ts";

export const testConfig: ProviderConfig = {
  model: "claude-test",
  maxTokens: 4096,
  thinking: null,
  effort: null,
  webSearch: false,
  system: "You are a test assistant.",
  tools: [{ name: "get_file", description: "Reads a file", input_schema: { type: "object", properties: { path: { type: "string" } } } }],
  thinkingBudgets: { low: 2048, medium: 3000, high: 4000 },
};

export function testConnection(mock: MockAnthropic): Connection {
  return {
    // As the host connects: one retry layer, the agent's.
    client: new Anthropic({ apiKey: "test-key", baseURL: mock.url, maxRetries: 0 }),
    streamRetries: 2,
    retryDelayMs: 1,
  };
}

/** Records an agent's messages and lets a test await a status. */
export class AgentProbe {
  readonly msgs: AgentMsg[] = [];
  private waiters: { pred: (s: AgentStatus) => boolean; resolve: () => void }[] = [];
  private conditions: { pred: () => boolean; resolve: () => void }[] = [];
  dispatch = (msg: AgentMsg) => {
    this.msgs.push(msg);
    for (const c of this.conditions.filter((c) => c.pred())) {
      this.conditions.splice(this.conditions.indexOf(c), 1);
      c.resolve();
    }
    if (msg.type === "status-changed") {
      for (const w of this.waiters.filter((w) => w.pred(msg.status))) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  };
  /** Resolves at the next status change matching `pred`. */
  next(pred: (s: AgentStatus) => boolean): Promise<void> {
    return new Promise((resolve) => this.waiters.push({ pred, resolve }));
  }
  /** Resolves once `pred` holds after some message (the agent has processed what it was sent). */
  until(pred: () => boolean): Promise<void> {
    if (pred()) return Promise.resolve();
    return new Promise((resolve) => this.conditions.push({ pred, resolve }));
  }
  stopped() {
    return this.next((s) => s.type === "stopped" || s.type === "error");
  }
}

export async function withAgent(
  fn: (ctx: { mock: MockAnthropic; agent: AnthropicAgent; probe: AgentProbe }) => Promise<void>,
  config: ProviderConfig = testConfig,
  connection: Partial<Connection> = {},
): Promise<void> {
  const mock = await MockAnthropic.start();
  const probe = new AgentProbe();
  const agent = new AnthropicAgent(config, { ...testConnection(mock), ...connection }, probe.dispatch);
  try {
    await fn({ mock, agent, probe });
    const violations = mock.violations();
    if (violations.length) throw new Error(`requests broke the API's rules:\n${violations.join("\n")}`);
  } finally {
    agent.abort();
    await mock.close();
  }
}

export const say = (text: string) => [{ type: "text" as const, text }];
export const messages = (a: AnthropicAgent) => a.history.messages();
export const streamingReached = (a: AnthropicAgent) => a.status.type === "streaming";
/** The mock reaching a hold is not the client having read what came before it: await the agent. */
export const streamedUpTo = (probe: AgentProbe, a: AnthropicAgent, finalized: number, inProgress: string | null) =>
  probe.until(() => a.open?.finalized.length === finalized && (a.open.inProgress?.type ?? null) === inProgress);
