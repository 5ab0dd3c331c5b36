/** What a `send` from the input buffer means: `@`-commands are recognised here, at the entry. */
export type SendCommand =
  | { type: "fork"; prompt: string }
  /** `@bg <prompt>`: a fork that runs without a window and reports back when its turn ends. */
  | { type: "background-fork"; prompt: string }
  /** `@handoff <goal>`: the agent writes a prompt for a fresh thread; this one returns to how it was. */
  | { type: "handoff"; goal: string }
  /** `@now <text>`: while the agent works, the text goes with the next tool results (steering). */
  | { type: "now"; text: string }
  | { type: "message"; text: string };

/** The `@`-commands as typed, each with what it does (what `g?` in an input lists). A new one starts here. */
export type SendCommandName = "fork" | "bg" | "handoff" | "now";
export const SEND_COMMANDS: Readonly<Record<SendCommandName, { usage: string; info: string }>> = {
  fork: { usage: "@fork <prompt>", info: "fork this thread beside it, the prompt its next message (alone: a fork to type in)" },
  bg: { usage: "@bg <prompt>", info: "a fork that runs without a window and reports back when its turn ends" },
  handoff: { usage: "@handoff <goal>", info: "the agent writes a prompt for a fresh thread; this one stays as it was" },
  now: { usage: "@now <text>", info: "while the agent works: goes with the next tool results (steering)" },
};

const COMMAND = new RegExp(`^\\s*@(${Object.keys(SEND_COMMANDS).join("|")})(?=\\s|$)\\s*([\\s\\S]*)$`);

export function parseSend(text: string): SendCommand {
  const command = COMMAND.exec(text);
  if (command?.[1] === "fork") return { type: "fork", prompt: command[2]!.trim() };
  if (command?.[1] === "bg") return { type: "background-fork", prompt: command[2]!.trim() };
  if (command?.[1] === "handoff") return { type: "handoff", goal: command[2]!.trim() };
  if (command?.[1] === "now") return { type: "now", text: command[2]!.trim() };
  return { type: "message", text: text.trim() };
}
