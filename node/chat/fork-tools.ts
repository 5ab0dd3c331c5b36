/**
 * The agent's fork tools (tools/fork-specs.ts declares them) as typed requests: what a call's
 * input means, checked and bounded, or why it is refused. Pure; the chat decides what a request
 * does to the tree and when.
 */
import type { ForkToolName } from "../tools/fork-specs.ts";

export type ForkToolCall =
  | { readonly tool: "enter_fork"; readonly topic: string; readonly idleTimeoutMs?: number }
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

/** A fork tool call's input as a request, or the error the model gets back. */
export function parseForkTool(name: ForkToolName, rawInput: unknown): ParsedForkTool {
  const input = rawInput && typeof rawInput === "object" && !Array.isArray(rawInput) ? (rawInput as Record<string, unknown>) : {};
  switch (name) {
    case "enter_fork": {
      const minutes = input["idle_timeout"];
      const idle = typeof minutes === "number" && minutes > 0 ? { idleTimeoutMs: minutes * 60_000 } : {};
      return { ok: true, call: { tool: "enter_fork", topic: text(input, "topic"), ...idle } };
    }
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
