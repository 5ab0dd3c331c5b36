/**
 * What an agent answered to `initialize`, as tine uses it: what to call it, and what it can do
 * (load, list, resume, fork sessions; which prompt contents it takes). `:checkhealth tine` shows
 * it (healthLines); the runner picks its ways (resume or load, native fork or replay) from it.
 */
import type { InitializeResponse } from "@agentclientprotocol/sdk/unstable";
import type { McpTransportsSaid } from "./mcp-servers.ts";

export type AgentSummary = {
  /** The name in acp_agents. */
  readonly configured: string;
  /** The agent's own name and version (agentInfo: its title, else its name), when it said them. */
  readonly name: string | null;
  /** `agentInfo.name` as given (a package's name): which agent it is, for what ACP has no capability for (fork-way.ts). */
  readonly id: string | null;
  readonly version: string | null;
  readonly protocolVersion: number;
  readonly load: boolean;
  readonly list: boolean;
  readonly resume: boolean;
  readonly fork: boolean;
  readonly close: boolean;
  readonly prompt: PromptCapabilitiesSaid;
  /** The MCP transports it takes besides stdio (tine's HTTP and SSE servers go only where it does). */
  readonly mcp: McpTransportsSaid;
};

export type PromptCapabilitiesSaid = { readonly image: boolean; readonly audio: boolean; readonly embeddedContext: boolean };

const present = (v: unknown) => v !== undefined && v !== null;

export function summaryOf(configured: string, answer: InitializeResponse): AgentSummary {
  const caps = answer.agentCapabilities ?? {};
  const sessions = caps.sessionCapabilities ?? {};
  const prompt = caps.promptCapabilities ?? {};
  return {
    configured,
    name: answer.agentInfo?.title || answer.agentInfo?.name || null,
    id: answer.agentInfo?.name || null,
    version: answer.agentInfo?.version || null,
    protocolVersion: answer.protocolVersion,
    load: caps.loadSession === true,
    list: present(sessions.list),
    resume: present(sessions.resume),
    fork: present(sessions.fork),
    close: present(sessions.close),
    prompt: { image: prompt.image === true, audio: prompt.audio === true, embeddedContext: prompt.embeddedContext === true },
    mcp: { http: caps.mcpCapabilities?.http === true, sse: caps.mcpCapabilities?.sse === true },
  };
}

/** The summary as `:checkhealth tine` shows it. Agent-given words are shown as text, cut short. */
export function healthLines(s: AgentSummary): string[] {
  const cut = (t: string) => (t.length > 80 ? `${t.slice(0, 79)}…` : t);
  const can = (yes: boolean, what: string) => `${yes ? "can" : "cannot"} ${what}`;
  return [
    `${s.configured}: ${s.name ? cut(s.name) : "(no name given)"}${s.version ? ` ${cut(s.version)}` : ""}, ACP protocol ${s.protocolVersion}`,
    `${[can(s.load, "load"), can(s.list, "list"), can(s.resume, "resume"), can(s.fork, "fork")].join(", ")} sessions`,
  ];
}
