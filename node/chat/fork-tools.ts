/**
 * The agent's fork tools (tools/fork-specs.ts declares them) as typed requests: what a call's
 * input means, checked and bounded, or why it is refused. Pure; the chat decides what a request
 * does to the tree and when.
 */
import { type ForkToolName, MAX_AGENT_IDLE_MINUTES } from "../tools/fork-specs.ts";

export type ForkToolCall =
  /** `note`: what the model is told of how its input was taken (an idle_timeout bounded or ignored), or "". */
  | { readonly tool: "enter_fork"; readonly topic: string; readonly idleTimeoutMs?: number; readonly note: string }
  | { readonly tool: "exit_fork" }
  | { readonly tool: "save_context" }
  | { readonly tool: "report_updates"; readonly message: string }
  | { readonly tool: "fork_thread"; readonly prompt: string };

export type ParsedForkTool = { readonly ok: true; readonly call: ForkToolCall } | { readonly ok: false; readonly error: string };

/** The tools that end the fork they are called in: outside a fork they are refused. */
export const endsAFork = (name: ForkToolName): boolean => name === "exit_fork" || name === "save_context" || name === "report_updates";

const text = (input: Record<string, unknown>, key: string): string => {
  const v = input[key];
  return typeof v === "string" ? v.trim() : "";
};

/** enter_fork's idle_timeout (minutes, from the model) as a bounded time-out, and what the model is told of it. */
function idleTimeout(minutes: unknown): { idleTimeoutMs?: number; note: string } {
  if (minutes === undefined || minutes === null) return { note: "" };
  if (typeof minutes !== "number" || !(minutes > 0))
    return {
      note: ` idle_timeout must be a number of minutes above 0 (got ${typeof minutes === "number" ? minutes : `a ${typeof minutes}`}): the fork has the user's default.`,
    };
  if (minutes > MAX_AGENT_IDLE_MINUTES)
    return {
      idleTimeoutMs: MAX_AGENT_IDLE_MINUTES * 60_000,
      note: ` idle_timeout is at most ${MAX_AGENT_IDLE_MINUTES} minutes (a day): the fork's is ${MAX_AGENT_IDLE_MINUTES}.`,
    };
  return { idleTimeoutMs: minutes * 60_000, note: "" };
}

/** A fork tool call's input as a request, or the error the model gets back. */
export function parseForkTool(name: ForkToolName, rawInput: unknown): ParsedForkTool {
  const input = rawInput && typeof rawInput === "object" && !Array.isArray(rawInput) ? (rawInput as Record<string, unknown>) : {};
  switch (name) {
    case "enter_fork":
      return { ok: true, call: { tool: "enter_fork", topic: text(input, "topic"), ...idleTimeout(input["idle_timeout"]) } };
    case "exit_fork":
      return { ok: true, call: { tool: "exit_fork" } };
    case "save_context":
      return { ok: true, call: { tool: "save_context" } };
    case "report_updates": {
      const message = text(input, "message");
      if (!message) return { ok: false, error: "report_updates needs a message: the summary to send." };
      return { ok: true, call: { tool: "report_updates", message } };
    }
    case "fork_thread": {
      const prompt = text(input, "prompt");
      if (!prompt) return { ok: false, error: "fork_thread needs a prompt for the new thread." };
      return { ok: true, call: { tool: "fork_thread", prompt } };
    }
  }
}
