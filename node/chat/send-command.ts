/** What a `send` from the input buffer means: `@`-commands are recognised here, at the entry. */
export type SendCommand =
  /** `worktree` (`@fork --worktree`): the fork works in a git worktree of its own; absent, `fork_worktree` decides. */
  | { type: "fork"; prompt: string; worktree?: true }
  /** `@bg <prompt>`: a fork that runs without a window and reports back when its turn ends. */
  | { type: "background-fork"; prompt: string; worktree?: true }
  /** `@handoff <goal>`: the agent writes a prompt for a fresh thread; this one returns to how it was. */
  | { type: "handoff"; goal: string }
  /** `@compact [instructions]`: a new thread under this one opens with the model's summary of it; this one stays whole. */
  | { type: "compact"; instructions: string }
  /** `@now <text>`: while the agent works, the text goes with the next tool results (steering). */
  | { type: "now"; text: string }
  | { type: "message"; text: string };

/** The `@`-commands as typed, each with what it does (what `g?` in an input lists). A new one starts here. */
export type SendCommandName = "fork" | "bg" | "handoff" | "compact" | "now";
export const SEND_COMMANDS: Readonly<Record<SendCommandName, { usage: string; info: string }>> = {
  fork: {
    usage: "@fork [--worktree] <prompt>",
    info: "fork this thread beside it, the prompt its next message (alone: a fork to type in; --worktree: in a git worktree of its own)",
  },
  bg: { usage: "@bg [--worktree] <prompt>", info: "a fork that runs without a window and reports back when its turn ends" },
  handoff: { usage: "@handoff <goal>", info: "the agent writes a prompt for a fresh thread; this one stays as it was" },
  compact: {
    usage: "@compact [instructions]",
    info: "a new thread under this one opens with the model's summary of it; this one stays whole",
  },
  now: { usage: "@now <text>", info: "while the agent works: goes with the next tool results (steering)" },
};

const COMMAND = new RegExp(`^\\s*@(${Object.keys(SEND_COMMANDS).join("|")})(?=\\s|$)\\s*([\\s\\S]*)$`);
const WORKTREE = /^--worktree(?=\s|$)\s*/;

/** A fork's prompt, and whether `--worktree` came before it. */
function forkArgs(rest: string): { prompt: string; worktree?: true } {
  const flag = WORKTREE.exec(rest);
  return flag ? { prompt: rest.slice(flag[0].length).trim(), worktree: true } : { prompt: rest.trim() };
}

export function parseSend(text: string): SendCommand {
  const command = COMMAND.exec(text);
  if (command?.[1] === "fork") return { type: "fork", ...forkArgs(command[2]!) };
  if (command?.[1] === "bg") return { type: "background-fork", ...forkArgs(command[2]!) };
  if (command?.[1] === "handoff") return { type: "handoff", goal: command[2]!.trim() };
  if (command?.[1] === "compact") return { type: "compact", instructions: command[2]!.trim() };
  if (command?.[1] === "now") return { type: "now", text: command[2]!.trim() };
  return { type: "message", text: text.trim() };
}
