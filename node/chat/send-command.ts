/** What a `send` from the input buffer means: `@`-commands are recognised here, at the entry. */
import { SEND_COMMANDS } from "../core/send-commands.ts";

export type SendCommand =
  /**
   * `worktree` (`@fork --worktree`): the fork works in a git worktree of its own; absent,
   * `fork_worktree` decides. `unattended` (`--unattended`): in one whose tools run in the sandbox.
   */
  | ({ type: "fork" } & ForkArgs)
  /** `@bg <prompt>`: a fork that runs without a window and reports back when its turn ends; `@bg!`: an unattended one. */
  | ({ type: "background-fork" } & ForkArgs)
  /** `@fork×N <prompt>` (also `@fork*N`): N forks at once, each in a worktree of its own (node/fork/fanout.ts). */
  | { type: "fan-out"; n: number; prompt: string }
  /** `@handoff <goal>`: the agent writes a prompt for a fresh thread; this one returns to how it was. */
  | { type: "handoff"; goal: string }
  /** `@compact [instructions]`: a new thread under this one opens with the model's summary of it; this one stays whole. */
  | { type: "compact"; instructions: string }
  /** `@now <text>`: while the agent works, the text goes with the next tool results (steering). */
  | { type: "now"; text: string }
  | { type: "message"; text: string };

const COMMAND = new RegExp(
  `^\\s*@(${Object.keys(SEND_COMMANDS)
    .filter((name) => name !== "fork×N")
    .join("|")})(?=\\s|$)\\s*([\\s\\S]*)$`,
);
/** `@fork×3` or `@fork ×3` (`*` for `×`): a space before the sign is still the fan-out, never a fork titled `×3 …`. */
const FAN_OUT = /^\s*@fork[ \t]*[×*](\d+)(?=\s|$)\s*([\s\S]*)$/;
const FLAG = /^--(worktree|unattended)(?=\s|$)\s*/;

type ForkArgs = { prompt: string; worktree?: true; unattended?: true };

/** A fork's prompt, and the flags (`--worktree`, `--unattended`) before it, in any order. */
function forkArgs(rest: string, unattended: boolean): ForkArgs {
  const args: { worktree?: true; unattended?: true } = unattended ? { unattended: true } : {};
  let prompt = rest;
  for (let flag = FLAG.exec(prompt); flag; flag = FLAG.exec(prompt)) {
    args[flag[1] as "worktree" | "unattended"] = true;
    prompt = prompt.slice(flag[0].length);
  }
  return { prompt: prompt.trim(), ...args };
}

export function parseSend(text: string): SendCommand {
  const fanOut = FAN_OUT.exec(text);
  if (fanOut) return { type: "fan-out", n: Number(fanOut[1]), prompt: fanOut[2]!.trim() };
  const command = COMMAND.exec(text);
  if (command?.[1] === "fork") return { type: "fork", ...forkArgs(command[2]!, false) };
  if (command?.[1] === "bg" || command?.[1] === "bg!") return { type: "background-fork", ...forkArgs(command[2]!, command[1] === "bg!") };
  if (command?.[1] === "handoff") return { type: "handoff", goal: command[2]!.trim() };
  if (command?.[1] === "compact") return { type: "compact", instructions: command[2]!.trim() };
  if (command?.[1] === "now") return { type: "now", text: command[2]!.trim() };
  return { type: "message", text: text.trim() };
}
