/**
 * An ACP thread's permission requests as tine's questions (chat/runner.ts's RunnerQuestions): the
 * ones waiting, in the agent's words cut to one line, and the user's answer as the option of the
 * kind they chose. A denial with a reason (`D`) rejects the call, and the reason goes to the agent
 * as the thread's next prompt (ACP's answer to a permission carries no text): see `Denials`.
 */
import type { PermissionOptionKind } from "@agentclientprotocol/sdk/unstable";
import type { QuestionAnswer, RunnerQuestion } from "../chat/runner.ts";
import type { History } from "../core/history.ts";
import { oneLine } from "../core/one-line.ts";
import type { PendingPermission } from "./permissions.ts";

const ANSWER_KINDS: { readonly [K in QuestionAnswer]: PermissionOptionKind } = {
  allow_once: "allow_once",
  allow_always: "allow_always",
  reject_once: "reject_once",
};

/** The requests waiting, as the display lists them. */
export function pendingQuestions(waiting: readonly PendingPermission[], history: History): RunnerQuestion[] {
  return waiting.map((p) => ({
    toolId: p.toolCall.toolCallId,
    title: titleOf(p, history),
    options: p.options.map((o) => ({ kind: o.kind, name: oneLine(o.name) })),
  }));
}

/** The tool call a request is about, in one line: its title, else the call's name in the transcript. */
export function titleOf(p: PendingPermission, history: History): string {
  if (p.toolCall.title) return oneLine(p.toolCall.title);
  // From the end, without copying the history: drawn on every update while the request waits.
  for (let i = history.length - 1; i >= 0; i--)
    for (const b of history.at(i).message.content) if (b.type === "tool_use" && b.id === p.toolCall.toolCallId) return oneLine(b.name);
  return "a tool call";
}

/** Answers the request about `toolId` (null: the oldest) with its option of `kind`; the request answered, or null when none waits. */
export function answerQuestion(
  agent: string,
  waiting: readonly PendingPermission[],
  toolId: string | null,
  kind: QuestionAnswer,
): PendingPermission | null {
  const p = toolId === null ? waiting[0] : waiting.find((w) => w.toolCall.toolCallId === toolId);
  if (!p) return null;
  const option = p.options.find((o) => o.kind === ANSWER_KINDS[kind]);
  if (!option) throw new Error(`tine: ${agent} offered no "${kind.replace("_", " ")}" answer here`);
  p.select(option.optionId);
  return p;
}

/** The prompt that tells the agent why the user denied a call (its first line says which). */
export function denialPrompt(title: string, reason: string): string {
  return `I denied ${title}. Why: ${reason}`;
}
