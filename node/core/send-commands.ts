/**
 * The `@`-commands a message may start with, as typed, each with what it does: what `g?` in an
 * input lists, what completion offers at a message's start (context/complete.ts), and the names
 * chat/send-command.ts recognises at the `send` entry. A new one starts here.
 */
export type SendCommandName = "fork" | "fork×N" | "bg" | "bg!" | "handoff" | "compact" | "now";
export const SEND_COMMANDS: Readonly<Record<SendCommandName, { usage: string; info: string }>> = {
  fork: {
    usage: "@fork [--worktree|--unattended] <prompt>",
    info:
      "fork this thread beside it, the prompt its next message (alone: a fork to type in; --worktree: in a git worktree of its own; " +
      "--unattended: its tools in the sandbox, without approvals inside it)",
  },
  "fork×N": {
    usage: "@fork×N <prompt>",
    info: "N forks run the prompt at once, each in a worktree of its own (unattended where the sandbox starts); also @fork*N",
  },
  bg: { usage: "@bg [--worktree|--unattended] <prompt>", info: "a fork that runs without a window and reports back when its turn ends" },
  "bg!": {
    usage: "@bg! <prompt>",
    info: "an unattended @bg: in a worktree of its own, its tools in the sandbox, nothing inside it waits for approval",
  },
  handoff: { usage: "@handoff <goal>", info: "the agent writes a prompt for a fresh thread; this one stays as it was" },
  compact: {
    usage: "@compact [instructions]",
    info: "a new thread under this one opens with the model's summary of it; this one stays whole",
  },
  now: { usage: "@now <text>", info: "while the agent works: goes with the next tool results (steering)" },
};
