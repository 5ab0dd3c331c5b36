/**
 * The tools an agent uses to fork and to end forks (and to hand work off). They are offered to
 * every thread alike, so a fork's requests keep its parent's cached prefix; where one does not
 * apply (exit_fork outside a fork) it answers with an error that says why. The chat carries them
 * out: they act on the thread tree, not on files.
 */
import type Anthropic from "@anthropic-ai/sdk";

/** The longest idle_timeout (minutes) enter_fork takes: a day. A larger one is cut to it, and the model told. */
export const MAX_AGENT_IDLE_MINUTES = 24 * 60;

export const FORK_TOOL_SPECS: readonly Anthropic.Messages.Tool[] = [
  {
    name: "enter_fork",
    description:
      "Start a fork of this conversation for a tangent, research or a risky try, without disturbing this thread. " +
      "The fork opens beside this thread when your current response ends; with a topic, the topic is sent to it as its first message. " +
      `idle_timeout: minutes of idleness before the fork is asked to wrap up (at most ${MAX_AGENT_IDLE_MINUTES}, a day). ` +
      "A fork you opened cannot open another until the user sends a message in it, and only a few forks you opened can be open at once.",
    input_schema: { type: "object", properties: { topic: { type: "string" }, idle_timeout: { type: "number" } } },
  },
  {
    name: "exit_fork",
    description: "In a fork: end it and discard it (nothing goes back to the thread it came from). Takes effect when your response ends.",
    input_schema: { type: "object", properties: {} },
  },
  {
    name: "save_context",
    description:
      "In a fork: promote it, so the thread it came from continues from this fork's conversation. Takes effect when your response ends.",
    input_schema: { type: "object", properties: {} },
  },
  {
    name: "report_updates",
    description:
      "In a fork: send a summary of what this fork found to the thread it came from, then end the fork. Takes effect when your response ends.",
    input_schema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },
  },
  {
    name: "fork_thread",
    description:
      "Hand the work off to a fresh thread: give a self-contained prompt with the context it needs (not the whole history). " +
      "The user reviews it before it is sent. Use only when asked to hand off.",
    input_schema: { type: "object", properties: { prompt: { type: "string" } }, required: ["prompt"] },
  },
];

export type ForkToolName = "enter_fork" | "exit_fork" | "save_context" | "report_updates" | "fork_thread";
export const isForkTool = (name: string): name is ForkToolName => FORK_TOOL_SPECS.some((t) => t.name === name);
